"""The ``agenteval`` program: its commands, one line each, the ``--version`` flag, and ``main``.

Each command lives in a module of its own in this package (``import``: importers/command.py);
a new command is one line of :data:`COMMANDS`.

``main`` builds the app with only the command the command line names (``agenteval run …``):
its module is the only command module imported (a command that reads another's options —
validate and ``schema config`` read run's — gets it through :func:`command_named`).
Importing every command module cost 1.0-1.2 s of CPU at each start (``diff`` alone pulls in
the whole API, pydantic models and all), ``trend`` (issue 25: ≤ 2 s over 50 runs of 10,000 cases) needs none of it, and a
10-case ``run`` spent 15-25 % of its CPU starting (bench/adk_side_by_side.py).  Help, usage
errors and defaults are the same: it is the same group, holding one command.  A command
line that names no command (``agenteval``, ``--help``, ``--version``, a misspelt command)
gets every command, so that help lists them all and a usage error names them.  What a
module plugs in when imported is imported by the code that needs it: the explain steps of
the HTML report by whoever writes a page (cli/run_settings.py, cli/report.py, the
package's ``evaluate``/``RunReports``).

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable
from functools import cache
from typing import Annotated, Any

import typer

from agenteval import __version__
from agenteval.cli.guard import guard, stderr
from agenteval.cli.usage import ProgramGroup
from agenteval.exit_codes import ExitCode
from agenteval.store.urls import bare_store_values

# name → (module, its command function or typer sub-app), in the order `--help` lists them.
COMMANDS = {
    "run": ("agenteval.cli.run", "run"),
    "validate": ("agenteval.cli.validate", "validate"),
    "show": ("agenteval.cli.show", "show"),
    "diff": ("agenteval.cli.diff", "diff"),
    "merge": ("agenteval.cli.merge", "merge"),
    "schema": ("agenteval.cli.schema", "schema"),
    "report": ("agenteval.cli.report", "html_report"),
    "evaluators": ("agenteval.cli.evaluators", "list_evaluators"),
    "import": ("agenteval.importers.command", "import_app"),
    "history": ("agenteval.cli.history", "history"),
    "trend": ("agenteval.cli.history", "trend"),
    "explain": ("agenteval.cli.explain", "explain_command"),
    "calibrate": ("agenteval.cli.calibrate", "calibrate_command"),
    "store": ("agenteval.cli.store", "store_app"),
}


def build_app(names: Iterable[str] = COMMANDS) -> typer.Typer:
    """The ``agenteval`` app with the commands ``names`` (all by default), in --help order."""
    built = typer.Typer(
        name="agenteval",
        help="Evaluate AI agents: score their recorded or live turns with deterministic comparers and LLM judges.",
        add_completion=False,
        no_args_is_help=True,
        # Usage errors are bad input, one problem line each (usage.py).
        cls=ProgramGroup,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    wanted = set(names)
    for name, (module, attribute) in COMMANDS.items():
        if name not in wanted:
            continue
        command = getattr(importlib.import_module(module), attribute)
        if isinstance(command, typer.Typer):
            built.add_typer(command, name=name)
        else:
            built.command(name=name, cls=getattr(command, "command_class", None))(command)
    built.callback()(main_options)
    return built


@cache
def full_app() -> typer.Typer:
    """The app with every command (``agenteval.cli.app``, built on first use)."""
    return build_app()


def command_named(ctx: typer.Context, name: str) -> Any:
    """The (click) command ``name`` of this program, whether or not the running app holds it
    (``main`` builds an app with only the command it runs; whoever reads another command's
    options — validate and ``schema config`` read run's — gets it here)."""
    root = ctx.find_root()
    found = root.command.get_command(root, name)  # type: ignore[attr-defined]
    if found is None:
        group = typer.main.get_command(build_app([name]))
        found = group.get_command(root, name)  # type: ignore[attr-defined]
    if found is None:
        raise KeyError(name)
    return found


def _version_callback(value: bool) -> None:
    if value:
        print(f"agenteval {__version__}")
        raise typer.Exit(0)


def main_options(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version_callback, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Score recorded AI-agent traces with deterministic comparers and LLM judges."""
    from agenteval.cli.project_config import install_defaults

    # The project config ([tool.agenteval] / agenteval.toml) gives the commands their defaults.
    guard(False, lambda: install_defaults(ctx))


def _interrupted_inside_typer(exc: SystemExit) -> bool:
    """True when ``exc`` is typer's exit 130 for a KeyboardInterrupt it caught."""
    if exc.code != 130:
        return False
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def main() -> None:
    """Console-script entry point."""
    args = bare_store_values(sys.argv[1:])
    named = [args[0]] if args and args[0] in COMMANDS else COMMANDS
    try:
        build_app(named)(args=args)
    except SystemExit as exc:
        if _interrupted_inside_typer(exc):
            # A signal while typer parsed the command line: typer turns the KeyboardInterrupt
            # into exit 130 without a word; ours is "interrupted" and exit 3 in every phase.
            stderr().print("interrupted")
            sys.exit(ExitCode.INCOMPLETE)
        sys.exit(exc.code)
    except BrokenPipeError:
        # `agenteval ... | head`: the reader left; not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(ExitCode.PASSED)


__all__ = ["COMMANDS", "build_app", "command_named", "full_app", "main"]
