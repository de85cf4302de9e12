"""The options of ``agenteval run`` that no other command has (the shared ones: options.py).

Tested in tests/cli/test_commands.py and tests/test_settings.py (their defaults).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval import settings
from agenteval.api.option_numbers import finite_at_least
from agenteval.cli.options import shared_option


def _file(flag: str, help: str) -> Any:
    """A ``FILE`` the run writes (``--labels``, ``--prices``: reads)."""
    return typer.Option(flag, metavar="FILE", help=help)


def _repeatable(flag: str, metavar: str, help: str) -> Any:
    """An option given once per value (``--report``, ``--resume``)."""
    return typer.Option(flag, metavar=metavar, help=f"{help} Repeatable.")


def _number(flag: str, metavar: str, help: str, *, least: int) -> Any:
    """A whole number of at least ``least`` (a count, a size); typer refuses a smaller one."""
    return typer.Option(flag, metavar=metavar, min=least, help=help)


def _finite(flag: str, metavar: str, help: str, *, least: float = 0.001) -> Any:
    """A rate, a time, dollars: a finite number of at least ``least`` (``finite_at_least``)."""
    return typer.Option(flag, metavar=metavar, parser=finite_at_least(least), help=help)


AppNameOpt = Annotated[
    str,
    typer.Option("--app", metavar="NAME", help="Application name used in result file names."),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="DIR",
        help="Write <app>_<evalSetId>_<uuid>.evalset_result.json files here.",
    ),
]
JunitOpt = Annotated[
    Path | None,
    _file(
        "--junit", "Write a JUnit XML report (one testsuite per eval set, one testcase per case)."
    ),
]
MarkdownOpt = Annotated[
    Path | None,
    _file(
        "--markdown", "Write a Markdown summary; also appended to $GITHUB_STEP_SUMMARY when set."
    ),
]
ReportOpt = Annotated[
    tuple[str, ...],
    _repeatable(
        "--report",
        "NAME=FILE",
        "Write FILE with the reporter NAME (a plugin's register_reporter, or junit, markdown).",
    ),
]
ShardOpt = Annotated[
    str | None,
    typer.Option(
        "--shard",
        metavar="I/N",
        help="Run shard I of N (e.g. 2/5), split by a stable hash of evalSetId and evalId.",
    ),
]
JsonFileOpt = Annotated[Path | None, _file("--json", "Write the whole run as one JSON document.")]
HtmlOpt = Annotated[
    Path | None, _file("--html", "Write a self-contained offline HTML report of the run.")
]
LabelsOpt = Annotated[
    Path | None,
    _file(
        "--labels",
        "With --html: add a Calibration page, these human labels against the run's judge "
        "verdicts (as agenteval calibrate).",
    ),
]
NumRunsOpt = Annotated[
    int,
    typer.Option(
        "--num-runs",
        "-n",
        metavar="N",
        min=1,
        help="Repeat every case N times (pass@k / pass^k reported).",
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
MaxShownOpt = Annotated[
    int,
    shared_option(
        "max-shown", "Cases per eval set printed in detail; the rest are counted (0 = all)."
    ),
]
ConcurrencyOpt = Annotated[
    int,
    _number(
        "--concurrency",
        "N",
        "Judge calls in flight at once, across all cases, metrics and samples.",
        least=1,
    ),
]
JobsOpt = Annotated[
    int,
    _number(
        "--jobs",
        "N",
        "Use up to N cores: a large eval set's checks, the scoring of its deterministic "
        "cases and the result files are shared out to worker processes (Linux); the output "
        "is the same.",
        least=1,
    ),
]
RateLimitOpt = Annotated[
    float | None, _finite("--rate-limit", "RPM", "Judge requests per minute at most.")
]
JudgeRetriesOpt = Annotated[
    int,
    _number(
        "--judge-retries",
        "N",
        "Retries of a judge call after connection errors, timeouts, 408/409/429/5xx.",
        least=0,
    ),
]
JudgeTimeoutOpt = Annotated[
    float, _finite("--judge-timeout", "SECONDS", "Seconds before one judge call attempt times out.")
]
CacheOpt = Annotated[
    str,
    typer.Option(
        "--cache",
        metavar="PATH",
        envvar=settings.JUDGE_CACHE_ENV,
        help="SQLite cache of judge replies (also $AGENTEVAL_CACHE).",
    ),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the judge cache.")
]
OfflineOpt = Annotated[
    bool,
    shared_option(
        "offline", "Answer judge calls only from the cache; misses become not_evaluated."
    ),
]
MaxJudgeCallsOpt = Annotated[
    int | None,
    _number(
        "--max-judge-calls",
        "N",
        "Stop issuing judge calls after N; the rest are not_evaluated.",
        least=0,
    ),
]
MaxJudgeTokensOpt = Annotated[
    int | None,
    _number(
        "--max-judge-tokens",
        "N",
        "Stop issuing judge calls after N tokens; the rest are not_evaluated.",
        least=0,
    ),
]
JudgeMaxReplyBytesOpt = Annotated[
    int,
    _number(
        "--judge-max-reply-bytes",
        "BYTES",
        "Largest judge reply body read; a bigger reply fails that turn (default 8 MiB).",
        least=1,
    ),
]
ResumeOpt = Annotated[
    tuple[str, ...],
    _repeatable(
        "--resume",
        "RESULT.json",
        "Finish an interrupted run: keep the cases of these result files (or a stored run, "
        "@RUN_ID), score only the rest.",
    ),
]
NoProgressOpt = Annotated[
    bool,
    typer.Option("--no-progress", help="No progress bar (it is shown only on a terminal anyway)."),
]
AgentConcurrencyOpt = Annotated[
    int,
    _number(
        "--agent-concurrency",
        "N",
        "Agent sessions at once (cmd: worker processes, agui: connections).",
        least=1,
    ),
]
AgentTimeoutOpt = Annotated[
    float,
    _finite("--agent-timeout", "SECONDS", "Seconds one agent turn may take before the case fails."),
]
AgentMaxEventBytesOpt = Annotated[
    int,
    _number(
        "--agent-max-event-bytes",
        "BYTES",
        "Longest reply line (cmd:) or event (agui:) an agent may send; a longer one fails the turn (default 16 MiB).",
        least=1,
    ),
]
AgentMaxTurnBytesOpt = Annotated[
    int,
    _number(
        "--agent-max-turn-bytes",
        "BYTES",
        "Most an agent may send during one turn; more fails the turn (default 64 MiB).",
        least=1,
    ),
]
RecordOpt = Annotated[
    Path | None,
    _file("--record", "Write every driven case's turns as --traces JSONL, each as it finishes."),
]
BaselineOpt = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="REF",
        help="After the run, print diff's regression table against @latest, @RUN_ID, "
        "@branch:NAME (a stored run of the same eval sets) or a result file; exit 1 when "
        "anything regressed, else 0.",
    ),
]
RunGroupOpt = Annotated[
    str | None,
    shared_option(
        "run-group", "Runs given the same ID (e.g. every --shard I/N job) are one run in the store."
    ),
]

WatchOpt = Annotated[
    bool,
    typer.Option(
        "--watch",
        help="Stay running: on every save of an eval set, metric, --traces or --plugin "
        "file, re-score only what changed and print what changed. Ctrl-C stops (exit 0).",
    ),
]
ShowConfigOpt = Annotated[
    bool,
    typer.Option(
        "--show-config",
        help="Print the settings in force and where each came from (flag, variable, "
        "project file, default); score nothing.",
    ),
]
MaxJudgeCostOpt = Annotated[
    float | None,
    _finite(
        "--max-judge-cost",
        "USD",
        "Stop issuing judge calls once they cost USD dollars (within one call's cost); "
        "the rest are not_evaluated.",
        least=0.0,
    ),
]
PricesOpt = Annotated[
    Path | None,
    _file(
        "--prices",
        'Prices of judge and agent models over the built-in table: JSON {"provider:model": {"inputPerMillion": '
        'x, "outputPerMillion": y, "cachedInputPerMillion": z}}.',
    ),
]
