"""The ``agenteval`` command line: flags → api → reporters → exit code.

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape as markup_escape

from agenteval import __version__, api, entry, settings
from agenteval.errors import AgentEvalError, ConfigError, Problem
from agenteval.evaluators.registry import evaluators
from agenteval.exit_codes import ExitCode
from agenteval.fingerprints import digest_file
from agenteval.importers.command import import_app
from agenteval.importers.otel import DEFAULT_MATCH, TracesMatch
from agenteval.loading import evalset_id_for, expand_evalset_paths, load_evalset
from agenteval.merging import Completeness, EvalSetFile, plan_merge
from agenteval.option_numbers import finite_at_least
from agenteval.plugins import load_plugins
from agenteval.report import console as console_report
from agenteval.report import github, result_files
from agenteval.report.agent_summary import render_agent_stats
from agenteval.report.diff import diff_results, render_diff
from agenteval.report.gc_pause import collector_paused
from agenteval.report.html_inputs import ReportRun, load_runs
from agenteval.report.html_model import RunBuilder
from agenteval.report.junit import write_junit_reports
from agenteval.report.log_console import make_console
from agenteval.report.markdown import STEP_SUMMARY_ENV, write_markdown_reports
from agenteval.report.merge_writer import close as close_spools
from agenteval.report.merge_writer import spool_merge, write_merged
from agenteval.report.output_paths import check_outputs
from agenteval.report.progress import RunProgress
from agenteval.report.report_jobs import ReportJob, write_reports
from agenteval.report.result_stream import write_result_document, write_run_document
from agenteval.report.run_notes import RunNotes, count_text
from agenteval.report.safe_text import escape_control
from agenteval.report.set_tally import ReportSink, SetReport, overall_status, source_report
from agenteval.report.set_tally import exit_code as report_exit_code
from agenteval.report.streamed_run import StreamedRun, StreamedSet
from agenteval.report.verdicts import run_document_verdicts
from agenteval.result_inputs import ResultPart, case_count, raise_problems, read_parts
from agenteval.run_signals import RunSignals, run_signal_policy
from agenteval.runner import StopSignal
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus
from agenteval.store.urls import bare_store_values, store_setting

if TYPE_CHECKING:
    from agenteval.store.recording import StoreRun

app = typer.Typer(
    name="agenteval",
    help="Score recorded AI-agent traces with deterministic comparers and LLM judges.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

T = TypeVar("T")
# Runs that history lists and trend reads unless told otherwise.
TREND_LAST = 20

EvalsetOpt = Annotated[
    list[str],
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
    list[str], typer.Option("--case", metavar="ID", help="Only this evalId. Repeatable.")
]
MetricOpt = Annotated[
    list[str], typer.Option("--metric", metavar="NAME", help="Only this metricName. Repeatable.")
]
SkipOpt = Annotated[
    list[str],
    typer.Option(
        "--skip-metric", metavar="NAME", help="Skip this metricName on purpose. Repeatable."
    ),
]
PluginOpt = Annotated[
    list[str],
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


def _stderr() -> Console:
    return make_console(stderr=True, highlight=False, soft_wrap=True)


def _print_problems(problems: list[Problem], *, warning: bool = False) -> None:
    err = _stderr()
    label = "warning" if warning else "error"
    style = "yellow" if warning else "red"
    for problem in problems:
        # The problem quotes input text: no markup in it, no control characters.
        text = markup_escape(escape_control(str(problem)))
        err.print(f"[{style}]{label}:[/{style}] {text}", markup=True, highlight=False)


def _print_warnings(warnings: list[Problem]) -> RunNotes:
    """Print ``warnings`` (never hidden; a flood of one kind collapsed); return them as notes."""
    notes = RunNotes.of(warnings)
    _print_problems(list(notes.warnings), warning=True)
    return notes


def _warnings_part(count: int) -> str:
    """`` · 2 warnings`` for a verdict line ("" without any)."""
    return f" · {count_text(count)}" if count else ""


def _print_judge(out: Console, result: api.RunResult, sets: int, *, quiet: bool) -> None:
    usage = result.judge_usage
    # Each eval set's summary has its own line; the run total adds something only for several.
    if usage and not quiet and sets > 1:
        total = usage.get("total")
        if isinstance(total, dict) and (total.get("calls") or total.get("cacheHits")):
            out.print(
                f"judge: {total.get('calls', 0)} calls, {total.get('cacheHits', 0)} from cache, "
                f"{total.get('retries', 0)} retries, {total.get('promptTokens', 0):,} prompt + "
                f"{total.get('completionTokens', 0):,} completion tokens",
                highlight=False,
            )
    if result.judge_failures:
        # A detail, not a verdict: the final line says INCOMPLETE (one run, one verdict line).
        n = len(result.judge_failures)
        first = markup_escape(escape_control(result.judge_failures[0]))
        out.print(
            f"[yellow]judge:[/yellow] {n} turn{'s' if n != 1 else ''} not evaluated "
            f"(first: {first}); partial results were written",
            highlight=False,
        )


def _guard(verbose: bool, action: Callable[[], T]) -> T:
    """Run a command body, turning every error into one-line messages and an exit code."""
    try:
        return action()
    except ConfigError as exc:
        # The errors first (they are why nothing ran), then the warnings found beside them.
        _print_problems(exc.problems)
        warnings = _print_warnings(exc.warnings).warning_count
        n = len(exc.problems)
        _stderr().print(f"{n} problem{'s' if n != 1 else ''} found{_warnings_part(warnings)}.")
        raise typer.Exit(api.EXIT_CONFIG) from None
    except AgentEvalError as exc:
        if exc.exit_code == ExitCode.INTERNAL_ERROR:
            _internal_error(exc, verbose)
        _stderr().print(f"error: {exc}")
        if verbose:
            traceback.print_exc()
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        if not entry.interrupt_reported():
            _stderr().print("interrupted")
            entry.note_interrupted()
        raise typer.Exit(api.EXIT_INCOMPLETE) from None
    except (typer.Exit, typer.Abort, BrokenPipeError):
        raise
    except Exception as exc:  # last resort: one line, traceback only on request
        _internal_error(exc, verbose)


def _internal_error(exc: Exception, verbose: bool) -> NoReturn:
    """An exception nobody raised on purpose: say it is our bug, exit 4."""
    _stderr().print(f"internal error: {type(exc).__name__}: {exc} (this is a bug in agenteval)")
    if verbose:
        traceback.print_exc()
    else:
        _stderr().print("(run with --verbose for the traceback)")
    raise typer.Exit(ExitCode.INTERNAL_ERROR) from None


@app.command()
def run(
    evalset: EvalsetOpt,
    metrics: MetricsOpt = None,
    traces: TracesOpt = None,
    traces_match: TracesMatchOpt = DEFAULT_MATCH,
    app_name: Annotated[
        str,
        typer.Option("--app", metavar="NAME", help="Application name used in result file names."),
    ] = "agenteval",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="DIR",
            help="Write <app>_<evalSetId>_<uuid>.evalset_result.json files here.",
        ),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit",
            metavar="FILE",
            help="Write a JUnit XML report (one testsuite per eval set, one testcase per case).",
        ),
    ] = None,
    markdown: Annotated[
        Path | None,
        typer.Option(
            "--markdown",
            metavar="FILE",
            help="Write a Markdown summary; also appended to $GITHUB_STEP_SUMMARY when set.",
        ),
    ] = None,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="I/N",
            help="Run shard I of N (e.g. 2/5), split by a stable hash of evalSetId and evalId.",
        ),
    ] = None,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Write the whole run as one JSON document."),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html", metavar="FILE", help="Write a self-contained offline HTML report of the run."
        ),
    ] = None,
    num_runs: Annotated[
        int,
        typer.Option(
            "--num-runs",
            "-n",
            metavar="N",
            min=1,
            help="Repeat every case N times (pass@k / pass^k reported).",
        ),
    ] = 1,
    case: CaseOpt = [],  # noqa: B006 - typer reads defaults, it never mutates them
    metric: MetricOpt = [],  # noqa: B006
    skip_metric: SkipOpt = [],  # noqa: B006
    plugin: PluginOpt = [],  # noqa: B006
    case_aggregator: AggregatorOpt = None,
    max_shown: Annotated[
        int,
        typer.Option(
            "--max-shown",
            metavar="N",
            min=0,
            help="Cases per eval set printed in detail; the rest are counted (0 = all).",
        ),
    ] = console_report.DEFAULT_MAX_SHOWN,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            metavar="N",
            min=1,
            help="Judge calls in flight at once, across all cases, metrics and samples.",
        ),
    ] = settings.JUDGE_CONCURRENCY,
    rate_limit: Annotated[
        float | None,
        typer.Option(
            "--rate-limit",
            metavar="RPM",
            parser=finite_at_least(0.001),
            help="Judge requests per minute at most.",
        ),
    ] = None,
    judge_retries: Annotated[
        int,
        typer.Option(
            "--judge-retries",
            metavar="N",
            min=0,
            help="Retries of a judge call after connection errors, timeouts, 408/409/429/5xx.",
        ),
    ] = settings.JUDGE_RETRIES,
    judge_timeout: Annotated[
        float,
        typer.Option(
            "--judge-timeout",
            metavar="SECONDS",
            parser=finite_at_least(0.001),
            help="Seconds before one judge call attempt times out.",
        ),
    ] = settings.JUDGE_TIMEOUT_SECONDS,
    cache: Annotated[
        str,
        typer.Option(
            "--cache",
            metavar="PATH",
            envvar=settings.JUDGE_CACHE_ENV,
            help="SQLite cache of judge replies (also $AGENTEVAL_CACHE).",
        ),
    ] = settings.JUDGE_CACHE_PATH,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the judge cache.")
    ] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline", help="Answer judge calls only from the cache; misses become not_evaluated."
        ),
    ] = False,
    max_judge_calls: Annotated[
        int | None,
        typer.Option(
            "--max-judge-calls",
            metavar="N",
            min=0,
            help="Stop issuing judge calls after N; the rest are not_evaluated.",
        ),
    ] = None,
    max_judge_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-judge-tokens",
            metavar="N",
            min=0,
            help="Stop issuing judge calls after N tokens; the rest are not_evaluated.",
        ),
    ] = None,
    judge_max_reply_bytes: Annotated[
        int,
        typer.Option(
            "--judge-max-reply-bytes",
            metavar="BYTES",
            min=1,
            help="Largest judge reply body read; a bigger reply fails that turn (default 8 MiB).",
        ),
    ] = settings.JUDGE_MAX_REPLY_BYTES,
    resume: Annotated[
        list[str],
        typer.Option(
            "--resume",
            metavar="RESULT.json",
            help="Finish an interrupted run: keep the cases of these result files (or a stored "
            "run, @RUN_ID), score only the rest. Repeatable.",
        ),
    ] = [],  # noqa: B006
    no_progress: Annotated[
        bool,
        typer.Option(
            "--no-progress", help="No progress bar (it is shown only on a terminal anyway)."
        ),
    ] = False,
    strict: StrictOpt = False,
    lenient: LenientOpt = False,
    agent: AgentOpt = None,
    expected_agent: ExpectedAgentOpt = None,
    agent_concurrency: Annotated[
        int,
        typer.Option(
            "--agent-concurrency",
            metavar="N",
            min=1,
            help="Agent sessions at once (cmd: worker processes, agui: connections).",
        ),
    ] = 4,
    agent_timeout: Annotated[
        float,
        typer.Option(
            "--agent-timeout",
            metavar="SECONDS",
            parser=finite_at_least(0.001),
            help="Seconds one agent turn may take before the case fails.",
        ),
    ] = 120.0,
    agent_max_event_bytes: Annotated[
        int,
        typer.Option(
            "--agent-max-event-bytes",
            metavar="BYTES",
            min=1,
            help="Longest reply line (cmd:) or event (agui:) an agent may send; a longer one fails the turn (default 16 MiB).",
        ),
    ] = settings.AGENT_MAX_EVENT_BYTES,
    agent_max_turn_bytes: Annotated[
        int,
        typer.Option(
            "--agent-max-turn-bytes",
            metavar="BYTES",
            min=1,
            help="Most an agent may send during one turn; more fails the turn (default 64 MiB).",
        ),
    ] = settings.AGENT_MAX_TURN_BYTES,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Write every driven case's turns as --traces JSONL, each as it finishes.",
        ),
    ] = None,
    store: StoreOpt = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="REF",
            help="After the run, print diff's regression table against @latest, @RUN_ID, "
            "@branch:NAME (a stored run of the same eval sets) or a result file; exit 1 when "
            "anything regressed, else 0.",
        ),
    ] = None,
    run_group: Annotated[
        str | None,
        typer.Option(
            "--run-group",
            metavar="ID",
            help="Runs given the same ID (e.g. every --shard I/N job) are one run in the store.",
        ),
    ] = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Score eval sets and print per-turn and overall results. Exit 0 all passed, 1 failures, 2 bad input, 3 incomplete."""
    options = api.Options(
        metrics=metrics,
        traces=traces,
        traces_match=traces_match.value,
        app_name=app_name,
        num_runs=num_runs,
        cases=case,
        only_metrics=metric,
        skip_metrics=skip_metric,
        plugins=plugin,
        case_aggregator=case_aggregator,
        concurrency=concurrency,
        rate_limit=rate_limit,
        judge_retries=judge_retries,
        judge_timeout=judge_timeout,
        cache=None if no_cache else cache,
        offline=offline,
        max_judge_calls=max_judge_calls,
        max_judge_tokens=max_judge_tokens,
        judge_max_reply_bytes=judge_max_reply_bytes,
        shard=shard,
        resume=resume,
        stop=StopSignal(),
        strict=strict,
        lenient=lenient,
        agent=agent,
        expected_agent=expected_agent,
        agent_concurrency=agent_concurrency,
        agent_timeout=agent_timeout,
        agent_max_event_bytes=agent_max_event_bytes,
        agent_max_turn_bytes=agent_max_turn_bytes,
        record=str(record) if record is not None else None,
    )
    if no_cache and offline:
        _print_problems([Problem("--offline", "", "needs the cache; drop --no-cache")])
        raise typer.Exit(api.EXIT_CONFIG)

    def body() -> int:
        out = make_console(highlight=False)
        progress = RunProgress(out, enabled=not (quiet or no_progress))
        options.progress = progress
        assert options.stop is not None
        policy = RunSignals(options.stop, _signal_notice)
        stored = _store_run(store, baseline, run_group, evalset, options)
        recording = stored is not None and stored.records
        resumed = [Path(path) for path in resume]
        # The handlers stay until the last report is written (run_signals.py says why).
        with (
            api.relaxed_gc(),
            run_signal_policy(policy),
            _stored_inputs(resumed, store) as resume_files,
        ):
            options.resume = [str(path) for path in resume_files]  # @latest … read from the store
            problems = check_outputs(
                {"--output": output},
                {"--json": json_file, "--junit": junit, "--markdown": markdown, "--html": html},
            )
            if problems:
                raise ConfigError(problems)
            if stored is not None:
                stored.start()  # store, baseline and the run's row: exit 2 before scoring
            # The page is built from the cases as they finish (report/html_model.py).
            page = RunBuilder("run") if html is not None else None
            sink = StreamedRun(
                output=output,
                app_name=app_name,
                documents=recording or any(p is not None for p in (output, json_file)),
                tallies=ReportSink(max_shown=max_shown or None, quiet=quiet, verbose=verbose),
                also=[page] if page is not None else [],
                named=recording,
            )
            statuses = lambda: sink.reports[-1].statuses  # noqa: E731 - read after each end_set
            options.sink = stored.sink(sink, statuses) if stored is not None else sink
            try:
                try:
                    with progress:
                        result = api.evaluate(evalset, options)
                except BaseException:
                    if stored is not None:
                        stored.abandon()
                    raise
                policy.writing()
                code, keys = _report_run(
                    result,
                    sink,
                    (output, json_file, junit, markdown, html),
                    page,
                    quiet=quiet,
                    stopped_writing=lambda: policy.during_writing,
                )
                if stored is not None:
                    code = stored.conclude(result, sink, keys, code, out, _stderr(), quiet=quiet)
            finally:
                sink.close()
                if page is not None:
                    page.close()
                if stored is not None:
                    stored.close()
        if policy.during_writing:
            # A signal after the verdict line: the reports are whole, the run still stopped.
            if not entry.interrupt_reported():
                _stderr().print("interrupted after the reports were written", highlight=False)
                entry.note_interrupted()
            return max(code, api.EXIT_INCOMPLETE)
        return code

    raise typer.Exit(_guard(verbose, body))


def _store_run(
    flag: str | None,
    baseline: str | None,
    run_group: str | None,
    evalset: list[str],
    options: api.Options,
) -> StoreRun | None:
    """What the run does with a store (--store, $AGENTEVAL_STORE, --baseline, --run-group)."""
    setting = store_setting(flag)
    if setting is None and baseline is None and run_group is None:
        return None  # no store in play: SQLAlchemy is not even imported
    from agenteval.store.recording import store_run

    return store_run(
        setting,
        baseline=baseline,
        run_group=run_group,
        evalset_specs=evalset,
        app_name=options.app_name,
        num_runs=options.num_runs,
        shard=options.shard,
        metrics=options.metrics,
        traces=options.traces,
        case_aggregator=options.case_aggregator,
    )


def _report_run(
    result: api.RunResult,
    sink: StreamedRun,
    files: tuple[Path | None, Path | None, Path | None, Path | None, Path | None],
    page: RunBuilder | None,
    *,
    quiet: bool,
    stopped_writing: Callable[[], bool] = lambda: False,
) -> tuple[int, dict[str, Any]]:
    """Print a run's outcome, write its reports (``files``: output, json, junit, markdown, html).

    One run, one verdict line: the final line, printed last, after the reports are
    written, says what the exit code says (INCOMPLETE with the reason when a signal, a
    judge or agent that could not be reached, or a report that could not be written left
    the run unfinished); the lines before it are details.
    """
    output, json_file, junit, markdown, html = files
    out = make_console(highlight=False)
    # Warnings are never hidden, not even by --quiet (what CI runs with).
    notes = _print_warnings(result.warnings)
    reports = sink.reports
    console_report.render_sets(out, reports)
    _print_judge(out, result, len(reports), quiet=quiet)
    if result.agent_stats is not None:
        render_agent_stats(out, result.agent_stats.to_json(), result.agent_stats.first_failure)
    if result.interrupted:
        out.print(
            "[yellow]interrupted:[/yellow] results hold the cases finished before the stop; "
            "finish with --resume RESULT.json",
            highlight=False,
        )
    # What the reports say beside the cases; a report that cannot be written is known later.
    unfinished = _unfinished(result, reports, 0, stopped_writing())
    notes = dataclasses.replace(notes, unfinished=tuple(unfinished))
    keys = _run_document_keys(result, sink, notes)
    jobs = _report_jobs(result, sink, (output, json_file, junit, markdown), notes, keys)
    if html is not None and page is not None:
        extras = {"durationSeconds": result.elapsed, "warnings": notes.lines()}
        from agenteval.report.html import write_run_report  # jinja2: loaded only for --html

        jobs.append(ReportJob(str(html), lambda: write_run_report(html, page, extras=extras)))
    summary = os.environ.get(STEP_SUMMARY_ENV) or f"${STEP_SUMMARY_ENV}"
    ci_outputs = partial(
        github.write_ci_outputs,
        reports,
        os.environ,
        sources=result.sources,
        elapsed=result.elapsed,
        notes=notes,
    )
    jobs.append(ReportJob(summary, ci_outputs, listed=False))
    outcome = write_reports(jobs)
    if not quiet:
        for path in outcome.written:
            out.print(f"wrote {path}", highlight=False, soft_wrap=True)
    for failure in outcome.failures:
        _stderr().print(
            f"error: {escape_control(failure)}", highlight=False, soft_wrap=True, markup=False
        )
    unfinished = _unfinished(result, reports, len(outcome.failures), stopped_writing())
    notes = dataclasses.replace(notes, unfinished=tuple(unfinished))
    out.print(console_report.report_final_line(reports, result.elapsed, notes=notes))
    if "interrupted" in unfinished:
        entry.note_interrupted()  # the verdict line said so: the exit path adds no other
    return (api.EXIT_INCOMPLETE if unfinished else result.exit_code), keys


def _unfinished(
    result: api.RunResult, reports: list[SetReport], unwritten: int, stopped_writing: bool
) -> list[str]:
    """Why the run is INCOMPLETE beyond its case statuses (empty: the statuses say it all)."""
    reasons: list[str] = []
    if result.interrupted or stopped_writing:
        reasons.append("interrupted")
    if unwritten:
        reasons.append(f"{unwritten} report{'s' if unwritten != 1 else ''} not written")
    cases_say_so = overall_status(reports) is EvalStatus.INCOMPLETE
    if result.exit_code == api.EXIT_INCOMPLETE and not reasons and not cases_say_so:
        # A judge call for no case (an agent's simulated user or tool mock) failed for good.
        n = len(result.judge_failures)
        reasons.append(f"{n} judge call{'s' if n != 1 else ''} failed" if n else "unfinished")
    return reasons


def _report_jobs(
    result: api.RunResult,
    sink: StreamedRun,
    files: tuple[Path | None, Path | None, Path | None, Path | None],
    notes: RunNotes,
    keys: dict[str, Any],
) -> list[ReportJob]:
    """The report files a run writes, in order; each one is written even if another fails.

    ``files``: output, json, junit, markdown; ``notes``: the run's warnings, why unfinished.
    """
    output, json_file, junit, markdown = files
    jobs: list[ReportJob] = []
    if output is not None:
        for item in sink.sets:
            jobs.append(_result_job(item, output))
    if json_file is not None:
        jobs.append(ReportJob(str(json_file), partial(_write_run_json, json_file, sink, keys)))
    reports = sink.reports
    if junit is not None:
        write = partial(write_junit_reports, junit, reports, elapsed=result.elapsed, notes=notes)
        jobs.append(ReportJob(str(junit), write))
    if markdown is not None:
        write = partial(
            write_markdown_reports, markdown, reports, elapsed=result.elapsed, notes=notes
        )
        jobs.append(ReportJob(str(markdown), write))
    return jobs


def _result_job(item: StreamedSet, output: Path) -> ReportJob:
    def write() -> Path:
        document = item.finished()
        if item.file_name is None:  # named whenever --output is given
            raise OSError("the result file was not named")
        return write_result_document(document, output / item.file_name)

    return ReportJob(f"{output} (result file of {item.eval_set_id})", write)


def _run_document_keys(result: api.RunResult, sink: StreamedRun, notes: RunNotes) -> dict[str, Any]:
    """The run document's own keys, made once: ``--json`` and the store hold the same bytes."""
    header = result_files.run_header(
        [report.statuses.values() for report in sink.reports],
        duration_seconds=result.elapsed,
    )
    if notes.unfinished:
        # The run's one verdict: an interrupted run is incomplete whatever its cases say.
        header["overallStatus"] = EvalStatus.INCOMPLETE.value
    trailer = {
        **result_files.run_trailer(result, notes.lines()),
        **run_document_verdicts(sink.reports),
    }
    return {"header": header, "trailer": trailer}


def _write_run_json(path: Path, sink: StreamedRun, keys: dict[str, Any]) -> Path:
    """The ``--json`` run document, copied together from the eval sets' spooled documents."""
    documents = [item.finished() for item in sink.sets]
    return write_run_document(path, documents, keys["header"], keys["trailer"])


def _signal_notice(text: str) -> None:
    """Tell the user a signal was heard, from inside the signal handler.

    A plain write to fd 2, not rich: the handler can interrupt rich in the middle of a lazy
    import, and printing through rich there re-enters the half-imported module (seen as
    "cannot import name 'EMOJI'" in the signal trials).
    """
    with contextlib.suppress(OSError):
        os.write(2, (text + "\n").encode())


@app.command()
def validate(
    evalset: EvalsetOpt,
    metrics: MetricsOpt = None,
    traces: TracesOpt = None,
    traces_match: TracesMatchOpt = DEFAULT_MATCH,
    skip_metric: SkipOpt = [],  # noqa: B006
    plugin: PluginOpt = [],  # noqa: B006
    strict: StrictOpt = False,
    lenient: LenientOpt = False,
    agent: AgentOpt = None,
    expected_agent: ExpectedAgentOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Check eval sets and metric files; print every problem. Exit 0 when valid, 2 otherwise."""
    options = api.Options(
        metrics=metrics,
        traces=traces,
        traces_match=traces_match.value,
        skip_metrics=skip_metric,
        plugins=plugin,
        strict=strict,
        lenient=lenient,
        agent=agent,
        expected_agent=expected_agent,
    )

    def body() -> int:
        prepared = api.prepare(evalset, options)
        warnings = _print_warnings(prepared.warnings).warning_count
        cases = sum(len(p.cases) for p in prepared.plans)
        metric_count = sum(len(p.metrics) for p in prepared.plans)
        make_console(highlight=False).print(
            f"OK: {len(prepared.plans)} eval set(s), {cases} case(s), {metric_count} metric(s) "
            f"valid{_warnings_part(warnings)}."
        )
        if agent is not None:
            from agenteval.agents.run_setup import driven_cases

            Console(highlight=False).print(
                f"{driven_cases(prepared.plans)} case(s) will be driven through the agent."
            )
        return 0

    raise typer.Exit(_guard(verbose, body))


@app.command()
def show(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files (*.evalset_result.json, ours or trpc-agent-go's), run documents, "
            "or stored runs (@latest, @RUN_ID, @branch:NAME)."
        ),
    ],
    max_shown: Annotated[
        int,
        typer.Option(
            "--max-shown",
            metavar="N",
            min=0,
            help="Cases per eval set printed in detail (0 = all).",
        ),
    ] = console_report.DEFAULT_MAX_SHOWN,
    store: StoreOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Render saved result files exactly like a live run; exit code as the run would have had."""

    def body() -> int:
        with _stored_inputs(results, store) as paths:  # read case by case: kept open
            parts = read_parts(paths)
            problems: list[Problem] = []
            with collector_paused():  # cases are read and tallied one at a time
                reports = [
                    source_report(
                        part,
                        max_shown=max_shown or None,
                        quiet=quiet,
                        verbose=verbose,
                        problems=problems,
                    )
                    for part in parts
                ]
        raise_problems(problems)
        heads = [part.head for part in parts]
        console_report.render_reports(
            make_console(highlight=False),
            reports,
            notes=RunNotes(unfinished=_saved_unfinished(heads)),
        )
        return _saved_exit_code(heads, reports)

    raise typer.Exit(_guard(verbose, body))


def _saved_unfinished(heads: Sequence[EvalSetResult]) -> list[str]:
    """Why saved results are INCOMPLETE beyond their case statuses: a run stopped early."""
    return ["interrupted"] if any(head.partial for head in heads) else []


def _saved_exit_code(heads: Sequence[EvalSetResult], reports: Sequence[SetReport]) -> int:
    """The exit code the run that wrote these results had: 3 when it could not finish."""
    for head in heads:
        if head.partial or head.judge_failures:
            return api.EXIT_INCOMPLETE
    return report_exit_code(reports)


@contextlib.contextmanager
def _stored_inputs(paths: list[Path], store: str | None) -> Iterator[list[Path]]:
    """``paths`` with each ``@latest`` / ``@RUN_ID`` / ``@branch:NAME`` read from the store."""
    if not any(str(path).startswith("@") and not path.exists() for path in paths):
        yield paths  # no store in play: SQLAlchemy is not even imported
        return
    from agenteval.store.inputs import stored_inputs

    with stored_inputs(paths, store) as replaced:
        yield replaced


def _refuse_no_cases(command: str, parts: Sequence[ResultPart], paths: list[Path]) -> None:
    """diff and merge over zero cases would report a success that means nothing: exit 2."""
    if case_count(parts) == 0:
        names = ", ".join(str(p) for p in paths)
        raise ConfigError([Problem(names, "", f"no case results to {command}")])


@app.command()
def diff(
    base: Annotated[
        list[Path],
        typer.Argument(
            help="BASE result file(s), then NEW after --new; or exactly two (a stored run "
            "@latest, @RUN_ID or @branch:NAME stands for a file)."
        ),
    ],
    new: Annotated[
        list[Path],
        typer.Option(
            "--new",
            metavar="NEW.json",
            help="NEW result file(s) when comparing several files per side.",
        ),
    ] = [],  # noqa: B006
    tolerance: Annotated[
        float,
        typer.Option(
            "--tolerance",
            metavar="DELTA",
            parser=finite_at_least(0.0),
            help="Score drops up to this much are not regressions.",
        ),
    ] = 0.0,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the differences as JSON.")
    ] = False,
    store: StoreOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """List regressions and improvements between two results. Exit 1 when anything regressed."""

    def body() -> int:
        if new:
            base_files, new_files = base, new
        elif len(base) == 2:
            base_files, new_files = [base[0]], [base[1]]
        else:
            raise ConfigError(
                [Problem("diff", "", "give BASE.json NEW.json, or BASE files and --new NEW files")]
            )
        with _stored_inputs(base_files + new_files, store) as paths:  # read case by case
            cut = len(base_files)
            base_parts, new_parts = read_parts(paths[:cut]), read_parts(paths[cut:])
            _refuse_no_cases("compare", base_parts, base_files)
            _refuse_no_cases("compare", new_parts, new_files)
            problems: list[Problem] = []
            with collector_paused():  # cases are read and reduced one at a time
                changes = diff_results(base_parts, new_parts, tolerance, problems=problems)
        raise_problems(problems)
        if changes.compared_cases == 0:
            raise ConfigError(
                [Problem("diff", "", "no case is in both BASE and NEW; nothing was compared")]
            )
        if json_out:
            print(json.dumps(changes.to_json(), indent=2, ensure_ascii=False))
        else:
            render_diff(make_console(highlight=False), changes)
        return 1 if changes.regressed else 0

    raise typer.Exit(_guard(verbose, body))


@app.command()
def merge(
    parts: Annotated[
        list[Path], typer.Argument(help="Shard result files (or stored runs, @RUN_ID) to join.")
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            metavar="DIR",
            help="Where to write the merged result (a file, or a directory for one file per eval set).",
        ),
    ],
    evalset: Annotated[
        list[str],
        typer.Option(
            "--evalset", metavar="PATH", help="Eval set file(s) giving the case order (optional)."
        ),
    ] = [],  # noqa: B006
    app_name: Annotated[
        str,
        typer.Option(
            "--app", metavar="NAME", help="Application name for result file names in a directory."
        ),
    ] = "agenteval",
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Merge although shards (or, with --evalset, cases) are missing; the merge is "
            "marked partial and exits 3.",
        ),
    ] = False,
    store: StoreOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Join shard results into one result whose summary equals a single full run."""

    def merged(inputs: list[Path]) -> int:
        loaded = read_parts(inputs)
        _refuse_no_cases("merge", loaded, parts)
        paths, problems = expand_evalset_paths(evalset)
        if problems:
            raise ConfigError(problems)
        complete = Completeness(allow_partial=allow_partial)
        complete.eval_sets = {
            evalset_id_for(path): EvalSetFile(
                str(path), digest_file(path), [c.eval_id for c in load_evalset(path).cases()]
            )
            for path in paths
        }
        order = {key: value.eval_ids for key, value in complete.eval_sets.items()}
        planned = plan_merge(loaded, case_order=order, complete=complete)
        # What --allow-partial let through, said even with --quiet (the merge is not green).
        _print_problems(complete.warnings, warning=True)
        single = out.suffix == ".json" and not out.is_dir()
        if single and len(planned) != 1:
            raise ConfigError(
                [Problem(str(out), "", f"{len(planned)} eval sets to write; give a directory")]
            )
        spooled = spool_merge(planned, app_name=None if single else app_name)
        try:
            written = write_merged(spooled, out)
        finally:
            close_spools(spooled)
        console = make_console(highlight=False)
        # The merged run's failures and summary line; --quiet leaves out the written paths.
        reports = [item.report for item in spooled]
        notes = RunNotes(unfinished=["interrupted"] if any(r.partial for r in reports) else [])
        console_report.render_reports(console, reports, notes=notes)
        if not quiet:
            for path in written:
                console.print(f"wrote {path}", soft_wrap=True)
        return _saved_exit_code([item.head for item in planned], reports)

    def body() -> int:
        with _stored_inputs(parts, store) as inputs:  # read case by case: kept open
            return merged(inputs)

    raise typer.Exit(_guard(verbose, body))


class SchemaKind(StrEnum):
    """The file kinds ``agenteval schema`` prints."""

    EVALSET = "evalset"
    METRICS = "metrics"
    RESULT = "result"
    RUN = "run"


@app.command()
def schema(
    kind: Annotated[SchemaKind, typer.Argument(help="evalset, metrics, result or run.")],
    verbose: VerboseOpt = False,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a file kind, for editors and CI checks."""

    def body() -> int:
        from agenteval.schema.json_schema import json_schema_text

        sys.stdout.write(json_schema_text(kind.value))
        return 0

    raise typer.Exit(_guard(verbose, body))


@app.command(name="report")
def html_report(
    html: Annotated[
        Path,
        typer.Option("--html", metavar="FILE", help="Where to write the HTML report."),
    ],
    results: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Result files, --json run documents, directories or stored runs (@latest, "
            "@RUN_ID, @branch:NAME); two runs are compared.",
            show_default=False,
        ),
    ] = None,
    base: Annotated[
        list[Path],
        typer.Option(
            "--base",
            metavar="BASE.json",
            help="BASE result file(s) or run document to compare the results with.",
        ),
    ] = [],  # noqa: B006
    tolerance: Annotated[
        float,
        typer.Option(
            "--tolerance",
            metavar="DELTA",
            parser=finite_at_least(0.0),
            help="In a comparison, score drops up to this much are not regressions.",
        ),
    ] = 0.0,
    title: Annotated[
        str, typer.Option("--title", metavar="TEXT", help="Page title (default: the eval sets).")
    ] = "",
    store: StoreOpt = None,
    trend_page: Annotated[
        bool,
        typer.Option(
            "--trend",
            help="The store's trend page instead: metric charts, change points, flaky cases.",
        ),
    ] = False,
    metric: Annotated[
        str | None, typer.Option("--metric", metavar="NAME", help="--trend: only this metric.")
    ] = None,
    trend_evalset: Annotated[
        str | None,
        typer.Option("--evalset", metavar="ID", help="--trend: only this eval set."),
    ] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", metavar="NAME", help="--trend: only this branch.")
    ] = None,
    last: Annotated[
        int,
        typer.Option("--last", metavar="N", min=1, help="--trend: the last N finished runs."),
    ] = TREND_LAST,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Write one offline HTML report of saved results; two runs become a comparison."""

    def write_page(runs: list[ReportRun]) -> int:
        if base and len(runs) != 2:
            raise ConfigError([Problem("report", "--base", "give one run on each side to compare")])
        if len(runs) > 2:
            raise ConfigError(
                [
                    Problem(
                        "report",
                        "",
                        f"{len(runs)} runs given; a report shows one run or compares two",
                        "give result files of one run, or two --json run documents",
                    )
                ]
            )
        try:
            from agenteval.report.html import write_report  # jinja2: loaded only here

            write_report(html, runs, title=title, tolerance=tolerance)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise ConfigError([Problem(str(html), "", f"cannot write: {reason}")]) from None
        if not quiet:
            make_console(highlight=False).print(f"wrote {html}", highlight=False, soft_wrap=True)
        return 0

    def body() -> int:
        problems = check_outputs({}, {"--html": html})
        if problems:
            raise ConfigError(problems)
        if trend_page:
            if results or base:
                raise ConfigError(
                    [Problem("report --trend", "", "reads the store only; give no result files")]
                )
            from agenteval.store.commands import trend_filters, write_trend_page

            filters = trend_filters(metric, trend_evalset, branch, last)
            written = write_trend_page(store, html, filters, title=title)
            if not quiet:
                make_console(highlight=False).print(
                    f"wrote {written}", highlight=False, soft_wrap=True
                )
            return 0
        if not results:
            raise ConfigError(
                [Problem("report", "", "give result files or stored runs", "or --trend")]
            )
        # Results are read case by case while the page is written: the stored ones stay open.
        with _stored_inputs(list(base) + list(results), store) as paths:
            cut = len(base)
            runs = load_runs(paths[:cut]) + load_runs(paths[cut:]) if base else load_runs(paths)
            return write_page(runs)

    raise typer.Exit(_guard(verbose, body))


@app.command(name="evaluators")
def list_evaluators(
    plugin: PluginOpt = [],  # noqa: B006
    verbose: VerboseOpt = False,
) -> None:
    """List the registered evaluators with their descriptions."""

    def body() -> int:
        load_plugins(plugin)
        from rich.table import Table

        table = Table("evaluator", "kind", "description", title="Registered evaluators")
        for evaluator in evaluators.all():
            kind = "judge" if evaluator.needs_judge else "deterministic"
            table.add_row(evaluator.name, kind, evaluator.description)
        make_console().print(table)
        return 0

    raise typer.Exit(_guard(verbose, body))


app.add_typer(import_app, name="import")

EvalSetIdOpt = Annotated[
    str | None,
    typer.Option("--evalset", metavar="ID", help="Only runs of this eval set (id or file)."),
]
BranchOpt = Annotated[
    str | None, typer.Option("--branch", metavar="NAME", help="Only runs of this git branch.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for tools instead of tables.")]


@app.command()
def history(
    store: StoreOpt = None,
    evalset: EvalSetIdOpt = None,
    branch: BranchOpt = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", metavar="WHEN", help="Only runs started since: 2026-01-05, or 7d / 24h ago."
        ),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            metavar="STATUS",
            help="Only runs that passed, failed, are incomplete or not_evaluated; or that are "
            "finished, unfinished, interrupted, partial.",
        ),
    ] = None,
    last: Annotated[
        int, typer.Option("--last", metavar="N", min=0, help="At most N runs (0 = all).")
    ] = TREND_LAST,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """List the runs in a run store, newest first: status, pass rate, metric averages, judge, commit."""

    def body() -> int:
        from agenteval.store.commands import history_command

        return history_command(
            store,
            make_console(highlight=False),
            eval_set=evalset,
            branch=branch,
            since=since,
            status=status,
            last=last,
            json_out=json_out,
        )

    raise typer.Exit(_guard(verbose, body))


@app.command()
def trend(
    store: StoreOpt = None,
    metric: Annotated[
        str | None, typer.Option("--metric", metavar="NAME", help="Only this metric.")
    ] = None,
    evalset: EvalSetIdOpt = None,
    branch: BranchOpt = None,
    last: Annotated[
        int, typer.Option("--last", metavar="N", min=1, help="Over the last N finished runs.")
    ] = TREND_LAST,
    max_shown: Annotated[
        int,
        typer.Option(
            "--max-shown",
            metavar="N",
            min=0,
            help="Flaky and failing cases listed (0 = every case).",
        ),
    ] = 50,
    json_out: JsonOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Metric drift (sparklines, change points) and stable / flaky / failing cases over the last runs."""

    def body() -> int:
        from agenteval.store.commands import trend_command, trend_filters

        filters = trend_filters(metric, evalset, branch, last)
        console = make_console(highlight=False)
        return trend_command(store, console, filters, max_shown=max_shown, json_out=json_out)

    raise typer.Exit(_guard(verbose, body))


store_app = typer.Typer(
    help="Bring result files into a run store, or write a stored run back out.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@store_app.command("add")
def store_add(
    results: Annotated[
        list[Path],
        typer.Argument(help="Result files, --json run documents or directories to store."),
    ],
    store: StoreOpt = None,
    commit: Annotated[
        str | None, typer.Option("--commit", metavar="SHA", help="The commit they were made at.")
    ] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", metavar="NAME", help="The branch they were made on.")
    ] = None,
    run_group: Annotated[
        str | None,
        typer.Option("--run-group", metavar="ID", help="Part of this run group (e.g. a shard)."),
    ] = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Store existing results: each run document is one run, the result files together one more."""

    def body() -> int:
        from agenteval.store.commands import add_command

        return add_command(
            store,
            results,
            make_console(highlight=False),
            commit=commit,
            branch=branch,
            run_group=run_group,
            quiet=quiet,
        )

    raise typer.Exit(_guard(verbose, body))


@store_app.command("export")
def store_export(
    run_ref: Annotated[
        str,
        typer.Argument(
            metavar="RUN", help="A run id (or @RUN_ID), a run group, @latest or @branch:NAME."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="DIR", help="Write its result files here, as run wrote them."
        ),
    ] = None,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Write its --json run document here."),
    ] = None,
    store: StoreOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Write a stored run back out: result files byte for byte as run wrote them (a group: merged)."""

    def body() -> int:
        from agenteval.store.commands import export_command

        return export_command(
            store,
            run_ref,
            make_console(highlight=False),
            output=output,
            json_file=json_file,
            quiet=quiet,
        )

    raise typer.Exit(_guard(verbose, body))


app.add_typer(store_app, name="store")


def _version_callback(value: bool) -> None:
    if value:
        print(f"agenteval {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version_callback, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Score recorded AI-agent traces with deterministic comparers and LLM judges."""


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
            _stderr().print("interrupted")
            sys.exit(api.EXIT_INCOMPLETE)
        sys.exit(exc.code)
    except BrokenPipeError:
        # `agenteval ... | head`: the reader left; not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(api.EXIT_PASSED)
