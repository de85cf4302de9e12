"""The options several commands share (eval sets, metrics, plugins, --store, --verbose …).

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from agenteval.importers.traces_match import DEFAULT_MATCH, TracesMatch

# Runs that history lists and trend reads unless told otherwise.
TREND_LAST = 20


@dataclass(frozen=True, slots=True)
class _Flag:
    """A flag several commands declare alike but explain in their own words: its names,
    metavar and bounds (a row of ``_SHARED``); the command gives the help (shared_option)."""

    names: tuple[str, ...]
    metavar: str | None = None
    least: int | None = None
    # A finite number of at least this (a float flag); None: typer's own parsing.
    finite_least: float | None = None


_SHARED: dict[str, _Flag] = {
    "evalset-files": _Flag(("--evalset", "-e"), "PATH"),
    "metrics-file": _Flag(("--metrics", "-m"), "PATH"),
    "traces": _Flag(("--traces",), "FILE"),
    "plugin": _Flag(("--plugin",), "MODULE"),
    "metric": _Flag(("--metric",), "NAME"),
    "evalset-id": _Flag(("--evalset",), "ID"),
    "branch": _Flag(("--branch",), "NAME"),
    "run-group": _Flag(("--run-group",), "ID"),
    "last": _Flag(("--last",), "N"),  # at least 0 (0 = all) or 1: the command says
    "max-shown": _Flag(("--max-shown",), "N", least=0),
    "tolerance": _Flag(("--tolerance",), "DELTA", finite_least=0.0),
    "case": _Flag(("--case",), "ID"),
    "cache": _Flag(("--cache",), "FILE"),  # explain's, calibrate's (run's: PATH, $AGENTEVAL_CACHE)
    "offline": _Flag(("--offline",)),
    "json": _Flag(("--json",)),  # print JSON (not --json FILE: run and store export write one)
    "verbose": _Flag(("--verbose", "-v")),
    "quiet": _Flag(("--quiet", "-q")),
}


def shared_option(flag: str, help: str, *, least: int | None = None) -> Any:
    """The ``typer.Option`` of the shared ``flag`` (a key of ``_SHARED``), with this help."""
    declared = _SHARED[flag]
    parser = None
    if declared.finite_least is not None:
        # Here, not at the top: api/ is heavy, and history/trend import this module alone.
        from agenteval.api.option_numbers import finite_at_least

        parser = finite_at_least(declared.finite_least)
    return typer.Option(
        *declared.names,
        metavar=declared.metavar,
        min=declared.least if least is None else least,
        parser=parser,
        help=help,
    )


def side_option(side: str, help: str) -> Any:
    """The ``typer.Option`` naming the result files of one side of a comparison by the side's
    name (``--new NEW.json`` of diff, ``--base BASE.json`` of report), with this help.

    Every file after the flag up to the next option is that side's (:func:`side_files`)."""
    return typer.Option(f"--{side.lower()}", metavar=f"{side}.json", help=help)


def side_files(args: list[str], flag: str) -> list[str]:
    """``args`` with ``flag`` put before every file that follows its value, up to an option.

    The parser gives an option one value, so ``diff base/*.json --new new/*.json`` took the
    first new file as NEW and the others, silently, as BASE: a shell glob of two or more
    files compared the wrong sides.  Here the files after ``--new`` (or ``--base``) are all
    that side's, as the help says; an option (``--tolerance``) or ``--`` ends them.
    """
    out: list[str] = []
    taking = False  # each bare argument now is a file of the side
    value_next = False  # the argument now is the flag's own value
    for index, arg in enumerate(args):
        if arg == "--":
            out.extend(args[index:])
            break
        if value_next:
            out.append(arg)
            value_next, taking = False, True
            continue
        if taking and not arg.startswith("-"):
            out += [flag, arg]
            continue
        out.append(arg)
        value_next = arg == flag
        taking = arg.startswith(flag + "=")
    return out


def side_files_command(flag: str) -> type[TyperCommand]:
    """The command class whose parser reads the files after ``flag`` as that side's."""

    class SideFilesCommand(TyperCommand):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            # ctx: the click context of typer's own vendored click (typer._click), private.
            return super().parse_args(ctx, side_files(args, flag))

    return SideFilesCommand


EvalsetOpt = Annotated[
    tuple[str, ...],
    shared_option(
        "evalset-files", "Eval set file, directory of *.evalset.json, or glob. Repeatable."
    ),
]
MetricsOpt = Annotated[
    str | None,
    shared_option(
        "metrics-file",
        "Metric file (or a directory). Default: <evalSetId>.metrics.json beside each eval set.",
    ),
]
TracesOpt = Annotated[
    str | None,
    shared_option(
        "traces",
        "Actual turns for cases that carry none: a *.evalset_result.json, JSON/JSONL of {evalId, actualConversation}, or an OTLP JSON/protobuf trace export.",
    ),
]
TracesMatchOpt = Annotated[
    TracesMatch,
    typer.Option(
        "--traces-match",
        help="OTLP --traces: a case's evalId names a session id, a gen_ai.conversation.id, or an agenteval.eval_id attribute.",
    ),
]
CaseOpt = Annotated[tuple[str, ...], shared_option("case", "Only this evalId. Repeatable.")]
MetricOpt = Annotated[tuple[str, ...], shared_option("metric", "Only this metricName. Repeatable.")]
SkipOpt = Annotated[
    tuple[str, ...],
    typer.Option(
        "--skip-metric", metavar="NAME", help="Skip this metricName on purpose. Repeatable."
    ),
]
PluginOpt = Annotated[
    tuple[str, ...],
    shared_option("plugin", "Import this module or .py file to register plugins. Repeatable."),
]
VerboseOpt = Annotated[
    bool, shared_option("verbose", "Show every reason and warning, and tracebacks on errors.")
]
StrictOpt = Annotated[
    bool,
    typer.Option(
        "--strict",
        envvar="AGENTEVAL_STRICT",
        help="Keys the trpc-agent-go formats do not define are errors (exit 2), not warnings. "
        "Also $AGENTEVAL_STRICT=1.",
    ),
]
LenientOpt = Annotated[
    bool,
    typer.Option(
        "--lenient",
        help='Keys close to one the formats define ("did you mean") are warnings, not errors '
        "(exit 2): for files written by other tools.",
    ),
]
AgentOpt = Annotated[
    str | None,
    typer.Option(
        "--agent",
        metavar="SPEC",
        help="Drive the agent for cases without a trace: cmd:COMMAND (JSON-lines protocol) or agui:URL (AG-UI).",
    ),
]
ExpectedAgentOpt = Annotated[
    str | None,
    typer.Option(
        "--expected-agent",
        metavar="SPEC",
        help="A reference agent producing expected turns (expectedRunnerEnabled, driver expected, toolMock.expected).",
    ),
]
QuietOpt = Annotated[bool, shared_option("quiet", "Only failures, warnings and the summary line.")]
# The quiet flag of a command that prints only what it wrote: -q leaves that out.
WroteQuietOpt = Annotated[
    bool, shared_option("quiet", "Do not print what was written (warnings still are).")
]
StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL",
        # A bare --store (the default file) is given its value in main(): bare_store_values.
        help="Run store: sqlite:///PATH or postgresql://USER@HOST/DB; bare --store: "
        ".agenteval/history.sqlite.  Also $AGENTEVAL_STORE, or store in [tool.agenteval].",
    ),
]


@dataclass(frozen=True, slots=True)
class EvalSetFlags:
    """The first flags of ``run`` and ``validate``: the eval sets and the files read beside them."""

    evalset: EvalsetOpt
    metrics: MetricsOpt = None
    traces: TracesOpt = None
    traces_match: TracesMatchOpt = DEFAULT_MATCH


@dataclass(frozen=True, slots=True)
class CaseInputFlags:
    """How strictly the files are read (--strict, --lenient) and which agents drive the cases
    that carry no trace (--agent, --expected-agent): a flag group (``flags.py``) that ``run``
    and ``validate`` both hold."""

    strict: StrictOpt = False
    lenient: LenientOpt = False
    agent: AgentOpt = None
    expected_agent: ExpectedAgentOpt = None


EvalSetIdOpt = Annotated[
    str | None, shared_option("evalset-id", "Only runs of this eval set (id or file).")
]
BranchOpt = Annotated[str | None, shared_option("branch", "Only runs of this git branch.")]
JsonOpt = Annotated[bool, shared_option("json", "Print JSON for tools instead of tables.")]
