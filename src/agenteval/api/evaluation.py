"""The Python API: ``evaluate()`` loads, validates, runs and returns result objects."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agenteval import settings
from agenteval.api.option_numbers import non_finite_options
from agenteval.api.option_types import mistyped_options, unknown_options
from agenteval.checks.cross_file import (
    Findings,
    check_filters,
)
from agenteval.checks.numbers import num_runs_problem
from agenteval.checks.trace_records import TraceRecordChecks
from agenteval.errors import ConfigError, Problem
from agenteval.evaluators.registry import (
    CaseAggregator,
    case_aggregators,
)
from agenteval.exit_codes import ExitCode
from agenteval.inputs import loading, locations
from agenteval.inputs.case_sources import CaseSource, Subset
from agenteval.inputs.input_limits import input_file_problem
from agenteval.inputs.problem_lists import Item, listed_or_counted
from agenteval.inputs.result_inputs import ResultPart, read_parts, reading_warnings
from agenteval.inputs.trace_records import runs_past_num_runs, unmatched_records
from agenteval.inputs.unknown_keys import Strictness
from agenteval.plugins import load_plugins
from agenteval.results.agent_usage import AGENT_USAGE_KEY, AgentUsage
from agenteval.results.aggregation import (
    any_not_evaluated,
    build_summary,
    overall_status,
    run_outcome,
    uses_custom_aggregator,
)
from agenteval.results.fingerprints import digest_file, digest_json
from agenteval.results.merging import MergedSet, merge_extras, part_incomplete_ids, plan_merge
from agenteval.results.resuming import ResumeTally, attributed, mismatch, resume_notes
from agenteval.results.sharding import Shard, parse_shard, shard_of
from agenteval.run import planning
from agenteval.run.case_split import SharedSink, share_count, stream_in_shares
from agenteval.run.planning import PlanRules, plan_evalset
from agenteval.run.runner import (
    EvalSetPlan,
    RunSettings,
    StopSignal,
    count_planned,
    stream_evalset,
)
from agenteval.schema.evalset import Invocation
from agenteval.schema.result import EvalCaseResult, EvalSetResult, set_extra
from agenteval.schema.status import EvalStatus
from agenteval.schema.turns import run_trace_key

if TYPE_CHECKING:
    from agenteval.agents.driver import AgentStats
    from agenteval.judge import JudgeClient, JudgeOptions
    from agenteval.judge.prices import PriceTable
    from agenteval.judge.session import JudgeSession
    from agenteval.report.run_reports import ReportsWritten, RunReports

# The exit codes under their earlier names (exit_codes.ExitCode is their home).
EXIT_PASSED, EXIT_FAILED = ExitCode.PASSED, ExitCode.FAILED
EXIT_CONFIG, EXIT_INCOMPLETE = ExitCode.BAD_INPUT, ExitCode.INCOMPLETE
EXIT_INTERNAL = ExitCode.INTERNAL_ERROR

DEFAULT_CACHE = settings.JUDGE_CACHE_PATH
CACHE_ENV = settings.JUDGE_CACHE_ENV


def default_cache_path() -> str:
    """Where judge replies are cached unless told otherwise."""
    return os.environ.get(CACHE_ENV) or DEFAULT_CACHE


@dataclass(slots=True)
class Options:
    """Everything that shapes a run besides the input files."""

    metrics: str | None = None
    traces: str | None = None
    # How OTLP traces name cases: "session", "conversation" or "evalId" (importers/otel.py).
    traces_match: str = settings.TRACES_MATCH
    app_name: str = "agenteval"
    num_runs: int = 1
    cases: Sequence[str] = ()
    only_metrics: Sequence[str] = ()
    skip_metrics: Sequence[str] = ()
    plugins: Sequence[str] = ()
    case_aggregator: str | None = None
    environ: Mapping[str, str] | None = None
    # Judge calls (only used when a metric needs a judge).
    concurrency: int = settings.JUDGE_CONCURRENCY
    rate_limit: float | None = None
    judge_retries: int = settings.JUDGE_RETRIES
    judge_timeout: float = settings.JUDGE_TIMEOUT_SECONDS
    # The judge cache file; None disables it.  $AGENTEVAL_CACHE moves the default.
    cache: str | None = field(default_factory=lambda: default_cache_path())
    offline: bool = False
    max_judge_calls: int | None = None
    max_judge_tokens: int | None = None
    # --max-judge-cost USD: no judge call starts once the run's judge spend reaches it.
    max_judge_cost: float | None = None
    # --prices FILE: judge prices added to (or replacing) the built-in table.
    prices: str | None = None
    # The largest judge reply body read, in bytes; a bigger reply fails that turn.
    judge_max_reply_bytes: int = settings.JUDGE_MAX_REPLY_BYTES
    # "I/N": run only the cases whose stable hash puts them in shard I of N.
    shard: str | None = None
    # Result files of an interrupted run: their cases are kept, only the rest is scored.
    resume: Sequence[str] = ()
    # Keys the trpc-agent-go formats do not define are errors, not warnings (--strict).
    strict: bool = False
    # Keys close to one the formats define (near misses) are warnings, not errors (--lenient).
    lenient: bool = False
    # Set from a signal handler to stop the run early (the CLI installs one).
    stop: StopSignal | None = None
    # Told the number of case runs, then each finished one (the progress bar).
    progress: ProgressSink | None = None
    # --agent SPEC (cmd:COMMAND or agui:URL) drives default-mode and scenario cases live.
    agent: str | None = None
    expected_agent: str | None = None
    agent_concurrency: int = 4
    agent_timeout: float = 120.0
    # --agent-max-event-bytes / --agent-max-turn-bytes: what the agent may send.
    agent_max_event_bytes: int = settings.AGENT_MAX_EVENT_BYTES
    agent_max_turn_bytes: int = settings.AGENT_MAX_TURN_BYTES
    # --record FILE: every driven case's turns in the --traces JSONL format.
    record: str | None = None
    # Where case results go as they finish; None keeps them all (``RunResult.results``).
    sink: ResultSink | None = None
    # --jobs N: a large deterministic eval set is scored on N cores (run/case_split.py).
    jobs: int = 1


class ProgressSink(Protocol):
    """What the runner reports progress to."""

    def start(
        self, total_cases: int, usage: Callable[[], Mapping[str, object] | None] | None
    ) -> None:
        """The run scores ``total_cases`` case runs; ``usage`` reads the judge usage so far."""

    def case_done(self) -> None:
        """One case run finished."""


@dataclass(slots=True)
class Prepared:
    """Validated inputs, ready to run."""

    plans: list[EvalSetPlan]
    traces: Mapping[str, list[Invocation]] | None
    case_aggregator: CaseAggregator | None = None
    warnings: list[Problem] = field(default_factory=list)
    # Results of the interrupted run being resumed, by evalSetId (read case by case).
    resumed: dict[str, MergedSet] = field(default_factory=dict)
    # What judge calls cost: the built-in table with --prices over it.
    prices: PriceTable | None = None


@dataclass(slots=True)
class RunResult:
    """The outcome of ``evaluate()``: one result per eval set plus the overall verdict."""

    results: list[EvalSetResult]
    sources: list[Path]
    status: EvalStatus
    exit_code: int
    elapsed: float
    warnings: list[Problem] = field(default_factory=list)
    # Judge calls and tokens of the run (``{"total": ..., "byMetric": ...}``), None without a judge.
    judge_usage: dict[str, object] | None = None
    # What the agent under test spent (``agentUsage``), None when no turn carried usage.
    agent_usage: dict[str, object] | None = None
    # Why judge turns ended not_evaluated; non-empty means the run could not finish (exit 3).
    judge_failures: list[str] = field(default_factory=list)
    # The run was stopped by a signal: the results hold only what finished before (exit 3).
    interrupted: bool = False
    # What the driven agent did (--agent), None without one.
    agent_stats: AgentStats | None = None
    # The reports written (``evaluate(..., reports=)``), None when none were asked for.
    reports: ReportsWritten | None = None

    @property
    def passed(self) -> bool:
        """True when every case passed."""
        return self.status is EvalStatus.PASSED


def plan_rules(options: Options) -> PlanRules:
    """What the planning of each eval set reads of ``options``."""
    return PlanRules(
        metrics=options.metrics,
        strictness=Strictness.of(strict=options.strict, lenient=options.lenient),
        num_runs=options.num_runs,
        skip=frozenset(options.skip_metrics),
        only=frozenset(options.only_metrics),
        environ=options.environ,
        jobs=options.jobs,
    )


def prepare(evalset_specs: Iterable[str], options: Options) -> Prepared:
    """Load plugins and every file, validate everything, and plan the run; raise ConfigError."""
    _check_numbers(options)
    load_plugins(options.plugins)
    paths, problems = loading.expand_evalset_paths(evalset_specs)
    found = Findings(problems=list(problems))
    aggregator = _case_aggregator(options.case_aggregator, found)
    traces, otlp = _load_traces(options, found)
    if options.traces is not None and traces is not None and not traces:
        # An empty export: each case needing a trace fails saying to pass --traces.
        found.warnings.append(
            Problem(options.traces, "", "holds no traces: every case that needs one fails")
        )
    rules = plan_rules(options)
    plans: list[EvalSetPlan] = []
    all_metric_names: set[str] = set()
    all_case_ids: set[str] = set()
    seen_metric_files: set[Path] = set()
    for path in paths:
        plan = plan_evalset(path, rules, found, traces, seen_metric_files)
        if plan is not None:
            plans.append(plan)
            all_metric_names.update(m.metric_name for m in plan.all_metrics)
            all_case_ids.update(plan.case_ids)
    if not found.problems:
        check_filters(
            options.only_metrics,
            options.skip_metrics,
            options.cases,
            all_metric_names,
            all_case_ids,
            found,
        )
    if options.agent is not None or options.expected_agent is not None:
        from agenteval.api.agent_setup import check_agent_options

        check_agent_options(options, plans, found.problems)
    if traces and options.traces is not None:
        from agenteval.importers.otel_traces import unmatched_sessions  # protobuf: --traces only

        unused = (
            unmatched_sessions(options.traces, traces, all_case_ids, options.traces_match)
            if otlp
            else unmatched_records(options.traces, traces, all_case_ids)
        )
        found.warnings.extend(unused)
        if not otlp:
            found.warnings.extend(
                runs_past_num_runs(options.traces, traces, all_case_ids, options.num_runs)
            )
    prices = _prices(options, plans, found)
    if found.problems:
        raise ConfigError(found.problems, found.warnings)
    if options.agent is not None:
        from agenteval.api.agent_setup import name_agent

        name_agent(options, plans, traces)
    empty = _narrow(plans, options, otlp)
    if empty is not None:
        found.warnings.append(empty)
    if traces and options.traces is not None:
        found.warnings.extend(_traces_of_trace_mode_cases(plans, traces, options.traces))
    shared = _shared_traces(plans, traces, options.num_runs)
    if shared is not None:
        found.warnings.append(shared)
    prepared = Prepared(plans, traces, aggregator, found.warnings)
    prepared.resumed, notes = _load_resumed(options.resume, plans, options.num_runs)
    prepared.warnings.extend(notes)
    prepared.prices = prices
    return prepared


def _check_numbers(options: Options) -> None:
    """The options that make no run at all: mistyped ones, bad run counts, non-finite numbers."""
    mistyped = mistyped_options(options)
    if mistyped:
        raise ConfigError(mistyped)
    if options.num_runs < 1:
        raise ConfigError(
            [Problem("--num-runs", "", f"must be at least 1, got {options.num_runs}")]
        )
    too_many = num_runs_problem(options.num_runs)
    if too_many is not None:
        raise ConfigError([too_many])
    if options.strict and options.lenient:
        raise ConfigError(
            [Problem("--lenient", "", "cannot be combined with --strict (or $AGENTEVAL_STRICT)")]
        )
    infinite = non_finite_options(
        judge_timeout=options.judge_timeout,
        agent_timeout=options.agent_timeout,
        rate_limit=options.rate_limit,
    )
    if infinite:
        raise ConfigError(infinite)


def _case_aggregator(name: str | None, found: Findings) -> CaseAggregator | None:
    """The ``--case-aggregator`` named, or a located problem when none is registered so."""
    if name is None:
        return None
    aggregator = case_aggregators.get(name)
    if aggregator is None:
        known = ", ".join(sorted(case_aggregators)) or "none registered"
        found.problems.append(
            Problem("--case-aggregator", "", f"unknown case aggregator {name!r}", f"known: {known}")
        )
    return aggregator


def _narrow(plans: Sequence[EvalSetPlan], options: Options, otlp: bool) -> Problem | None:
    """Complete each plan's fingerprint and keep the ``--case`` and ``--shard`` cases; a
    warning when the shard holds none of them (the run then evaluates nothing: exit 1)."""
    shard = _parse_shard(options.shard)
    traces_digest = _traces_digest(options, otlp)
    wanted = set(options.cases)
    selected = 0
    for plan in plans:
        if plan.fingerprint is not None:
            plan.fingerprint.traces = traces_digest
            plan.fingerprint.case_aggregator = options.case_aggregator
            plan.fingerprint.shard = str(shard) if shard is not None else None
        if wanted:
            plan.cases = plan.cases.where(wanted.__contains__)
        if shard is not None:
            selected += len(plan.cases)
            plan.cases = plan.cases.where(partial(_in_shard, plan.eval_set_id, shard))
    if shard is None or not selected or any(len(plan.cases) for plan in plans):
        return None
    # Cases go to shards by a hash, so with few cases a shard can be empty by chance; the
    # run has nothing to pass, and a CI job would fail with no case named: say why.
    return Problem(
        "--shard",
        "",
        f"shard {shard} holds none of the {selected} case{'s' if selected != 1 else ''}",
        "cases are split by a stable hash of evalSetId and evalId: with few cases some "
        "shards are empty; use fewer shards",
    )


def check_metrics_file(path: Path, options: Options) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings) of a metric file read on its own, as a run reads it (no eval set)."""
    load_plugins(options.plugins)
    return planning.check_metrics_file(path, plan_rules(options))


def _traces_digest(options: Options, otlp: bool) -> str | None:
    """The fingerprint's hash of the --traces file (read and checked a moment ago); for an
    OTLP export matched otherwise than by session, of the file and ``--traces-match``."""
    traces = options.traces
    if traces is None:
        return None
    try:
        digest = digest_file(Path(traces))
    except OSError as exc:
        raise ConfigError([Problem(traces, "", f"cannot read: {exc.strerror}")]) from None
    if not otlp or options.traces_match == settings.TRACES_MATCH:
        return digest  # the file alone decides the turns (and earlier results stay valid)
    # Another match gives the cases other spans' turns from the same bytes.
    return digest_json({"traces": digest, "tracesMatch": options.traces_match})


def _traces_of_trace_mode_cases(
    plans: list[EvalSetPlan], traces: Mapping[str, list[Invocation]], file: str
) -> list[Problem]:
    """Warnings for ``--traces`` entries whose case is in trace mode: the case scores its
    own ``actualConversation`` and the entry is never read (it was silently unused)."""
    items: list[Item] = []
    for plan in plans:
        trace_mode = plan.cases.own_turns.trace_mode
        for eval_id in plan.cases.selected_ids():
            if eval_id not in traces or eval_id not in trace_mode:
                continue
            items.append(
                Item(
                    repr(eval_id),
                    Problem(
                        file,
                        f"evalId {eval_id!r}",
                        f"case {eval_id!r} of {plan.eval_set_id!r} is in trace mode: its own "
                        "actualConversation is scored, not this trace",
                        "drop the case's evalMode and actualConversation to score the trace",
                    ),
                )
            )
    return listed_or_counted(
        file,
        items,
        "traces",
        "their cases are in trace mode: the cases' own actualConversation is scored, not these",
    )


def _shared_traces(
    plans: list[EvalSetPlan], traces: Mapping[str, list[Invocation]] | None, num_runs: int
) -> Problem | None:
    """The warning when ``--num-runs`` repeats cases whose ``--traces`` hold one run only:
    every run then scores that same trace, and pass^k measures nothing about stability."""
    if num_runs < 2 or not traces:
        return None
    shared = 0
    for plan in plans:
        trace_mode, conversation = plan.cases.own_turns
        shared += sum(
            1
            for eval_id in plan.cases.selected_ids()
            if eval_id in traces
            and eval_id not in trace_mode
            and eval_id not in conversation
            and run_trace_key(eval_id, 2) not in traces
        )
    if not shared:
        return None
    return Problem(
        "--traces",
        "",
        f"{shared} case(s) have one recorded run: all {num_runs} runs (--num-runs) score "
        "that same trace, so their pass@k and pass^k say nothing about how stable the agent is",
        "record every run: --agent SPEC --num-runs N --record FILE",
    )


def read_checked_traces(
    path: Path, strictness: Strictness
) -> tuple[Mapping[str, list[Invocation]], list[Problem], list[Problem]]:
    """(records, problems, warnings) of a traces file of records (no OTLP export) checked as
    ``--traces`` is: unknown keys sorted by ``strictness``; ConfigError when unreadable."""
    checks = TraceRecordChecks(str(path))
    records, problems = loading.read_traces(path, checks)
    errors, warnings = checks.sorted(strictness)
    return records, problems + errors, warnings


def _load_traces(
    options: Options, found: Findings
) -> tuple[Mapping[str, list[Invocation]] | None, bool]:
    """The ``--traces`` turns by trace key (None without or on a problem), and whether OTLP."""
    if options.traces is None:
        return None, False
    path = Path(options.traces)
    refused = input_file_problem(path)
    if refused is not None:
        found.problems.append(refused)
        return None, False
    # protobuf and the OTLP classes load only for --traces.
    from agenteval.importers.otel_traces import is_otlp_file, load_otlp_traces

    otlp = is_otlp_file(path)
    try:
        if otlp:
            traces, warnings = load_otlp_traces(path, options.traces_match)
            found.warnings.extend(warnings)
            return traces, True
        strictness = Strictness.of(strict=options.strict, lenient=options.lenient)
        records, problems, warnings = read_checked_traces(path, strictness)
    except ConfigError as exc:
        found.problems.extend(exc.problems)
        return None, otlp
    found.problems.extend(problems)
    found.warnings.extend(warnings)
    if options.traces_match != settings.TRACES_MATCH:
        # Records name their case by evalId: the choice made here was silently unused.
        found.warnings.append(
            Problem(
                "--traces-match",
                "",
                f"{options.traces_match!r} has no effect: {options.traces} is not an OTLP "
                "trace file, and its records are matched to cases by evalId",
            )
        )
    return records, False


def _prices(options: Options, plans: Sequence[EvalSetPlan], found: Findings) -> PriceTable | None:
    """The run's price table (``--prices`` checked); with a cost bound, every judge priced.

    None when neither option is given: the judge client then reads the built-in table
    itself, and a run without a judge never imports the judge package.
    """
    if options.prices is None and options.max_judge_cost is None:
        return None
    from agenteval.judge.prices import run_prices

    try:
        prices = run_prices(Path(options.prices) if options.prices is not None else None)
    except ConfigError as exc:
        found.problems.extend(exc.problems)
        return None
    if options.max_judge_cost is not None:
        from agenteval.api.judge_prices import unpriced_judges

        if not math.isfinite(options.max_judge_cost) or options.max_judge_cost < 0:
            found.problems.append(
                Problem(
                    "--max-judge-cost",
                    "",
                    f"must be a finite amount of USD, got {options.max_judge_cost}",
                )
            )
        found.problems.extend(unpriced_judges(plans, prices))
    return prices


def _in_shard(eval_set_id: str, shard: Shard, eval_id: str) -> bool:
    return shard_of(eval_set_id, eval_id, shard.count) == shard.index


def _load_resumed(
    paths: Sequence[str], plans: Sequence[EvalSetPlan], num_runs: int = 1
) -> tuple[dict[str, MergedSet], list[Problem]]:
    """Earlier results by evalSetId, several files of one eval set merged, and what was not kept.

    Result files, ``--json`` run documents and directories are read alike, case by case.
    Case results scored on other inputs (:mod:`agenteval.results.resuming`) and INCOMPLETE cases
    are left out, so the run scores them again; the warnings say how many and why.  The
    kept cases are read once here (a broken one is exit 2 before anything is scored) and
    again when the run reaches their place.
    """
    if not paths:
        return {}, []
    parts = read_parts(paths)
    by_id = {plan.eval_set_id: plan for plan in plans}
    problems = [
        Problem(part.source, "evalSetId", f"eval set {part.eval_set_id!r} is not part of this run")
        for part in parts
        if part.eval_set_id not in by_id
    ]
    if problems:
        raise ConfigError(problems)
    tallies: dict[str, ResumeTally] = {}
    kept: list[CaseSource] = []
    for part in parts:
        tally = tallies.setdefault(part.eval_set_id, ResumeTally(part.eval_set_id))
        tally.several_runs = tally.several_runs or any(run > 1 for run in part.run_ids)
        why = mismatch(part.head.fingerprint, by_id[part.eval_set_id].fingerprint)
        if why is not None:
            if part.case_count:
                tally.rescored[why] = tally.rescored.get(why, 0) + part.case_count
            continue
        problems += _unplaced(part, by_id[part.eval_set_id], num_runs)
        selected = _selected_cases(part, by_id[part.eval_set_id])
        finished = _finished_cases(selected)
        tally.kept += finished.case_count
        tally.incomplete += selected.case_count - finished.case_count
        kept.append(finished)
    if problems:
        raise ConfigError(problems)
    for source in kept:
        for _ in source.cases(problems):
            pass  # every kept case validated before the run starts
    if problems:
        raise ConfigError(problems)
    order = {plan.eval_set_id: list(plan.case_ids) for plan in plans}
    merged = plan_merge(kept, case_order=order)
    notes = resume_notes(list(tallies.values())) + reading_warnings(parts)
    return {item.eval_set_id: item for item in merged}, notes


def _unplaced(part: ResultPart, plan: EvalSetPlan, num_runs: int) -> list[Problem]:
    """Kept case results this run has no place for: a case its eval set (the same file, by
    the fingerprint) does not hold, and a run past ``--num-runs``.  The first was counted
    as passed beside the eval set's own cases; the second was an internal error."""
    known = set(plan.case_ids)
    problems: list[Problem] = []
    past: tuple[int, str, int] | None = None  # the first run past --num-runs: one line a file
    for index, (eval_id, run) in enumerate(zip(part.eval_ids, part.run_ids, strict=True)):
        if eval_id and eval_id not in known:
            problems.append(
                Problem(
                    part.source,
                    locations.join(part.where, "evalCaseResults", index, "evalId"),
                    f"case {eval_id!r} is not in eval set {part.eval_set_id!r}",
                    "resume a result of this eval set's cases",
                )
            )
        elif run > num_runs and past is None:
            past = (index, eval_id, run)
    if past is not None:
        index, eval_id, run = past
        problems.append(
            Problem(
                part.source,
                locations.join(part.where, "evalCaseResults", index, "runId"),
                f"run {run} of case {eval_id!r}; this run has --num-runs {num_runs}",
                "resume with the --num-runs the result was scored with",
            )
        )
    return problems


def _selected_cases(part: CaseSource, plan: EvalSetPlan) -> CaseSource:
    """``part`` without the cases this run does not select (``--shard``, ``--case``): kept,
    another shard's cases would be written into this shard's result, counted in its summary
    and found twice by ``merge``.  Its usage is only the selected cases' (resuming.attributed):
    each shard carrying the whole part's was added up once per shard by ``merge``."""
    selected = set(plan.cases.selected_ids())
    indices = [i for i, eval_id in enumerate(part.eval_ids) if eval_id in selected]
    if len(indices) == part.case_count:
        return part
    return Subset(part, indices, attributed(part.head, part.cases(indices=indices)))


def _finished_cases(part: CaseSource) -> CaseSource:
    """``part`` without its INCOMPLETE cases and their ``judgeFailures`` mark."""
    incomplete = set(part_incomplete_ids(part))
    if not incomplete:
        return part
    indices = [i for i, eval_id in enumerate(part.eval_ids) if eval_id not in incomplete]
    return Subset(part, indices, part.head.model_copy(update={"judge_failures": None}))


def _parse_shard(text: str | None) -> Shard | None:
    if text is None:
        return None
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise ConfigError([Problem("--shard", "", str(exc), "e.g. --shard 2/5")]) from None


@dataclass(slots=True)
class JudgeOutcome:
    """What the judge did during a run."""

    usage: dict[str, object] | None = None
    failures: list[str] = field(default_factory=list)
    agent: AgentStats | None = None
    # What the judge client said once for the run, as (what it concerns, note).
    notes: list[tuple[str, str]] = field(default_factory=list)
    # What the agent under test spent over the run's eval sets (their ``agentUsage``).
    agent_spent: AgentUsage = field(default_factory=AgentUsage)


def judge_options(options: Options, prices: PriceTable | None = None) -> JudgeOptions:
    """The judge client's options of a run's ``Options`` (cache, budgets, retries, limits,
    ``prices``: the run's price table, for cost and ``--max-judge-cost``)."""
    from agenteval.judge import JudgeOptions

    max_cost = options.max_judge_cost
    try:
        return JudgeOptions(
            prices=prices,
            max_cost=None if max_cost is None else Decimal(repr(max_cost)),
            concurrency=options.concurrency,
            rate_limit_rpm=options.rate_limit,
            retries=options.judge_retries,
            timeout=options.judge_timeout,
            max_calls=options.max_judge_calls,
            max_tokens=options.max_judge_tokens,
            cache_path=Path(options.cache) if options.cache else None,
            offline=options.offline,
            max_reply_bytes=options.judge_max_reply_bytes,
        )
    except ValueError as exc:
        raise ConfigError([Problem("judge options", "", str(exc))]) from None


class ResultSink(Protocol):
    """Where a run's case results go, one eval set after the other, in result-file order."""

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        """The eval set ``eval_set_id`` starts."""

    def add(self, case: EvalCaseResult) -> None:
        """One finished case run (run 1's cases in file order, then run 2's, ...)."""

    def end_set(self, head: EvalSetResult) -> None:
        """The eval set is done; ``head`` holds its run state (no cases, no summary)."""

    def overall_status(self) -> EvalStatus:
        """The overall status of every case added (the exit code follows from it)."""


class CollectedResults:
    """The sink of :func:`evaluate`: every eval set's result whole, with its summary."""

    def __init__(self) -> None:
        self.results: list[EvalSetResult] = []
        self._cases: list[EvalCaseResult] = []
        self._num_runs = 1

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        self._cases = []
        self._num_runs = num_runs

    def add(self, case: EvalCaseResult) -> None:
        self._cases.append(case)

    def end_set(self, head: EvalSetResult) -> None:
        result = head.model_copy()
        result.eval_case_results = self._cases
        result.summary = build_summary(
            self._cases, self._num_runs, custom_aggregator=uses_custom_aggregator(head)
        )
        self.results.append(result)
        self._cases = []

    def overall_status(self) -> EvalStatus:
        return overall_status(self.results)


async def stream_prepared(
    prepared: Prepared, options: Options, sink: ResultSink, judge: JudgeOutcome | None = None
) -> None:
    """Run every planned eval set into ``sink``; judge metrics share one judge client."""
    settings = RunSettings(
        num_runs=options.num_runs,
        traces=prepared.traces,
        case_aggregator=prepared.case_aggregator,
        stop=options.stop.event if options.stop is not None else None,
        signals=options.stop,
        skip=frozenset(
            (merged.eval_set_id, eval_id, run_id)
            for merged in prepared.resumed.values()
            for run_id, eval_id in merged.case_keys()
        ),
        on_case_done=options.progress.case_done if options.progress is not None else None,
        prices=prepared.prices,
    )
    total = sum(count_planned(plan, settings) for plan in prepared.plans)
    if options.agent is not None:
        from agenteval.api.agent_setup import open_driver

        async with open_driver(options, settings, judge) as driver:
            settings.agent = driver
            await _run_plans(prepared, options, settings, total, judge, sink)
            return
    await _run_plans(prepared, options, settings, total, judge, sink)


async def _run_plans(
    prepared: Prepared,
    options: Options,
    settings: RunSettings,
    total: int,
    judge: JudgeOutcome | None,
    sink: ResultSink,
) -> None:
    agent_judge = settings.agent is not None and settings.agent.needs_judge(prepared.plans)
    if not agent_judge and not any(
        p.evaluator.needs_judge for plan in prepared.plans for p in plan.metrics
    ):
        if options.progress is not None:
            options.progress.start(total, None)
        for plan in prepared.plans:
            await _run_set(plan, prepared, settings, sink, None, judge, options.jobs)
        return
    from agenteval.judge import JudgeClient
    from agenteval.judge.session import JudgeSession

    outcome = judge if judge is not None else JudgeOutcome()
    async with JudgeClient(judge_options(options, prepared.prices)) as client:
        session = JudgeSession(client=client, failures=outcome.failures)
        settings.judge = session
        if options.stop is not None:
            options.stop.on_stop(client.stop_new_calls)
        if options.progress is not None:
            options.progress.start(total, lambda: client.usage.total.to_json())
        for plan in prepared.plans:
            watch = _JudgeWatch(client, session, outcome)
            await _run_set(plan, prepared, settings, sink, watch, outcome)
        outcome.usage = client.usage.to_json()
        outcome.notes.extend(client.notes)


@dataclass(slots=True)
class _JudgeWatch:
    """The judge of a run, as one eval set's result records it."""

    client: JudgeClient
    session: JudgeSession
    outcome: JudgeOutcome


class _FreshCases:
    """The cases of one eval set scored by this run (resumed ones left out), as they pass.

    Only what ``judgeFailures`` needs is kept: their evalIds in order and the ids of the
    ones with a not_evaluated metric.
    """

    def __init__(self, eval_set_id: str, skip: frozenset[tuple[str, str, int]]) -> None:
        self.eval_set_id = eval_set_id
        self.skip = skip
        self.ids: list[str] = []
        self.not_evaluated: list[str] = []

    def fresh(self, case: EvalCaseResult) -> bool:
        """Whether this run scored ``case`` (not resumed from an earlier run's results)."""
        return not self.skip or (self.eval_set_id, case.eval_id, case.run_id or 1) not in self.skip

    def see(self, case: EvalCaseResult) -> None:
        if not self.fresh(case):
            return
        self.ids.append(case.eval_id)
        if any_not_evaluated(case):
            self.not_evaluated.append(case.eval_id)

    def judge_failures(self, incomplete: set[tuple[str, str]]) -> list[str]:
        """``judgeFailures``: the cases the judge left unevaluated.

        Failures recorded without their case (a plugin's evaluator) mark every case
        with a not_evaluated metric.
        """
        marked = [i for i in self.ids if (self.eval_set_id, i) in incomplete]
        return list(dict.fromkeys(marked or self.not_evaluated))


class _Delivery:
    """Where one eval set's finished cases go, in order: the sink, and what its head
    records of them (judgeFailures, agentUsage, the incomplete cases)."""

    def __init__(
        self, eval_set_id: str, settings: RunSettings, sink: CaseTarget, *, watched: bool
    ) -> None:
        self.eval_set_id = eval_set_id
        self.settings = settings
        self.sink = sink
        self.watched = watched  # a judge ran: judgeFailures needs the cases it saw
        self.fresh = _FreshCases(eval_set_id, settings.skip)
        # Cases left unevaluated by an agent not started or an evaluator that raised.
        self.incomplete: list[str] = []
        self.agent_spent = AgentUsage()  # this run's cases' (a resumed part adds its own)

    def __call__(self, case: EvalCaseResult) -> None:
        if self.watched:
            self.fresh.see(case)
        extra = case.model_extra
        if extra and AGENT_USAGE_KEY in extra and self.fresh.fresh(case):
            self.agent_spent.add(extra[AGENT_USAGE_KEY])
        incomplete = self.settings.incomplete
        if incomplete and (self.eval_set_id, case.eval_id) in incomplete:
            self.incomplete.append(case.eval_id)
        self.sink.add(case)

    def to(self, sink: CaseTarget, settings: RunSettings) -> _Delivery:
        """The same delivery into a share's own sink, under its worker's settings
        (run/case_split.py)."""
        return _Delivery(self.eval_set_id, settings, sink, watched=self.watched)

    def shipped(self) -> tuple[list[str], AgentUsage]:
        return self.incomplete, self.agent_spent

    def absorb(self, shipped: tuple[list[str], AgentUsage]) -> None:
        incomplete, agent_spent = shipped
        self.incomplete.extend(incomplete)
        self.agent_spent.absorb(agent_spent)


class CaseTarget(Protocol):
    """What a delivery hands each case to: the run's sink, or a share's."""

    def add(self, case: EvalCaseResult) -> None:
        """One finished case."""


async def _run_set(
    plan: EvalSetPlan,
    prepared: Prepared,
    settings: RunSettings,
    sink: ResultSink,
    judge: _JudgeWatch | None,
    run: JudgeOutcome | None = None,
    jobs: int = 1,
) -> None:
    resumed = prepared.resumed.get(plan.eval_set_id)
    sink.begin_set(plan.eval_set_id, settings.num_runs)
    deliver = _Delivery(plan.eval_set_id, settings, sink, watched=judge is not None)
    fresh, incomplete, agent_spent = deliver.fresh, deliver.incomplete, deliver.agent_spent
    set_usage = judge.client.usage.begin_scope() if judge is not None else None
    failures_before = len(judge.outcome.failures) if judge is not None else 0
    shares = share_count(plan, settings, sink, jobs, resumed)
    try:
        if shares > 1 and isinstance(sink, SharedSink):
            await stream_in_shares(plan, settings, deliver, sink, shares)
        else:
            await stream_evalset(plan, settings, deliver, resumed)
    finally:
        if judge is not None:
            judge.client.usage.end_scope()
    head = EvalSetResult(eval_set_id=plan.eval_set_id, fingerprint=plan.fingerprint)
    if settings.stopping():
        head.partial = True
    if agent_spent.active:
        head.agent_usage = agent_spent.to_json()
    if judge is not None and set_usage is not None:
        # Per eval set usage and cost (an extra key Go readers ignore).
        head.judge_usage = set_usage.to_json()
        if len(judge.outcome.failures) > failures_before:
            # The INCOMPLETE cases: reports, `show` and --resume read them from here.
            head.judge_failures = fresh.judge_failures(judge.session.incomplete)
    if incomplete:
        # One list of INCOMPLETE cases, whatever left them so: reports, `show` and --resume
        # read it (the key keeps its first name).
        earlier = head.judge_failures if isinstance(head.judge_failures, list) else []
        head.judge_failures = list(dict.fromkeys([*earlier, *incomplete]))
    if resumed is not None:
        head = _resumed_head(resumed.head, head)
    if run is not None:
        run.agent_spent.add(head.agent_usage)
    sink.end_set(head)


def _resumed_head(earlier: EvalSetResult, fresh: EvalSetResult) -> EvalSetResult:
    """The run state of a resumed eval set: both runs' extras joined as ``merge`` joins them."""
    head = EvalSetResult(eval_set_id=fresh.eval_set_id)
    if earlier.creation_timestamp is not None:
        head.creation_timestamp = earlier.creation_timestamp
    for key, value in merge_extras([earlier, fresh]).items():
        set_extra(head, key, value)
    # Only the new part decides: the resumed run finished what the earlier one left.
    head.partial = True if fresh.partial else None
    # Every case kept was scored on this run's inputs (agenteval.results.resuming).
    head.fingerprint = fresh.fingerprint
    return head


# How many relaxed_gc blocks are open: only the outermost one sets and restores.
_relaxed_depth = 0


@contextmanager
def relaxed_gc(*, caller_froze: bool | None = None) -> Iterator[None]:
    """Collect garbage rarely while a run holds millions of long-lived, acyclic objects.

    With the default thresholds, full collections re-scan every loaded case and
    every result again and again, which made a 10,000-case run several times slower.
    Cycles are still collected, just far less often.  What the run froze (the large files
    it read: inputs/long_lived.py) is unfrozen after it, never what the caller had frozen
    before (a server that froze its start-up state): CPython unfreezes only all at once, so
    when both were frozen all stays frozen (freed by reference counts all the same; only
    its cycles wait for the caller's own gc.unfreeze()).

    ``caller_froze``: whether objects frozen on entry are the caller's; None: counted
    (CPython counts the frozen objects one by one: ~2 ms once the command line has frozen
    its modules, which it passes False for, as its start-up freeze is agenteval's own).
    A block inside another one changes nothing: the outermost decides.
    """
    global _relaxed_depth
    outermost = _relaxed_depth == 0
    if outermost:
        previous = gc.get_threshold()
        keep_frozen = gc.get_freeze_count() > 0 if caller_froze is None else caller_froze
        gc.set_threshold(200_000, 50, 1_000)
    _relaxed_depth += 1
    try:
        yield
    finally:
        # Counted down, not reset: a block another thread opened inside this one (two
        # evaluate() calls at once) may still be open, and its end counts down too.
        _relaxed_depth -= 1
        if outermost:
            gc.set_threshold(*previous)
            if not keep_frozen:
                gc.unfreeze()


def evaluate(
    evalsets: str | Path | Iterable[str | Path],
    options: Options | None = None,
    *,
    reports: RunReports | None = None,
    **kwargs: object,
) -> RunResult:
    """Load, validate and score eval sets; raises ConfigError on bad input.

    ``kwargs`` are ``Options`` fields, so ``evaluate("x.evalset.json", num_runs=3)`` works;
    beside ``options`` they replace its fields.  Called where an event loop runs (a Jupyter
    notebook, an async test), the run has a thread and an event loop of its own.
    ``reports`` writes the reports ``agenteval run`` writes with the same flags, the same
    bytes (result files, run document, JUnit, Markdown, HTML, CI outputs); what was written
    is in ``RunResult.reports``, and a report that could not be written makes the run
    INCOMPLETE (exit code 3), as on the command line.
    """
    started = time.perf_counter()
    unknown = unknown_options(Options, kwargs)
    if unknown:
        raise ConfigError(unknown)
    # Keywords beside ``options`` were silently dropped: evaluate(path, opts, num_runs=3) ran once.
    opts = (
        Options(**kwargs)  # type: ignore[arg-type]
        if options is None
        else dataclasses.replace(options, **kwargs)  # type: ignore[arg-type]
    )
    specs = [str(evalsets)] if isinstance(evalsets, str | Path) else [str(s) for s in evalsets]
    with relaxed_gc():
        if reports is None:
            return _outside_running_loop(partial(_evaluate, specs, opts, started))
        return _outside_running_loop(partial(_evaluate_reported, specs, opts, reports, started))


def _outside_running_loop(work: Callable[[], RunResult]) -> RunResult:
    """``work()``, in a thread of its own when this thread runs an event loop: the run's
    ``asyncio.run`` (and the HTML report's, for judge metrics) cannot start inside one, so
    a notebook cell calling evaluate() failed with "cannot be called from a running event
    loop"."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        looping = False  # work() runs below, not here: its exceptions would chain this one
    else:
        looping = True
    if not looping:
        return work()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agenteval-run") as pool:
        return pool.submit(work).result()


def _evaluate_reported(
    specs: list[str], opts: Options, reports: RunReports, started: float
) -> RunResult:
    """:func:`evaluate` writing ``reports``: the cases go to the reports and to ``opts.sink``
    (or are collected into ``RunResult.results`` as without reports)."""
    # Imported here: a run without reports does not load the report writers.
    from agenteval.report.run_notes import RunNotes
    from agenteval.report.run_reports import RunReporter
    from agenteval.report.set_tally import NOTHING_SHOWN, ReportSink

    load_plugins(opts.plugins)  # a plugin's reporter is among the reports
    problems = reports.problems()
    if problems:
        raise ConfigError(problems)
    collected = CollectedResults() if opts.sink is None else None
    also = [opts.sink if opts.sink is not None else collected]
    # The console's view of the cases is not needed: no case is kept for printing.
    tallies = ReportSink(view=NOTHING_SHOWN)
    with RunReporter(
        reports, app_name=opts.app_name, tallies=tallies, also=[s for s in also if s]
    ) as reporter:
        result = _evaluate(specs, dataclasses.replace(opts, sink=reporter.sink), started)
        written = reporter.write(result, RunNotes.of(result.warnings))
    result.results = collected.results if collected is not None else []
    result.reports = written
    result.exit_code = written.exit_code
    if written.notes.unfinished:
        result.status = EvalStatus.INCOMPLETE
    return result


def _evaluate(specs: list[str], opts: Options, started: float) -> RunResult:
    prepared = prepare(specs, opts)
    if opts.stop is not None:
        opts.stop.start()
    gc.freeze()  # the loaded inputs live until the end; keep them out of every collection
    sink: ResultSink = opts.sink if opts.sink is not None else CollectedResults()
    judge = JudgeOutcome()
    asyncio.run(stream_prepared(prepared, opts, sink, judge))
    interrupted = opts.stop is not None and opts.stop.event.is_set()
    agent_missing = judge.agent is not None and judge.agent.not_started > 0
    verdict = run_outcome(
        [sink.overall_status()],
        unfinished=bool(judge.failures) or interrupted or agent_missing,
    )
    return RunResult(
        results=sink.results if isinstance(sink, CollectedResults) else [],
        sources=[p.path for p in prepared.plans],
        status=verdict.status,
        exit_code=verdict.exit_code,
        elapsed=time.perf_counter() - started,
        warnings=[*prepared.warnings, *(Problem(origin, "", n) for origin, n in judge.notes)],
        judge_usage=judge.usage,
        agent_usage=judge.agent_spent.to_json() if judge.agent_spent.active else None,
        judge_failures=judge.failures,
        interrupted=interrupted,
        agent_stats=judge.agent,
    )
