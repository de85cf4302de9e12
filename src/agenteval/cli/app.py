"""The ``agenteval`` typer app: one line per command, the ``--version`` flag, and ``main``.

Each command lives in a module of its own in this package (``import``: importers/command.py);
a new command is one ``app.command(name=…)(function)`` line here.

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from agenteval import __version__
from agenteval.cli.calibrate import calibrate_command
from agenteval.cli.diff import diff
from agenteval.cli.evaluators import list_evaluators
from agenteval.cli.explain import explain_command
from agenteval.cli.guard import guard, stderr
from agenteval.cli.history import history, trend
from agenteval.cli.merge import merge
from agenteval.cli.report import html_report
from agenteval.cli.run import run
from agenteval.cli.schema import schema
from agenteval.cli.show import show
from agenteval.cli.store import store_app
from agenteval.cli.validate import validate
from agenteval.exit_codes import ExitCode
from agenteval.importers.command import import_app
from agenteval.store.urls import bare_store_values

app = typer.Typer(
    name="agenteval",
    help="Score recorded AI-agent traces with deterministic comparers and LLM judges.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# In the order `agenteval --help` lists them.
app.command(name="run")(run)
app.command(name="validate")(validate)
app.command(name="show")(show)
app.command(name="diff")(diff)
app.command(name="merge")(merge)
app.command(name="schema")(schema)
app.command(name="report")(html_report)
app.command(name="evaluators")(list_evaluators)
app.add_typer(import_app, name="import")
app.command(name="history")(history)
app.command(name="trend")(trend)
app.command(name="explain")(explain_command)
app.command(name="calibrate")(calibrate_command)
app.add_typer(store_app, name="store")


def _version_callback(value: bool) -> None:
    if value:
        print(f"agenteval {__version__}")
        raise typer.Exit(0)


@app.callback()
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
    try:
        app(args=bare_store_values(sys.argv[1:]))
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


__all__ = ["app", "main"]
