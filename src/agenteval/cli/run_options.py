"""The options of ``agenteval run`` that no other command has (the shared ones: options.py).

Tested in tests/cli/test_commands.py and tests/test_settings.py (their defaults).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agenteval import settings
from agenteval.api.option_numbers import finite_at_least
from agenteval.cli.options import shared_option

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
    typer.Option(
        "--junit",
        metavar="FILE",
        help="Write a JUnit XML report (one testsuite per eval set, one testcase per case).",
    ),
]
MarkdownOpt = Annotated[
    Path | None,
    typer.Option(
        "--markdown",
        metavar="FILE",
        help="Write a Markdown summary; also appended to $GITHUB_STEP_SUMMARY when set.",
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
JsonFileOpt = Annotated[
    Path | None,
    typer.Option("--json", metavar="FILE", help="Write the whole run as one JSON document."),
]
HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html", metavar="FILE", help="Write a self-contained offline HTML report of the run."
    ),
]
LabelsOpt = Annotated[
    Path | None,
    typer.Option(
        "--labels",
        metavar="FILE",
        help="With --html: add a Calibration page, these human labels against the run's judge "
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
    typer.Option(
        "--concurrency",
        metavar="N",
        min=1,
        help="Judge calls in flight at once, across all cases, metrics and samples.",
    ),
]
RateLimitOpt = Annotated[
    float | None,
    typer.Option(
        "--rate-limit",
        metavar="RPM",
        parser=finite_at_least(0.001),
        help="Judge requests per minute at most.",
    ),
]
JudgeRetriesOpt = Annotated[
    int,
    typer.Option(
        "--judge-retries",
        metavar="N",
        min=0,
        help="Retries of a judge call after connection errors, timeouts, 408/409/429/5xx.",
    ),
]
JudgeTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--judge-timeout",
        metavar="SECONDS",
        parser=finite_at_least(0.001),
        help="Seconds before one judge call attempt times out.",
    ),
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
    typer.Option(
        "--max-judge-calls",
        metavar="N",
        min=0,
        help="Stop issuing judge calls after N; the rest are not_evaluated.",
    ),
]
MaxJudgeTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--max-judge-tokens",
        metavar="N",
        min=0,
        help="Stop issuing judge calls after N tokens; the rest are not_evaluated.",
    ),
]
JudgeMaxReplyBytesOpt = Annotated[
    int,
    typer.Option(
        "--judge-max-reply-bytes",
        metavar="BYTES",
        min=1,
        help="Largest judge reply body read; a bigger reply fails that turn (default 8 MiB).",
    ),
]
ResumeOpt = Annotated[
    tuple[str, ...],
    typer.Option(
        "--resume",
        metavar="RESULT.json",
        help="Finish an interrupted run: keep the cases of these result files (or a stored "
        "run, @RUN_ID), score only the rest. Repeatable.",
    ),
]
NoProgressOpt = Annotated[
    bool,
    typer.Option("--no-progress", help="No progress bar (it is shown only on a terminal anyway)."),
]
AgentConcurrencyOpt = Annotated[
    int,
    typer.Option(
        "--agent-concurrency",
        metavar="N",
        min=1,
        help="Agent sessions at once (cmd: worker processes, agui: connections).",
    ),
]
AgentTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--agent-timeout",
        metavar="SECONDS",
        parser=finite_at_least(0.001),
        help="Seconds one agent turn may take before the case fails.",
    ),
]
AgentMaxEventBytesOpt = Annotated[
    int,
    typer.Option(
        "--agent-max-event-bytes",
        metavar="BYTES",
        min=1,
        help="Longest reply line (cmd:) or event (agui:) an agent may send; a longer one fails the turn (default 16 MiB).",
    ),
]
AgentMaxTurnBytesOpt = Annotated[
    int,
    typer.Option(
        "--agent-max-turn-bytes",
        metavar="BYTES",
        min=1,
        help="Most an agent may send during one turn; more fails the turn (default 64 MiB).",
    ),
]
RecordOpt = Annotated[
    Path | None,
    typer.Option(
        "--record",
        metavar="FILE",
        help="Write every driven case's turns as --traces JSONL, each as it finishes.",
    ),
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
    typer.Option(
        "--max-judge-cost",
        metavar="USD",
        min=0.0,
        help="Stop issuing judge calls once they cost USD dollars (within one call's cost); "
        "the rest are not_evaluated.",
    ),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        metavar="FILE",
        help='Prices of judge and agent models over the built-in table: JSON {"provider:model": {"inputPerMillion": '
        'x, "outputPerMillion": y, "cachedInputPerMillion": z}}.',
    ),
]
