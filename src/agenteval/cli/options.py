"""The options several commands share (eval sets, metrics, plugins, --store, --verbose …).

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from agenteval.api.option_numbers import finite_at_least
from agenteval.importers.otel import TracesMatch

# Runs that history lists and trend reads unless told otherwise.
TREND_LAST = 20

EvalsetOpt = Annotated[
    tuple[str, ...],
    typer.Option(
        "--evalset",
        "-e",
        metavar="PATH",
        help="Eval set file, directory of *.evalset.json, or glob. Repeatable.",
    ),
]
MetricsOpt = Annotated[
    str | None,
    typer.Option(
        "--metrics",
        "-m",
        metavar="PATH",
        help="Metric file (or a directory). Default: <evalSetId>.metrics.json beside each eval set.",
    ),
]
TracesOpt = Annotated[
    str | None,
    typer.Option(
        "--traces",
        metavar="FILE",
        help="Actual turns for cases that carry none: a *.evalset_result.json, JSON/JSONL of {evalId, actualConversation}, or an OTLP JSON/protobuf trace export.",
    ),
]
TracesMatchOpt = Annotated[
    TracesMatch,
    typer.Option(
        "--traces-match",
        help="OTLP --traces: a case's evalId names a session id, a gen_ai.conversation.id, or an agenteval.eval_id attribute.",
    ),
]
CaseOpt = Annotated[
    tuple[str, ...], typer.Option("--case", metavar="ID", help="Only this evalId. Repeatable.")
]
MetricOpt = Annotated[
    tuple[str, ...],
    typer.Option("--metric", metavar="NAME", help="Only this metricName. Repeatable."),
]
SkipOpt = Annotated[
    tuple[str, ...],
    typer.Option(
        "--skip-metric", metavar="NAME", help="Skip this metricName on purpose. Repeatable."
    ),
]
PluginOpt = Annotated[
    tuple[str, ...],
    typer.Option(
        "--plugin",
        metavar="MODULE",
        help="Import this module or .py file to register plugins. Repeatable.",
    ),
]
AggregatorOpt = Annotated[
    str | None,
    typer.Option(
        "--case-aggregator",
        metavar="NAME",
        help="Registered case aggregator to score cases (default: all metrics must pass).",
    ),
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", help="Show every reason and tracebacks on errors.")
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
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Only failures and the summary line.")
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

EvalSetIdOpt = Annotated[
    str | None,
    typer.Option("--evalset", metavar="ID", help="Only runs of this eval set (id or file)."),
]
BranchOpt = Annotated[
    str | None, typer.Option("--branch", metavar="NAME", help="Only runs of this git branch.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for tools instead of tables.")]


# Options several commands declare alike but explain in their own words: the name, metavar
# and bounds live here, the command gives the help.


def max_shown_option(help: str) -> Any:
    """``--max-shown N`` (0 or more): how many cases a command prints in detail."""
    return typer.Option("--max-shown", metavar="N", min=0, help=help)


def tolerance_option(help: str) -> Any:
    """``--tolerance DELTA`` (a finite number, 0 or more): score drops that are no regression."""
    return typer.Option("--tolerance", metavar="DELTA", parser=finite_at_least(0.0), help=help)
