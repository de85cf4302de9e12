"""Score one case × metric (× run) through the evaluator's own code, recording every step.

Two ways in: an eval set and its metrics (:func:`explain_evalset`, scored on the spot
as ``run`` would, judge replies from the cache when it has them) or a saved result
file or run document (:func:`explain_result`: the saved turns and criterion scored
again, 0 judge calls when the cache is warm).  Both call :func:`score_explained`,
which ``run --watch`` can call per (case, metric) pair too.

Tested in tests/explain/test_core.py.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from agenteval.errors import ConfigError, Problem
from agenteval.evaluators.base import (
    EvalContext,
    EvaluateResult,
    Evaluator,
    EvaluatorError,
    score_case,
    scored,
)
from agenteval.evaluators.registry import evaluators
from agenteval.explain.criterion import resolve_criterion
from agenteval.explain.json_paths import path_rows
from agenteval.explain.model import (
    CaseOutcome,
    CriterionField,
    Explanation,
    JudgeUse,
    MetricOutcome,
    SavedScore,
    TurnOutcome,
    metric_incomplete,
)
from agenteval.inputs.problem_lists import first_named
from agenteval.inputs.score_text import exact_number
from agenteval.results.aggregation import default_case_aggregate
from agenteval.schema.evalset import EvalCase, Invocation
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import EvalCaseResult, EvalMetricResult
from agenteval.schema.status import UPPER_BOUND_METRICS, EvalStatus
from agenteval.steps.record import Step, recording

if TYPE_CHECKING:
    from agenteval import api
    from agenteval.judge import JudgeOptions
    from agenteval.run.runner import EvalSetPlan, PlannedMetric


@dataclass(frozen=True, slots=True)
class Target:
    """What to explain: a case, a metric, a run (1-based) and optionally one turn (1-based)."""

    case_id: str
    metric_name: str
    run_id: int = 1
    turn: int | None = None
    eval_set_id: str | None = None


@dataclass(slots=True)
class Scored:
    """One evaluator run with its recorded steps and what the judge did."""

    result: EvaluateResult | None
    error: str
    steps: list[Step]
    judge: JudgeUse | None = None


@dataclass(slots=True)
class Subject:
    """Everything one score is made of: the metric, its evaluator, the turns, the case."""

    eval_set_id: str
    case: EvalCase
    run_id: int
    metric: EvalMetric
    evaluator: Evaluator
    actuals: Sequence[Invocation]
    expecteds: Sequence[Invocation]
    criterion: list[CriterionField] = field(default_factory=list)


def _comparison(score: float, threshold: float, status: EvalStatus | str, evaluator: str) -> str:
    """The comparison the evaluator makes (schema.status.metric_status): ``score >= threshold``,
    or for a count metric an upper bound (none when the threshold is not positive)."""
    value = EvalStatus(status) if isinstance(status, str) else status
    if value is EvalStatus.NOT_EVALUATED:
        return "not evaluated"
    if evaluator in UPPER_BOUND_METRICS:
        if threshold <= 0:
            bound = f"threshold {exact_number(threshold)} is no bound"
            return f"{exact_number(score)}, informational ({bound}) → {value.value}"
        sign = "<=" if score <= threshold else ">"
        return f"{exact_number(score)} {sign} upper bound {exact_number(threshold)} → {value.value}"
    sign = ">=" if score >= threshold else "<"
    return f"{exact_number(score)} {sign} threshold {exact_number(threshold)} → {value.value}"


async def _run_evaluator(subject: Subject, judge: JudgeOptions) -> Scored:
    from agenteval.judge import JudgeClient
    from agenteval.judge.session import JudgeSession

    with recording() as recorder:
        if not subject.evaluator.needs_judge:
            context = EvalContext(subject.eval_set_id, subject.case, subject.run_id)
            result, error = await _evaluate(subject, context)
            return Scored(result, error, recorder.steps)
        async with JudgeClient(judge) as client:
            session = JudgeSession(client=client)
            context = EvalContext(subject.eval_set_id, subject.case, subject.run_id, session)
            result, error = await _evaluate(subject, context)
            usage = client.usage.total
    missing = [
        f"turn {step.turn + 1 if step.turn is not None else '?'} sample {k + 1}"
        for step in recorder.steps
        for k in step.data.get("missing", ())
    ]
    use = JudgeUse(usage.calls, usage.cache_hits, missing, list(session.failures))
    return Scored(result, error, recorder.steps, use)


async def _evaluate(subject: Subject, context: EvalContext) -> tuple[EvaluateResult | None, str]:
    evaluator = subject.evaluator
    try:
        result = await score_case(
            evaluator, subject.metric, subject.actuals, subject.expecteds, context
        )
    except EvaluatorError as exc:
        return None, f"run evaluation for metric {subject.metric.metric_name}: {exc}"
    return result, ""


def score_explained(subject: Subject, judge: JudgeOptions | None) -> Scored:
    """Score ``subject`` once with every step recorded (the judge through ``judge``).

    A deterministic evaluator is called directly (no event loop: a report being
    written inside a run's loop can call this too); a judge evaluator needs ``judge``.
    """
    evaluator = subject.evaluator
    if evaluator.needs_judge or evaluator.is_async:
        if judge is None:
            raise ValueError(f"{evaluator.name} needs the judge: pass its options")
        return asyncio.run(_run_evaluator(subject, judge))
    context = EvalContext(subject.eval_set_id, subject.case, subject.run_id)
    with recording() as recorder:
        try:
            result = scored(evaluator, subject.metric, subject.actuals, subject.expecteds, context)
        except EvaluatorError as exc:
            error = f"run evaluation for metric {subject.metric.metric_name}: {exc}"
            return Scored(None, error, recorder.steps)
    return Scored(result, "", recorder.steps)


def _turns(scored: Scored, threshold: float, evaluator: str) -> list[TurnOutcome]:
    if scored.result is None:
        return []
    return [
        TurnOutcome(
            index,
            turn.score,
            threshold,
            turn.status.value,
            turn.details.reason,
            _comparison(turn.score, threshold, turn.status, evaluator),
        )
        for index, turn in enumerate(scored.result.turns)
    ]


def _turns_combined(evaluator: str, counted: Sequence[float], score: float) -> str:
    """How the evaluator combines its evaluated turns: a count metric sums them
    (evaluators/usage_counts.py), every other a mean (evaluators/base.average_turns)."""
    if not counted:
        return "no evaluated turn"
    terms = " + ".join(exact_number(s) for s in counted)
    if evaluator in UPPER_BOUND_METRICS:
        return f"sum of {len(counted)} evaluated turn count(s): {terms} = {exact_number(score)}"
    mean = f"mean of {len(counted)} evaluated turn score(s): ({terms}) / {len(counted)}"
    return f"{mean} = {exact_number(score)}"


def _metric(subject: Subject, scored: Scored) -> MetricOutcome:
    metric = subject.metric
    name = subject.evaluator.name
    if scored.result is None:
        return MetricOutcome(
            metric.metric_name,
            name,
            0.0,
            metric.threshold,
            "failed",
            "the evaluator stopped: the case fails",
            scored.error,
        )
    result = scored.result
    counted = [t.score for t in result.turns if t.status is not EvalStatus.NOT_EVALUATED]
    combined = _turns_combined(name, counted, result.score)
    arithmetic = f"{combined}; {_comparison(result.score, metric.threshold, result.status, name)}"
    if result.incomplete:
        missing = len(result.turns) - len(counted)
        arithmetic += (
            f"; incomplete: {missing} of {len(result.turns)} turn(s) not evaluated, "
            "so the case is incomplete"
        )
    return MetricOutcome(
        metric.metric_name,
        name,
        result.score,
        metric.threshold,
        result.status.value,
        arithmetic,
        incomplete=result.incomplete,
    )


_INCOMPLETE_RULE = "a metric that could not be evaluated in full makes the case incomplete"


def _planned_case(
    metric: MetricOutcome, judge: JudgeUse | None, others: Sequence[str]
) -> CaseOutcome:
    """The case verdict from an eval set, where explain scored one metric of the case.

    Claimed only where this metric decides it as ``run`` would: an incomplete metric makes
    the case incomplete (runner: ``incomplete``, whatever the aggregator); under the default
    aggregator (said so) a failed metric fails the case, and the case's only metric decides
    it.  Otherwise the other metrics and the aggregator decide, and explain does not guess.
    """
    rows = [(metric.name, metric.status, "explained")]
    if metric_incomplete(metric, judge):
        arithmetic = f"{_INCOMPLETE_RULE}: {metric.name} incomplete → incomplete"
        return CaseOutcome(EvalStatus.INCOMPLETE.value, rows, arithmetic)
    if others and metric.status != EvalStatus.FAILED.value:
        arithmetic = (
            f"not computed: explain scored {metric.name} only; the case's verdict also "
            f"takes {', '.join(others)} and the case aggregator (agenteval run gives it)"
        )
        return CaseOutcome(None, rows, arithmetic)
    statuses = [EvalMetricResult(metric_name=metric.name, eval_status=EvalStatus(metric.status))]
    _, status = default_case_aggregate(statuses)
    decides = "whatever its other metrics say" if others else "its only metric"
    arithmetic = (
        f"with the default case aggregator (every metric must pass; run --case-aggregator "
        f"may decide otherwise), {decides}: {metric.name} {metric.status} → {status.value}"
    )
    return CaseOutcome(status.value, rows, arithmetic)


def _saved_case(
    metric: MetricOutcome,
    judge: JudgeUse | None,
    case: EvalCaseResult,
    saved_status: EvalStatus,
) -> CaseOutcome:
    """The case verdict from a saved result: the run's own (``saved_status``, read by the
    rule every report uses, aggregation.case_statuses), with the case aggregator it ran."""
    rows = [
        (m.metric_name, m.eval_status.value, "saved result")
        for m in case.overall_eval_metric_results or ()
        if m is not None
    ]
    listed = ", ".join(f"{name} {value}" for name, value, _ in rows)
    if metric_incomplete(metric, judge) and saved_status is not EvalStatus.INCOMPLETE:
        # Scored again the metric is incomplete: never passed on what was scored.
        again = f"scored again, {metric.name} is incomplete"
        arithmetic = f"{_INCOMPLETE_RULE}: {again} → incomplete"
        return CaseOutcome(EvalStatus.INCOMPLETE.value, rows, arithmetic)
    over = listed or "no metric"
    arithmetic = f"the run's verdict (its case aggregator over {over}) → {saved_status.value}"
    note = ""
    if saved_status is EvalStatus.INCOMPLETE:
        note = "a metric of the case could not be evaluated in full: the case is incomplete"
    return CaseOutcome(saved_status.value, rows, arithmetic, note)


def _with_paths(steps: list[Step]) -> list[Step]:
    """Each JSON comparison of two JSON values gets its path-by-path listing."""
    for step in steps:
        data = step.data
        if step.kind != "json" or not (data.get("actualParsed") and data.get("expectedParsed")):
            continue
        if data.get("compareName") or data.get("ignore") or data.get("strategy") == "skip":
            continue
        rows, more = path_rows(
            data["actual"],
            data["expected"],
            data["numberTolerance"],
            data.get("ignoreTree"),
            data.get("onlyTree"),
        )
        data["paths"] = [
            {"path": r.path, "verdict": r.verdict, "actual": r.actual, "expected": r.expected}
            for r in rows
        ]
        data["pathsLeftOut"] = more
    return steps


def build_explanation(
    source: str,
    subject: Subject,
    scored: Scored,
    target: Target,
    case_verdict: Callable[[MetricOutcome, JudgeUse | None], CaseOutcome],
) -> Explanation:
    """The explanation of one scored subject (turns, metric and case arithmetic);
    ``case_verdict``: what can be said of the case, given the metric explained."""
    metric = _metric(subject, scored)
    return Explanation(
        source=source,
        eval_set_id=subject.eval_set_id,
        case_id=subject.case.eval_id,
        run_id=subject.run_id,
        metric=metric,
        criterion=subject.criterion,
        steps=_with_paths(scored.steps),
        turns=_turns(scored, subject.metric.threshold, subject.evaluator.name),
        case=case_verdict(metric, scored.judge),
        judge=scored.judge,
        turn=target.turn,
    )


def _unknown(file: str, what: str, name: str, known: Sequence[str]) -> ConfigError:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    shown = first_named(known)
    hint = (f"did you mean {close[0]!r}? " if close else "") + f"known: {shown or 'none'}"
    return ConfigError([Problem(file, "", f"no {what} {name!r}", hint)])


def _evaluator(name: str, file: str) -> Evaluator:
    # Registers the built-in evaluators (a library caller may not have imported them yet).
    import agenteval.evaluators.builtins  # noqa: F401

    found = evaluators.get(name)
    if found is None:
        raise ConfigError([Problem(file, "", f"unknown evaluator {name!r}", evaluators.hint(name))])
    return found


# --- eval set + metrics ------------------------------------------------------------


def plan_subject(
    plan: EvalSetPlan,
    case: EvalCase,
    planned: PlannedMetric,
    traces: Mapping[str, list[Invocation]] | None,
    run_id: int = 1,
) -> Subject:
    """One (case, metric) of a prepared plan, as ``run`` would score it (case rubrics merged).

    With :func:`score_explained` this is the per-(case, metric) scoring that ``run --watch``
    can reuse; a case whose turns cannot be built is a ConfigError.
    """
    from agenteval.schema.case_rubrics import case_rubric_index, effective_rubrics, with_rubrics
    from agenteval.schema.turns import CaseLayoutError, case_turns

    metric = planned.metric
    added = case_rubric_index(case, plan.all_metrics).get(metric.metric_name)
    if added:
        metric = with_rubrics(metric, effective_rubrics(case.eval_id, metric, added))
    try:
        actuals, expecteds = case_turns(case, traces)
    except CaseLayoutError as exc:
        raise ConfigError([Problem(str(plan.path), "", str(exc))]) from None
    index = [m.metric_name for m in plan.all_metrics].index(metric.metric_name)
    located = f"{plan.metrics_path}: [{index}]" if plan.metrics_path else None
    return Subject(
        plan.eval_set_id,
        case,
        run_id,
        metric,
        planned.evaluator,
        actuals,
        expecteds,
        resolve_criterion(metric, planned.evaluator.name, located),
    )


def explain_evalset(specs: Sequence[str], options: api.Options, target: Target) -> Explanation:
    """Score ``target`` from eval sets and metric files, every step recorded."""
    from agenteval import api

    options.cases = (target.case_id,)
    options.only_metrics = (target.metric_name,)
    prepared = api.prepare(specs, options)
    sets = [plan.eval_set_id for plan in prepared.plans]
    if target.eval_set_id and target.eval_set_id not in sets:
        raise _unknown(", ".join(specs), "eval set", target.eval_set_id, sets)
    holding = sorted({plan.eval_set_id for plan in prepared.plans if len(plan.cases)})
    if len(holding) > 1 and target.eval_set_id is None:
        # Explaining the first would explain a case the user may not mean, without a word.
        what = f"case {target.case_id!r} (run {target.run_id})"
        raise _in_several_sets(first_named(list(specs)), what, holding)
    for plan in prepared.plans:
        if target.eval_set_id and plan.eval_set_id != target.eval_set_id:
            continue
        for case in plan.cases:
            if case.eval_id != target.case_id:
                continue
            planned = next(p for p in plan.metrics if p.metric.metric_name == target.metric_name)
            subject = plan_subject(plan, case, planned, prepared.traces, target.run_id)
            scored = score_explained(subject, api.judge_options(options))
            name = subject.metric.metric_name
            others = [m.metric_name for m in plan.all_metrics if m.metric_name != name]
            source = f"eval set {plan.path} with metrics {plan.metrics_path}"
            verdict = partial(_planned_case, others=others)
            explanation = build_explanation(source, subject, scored, target, verdict)
            explanation.warnings = list(prepared.warnings)
            return explanation
    raise _unknown(", ".join(specs), "case", target.case_id, [])


# --- saved results -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Found:
    """The saved case a target names: its file, the case and how its eval set marks it."""

    source: str
    case: EvalCaseResult
    # The eval set's ``judgeFailures`` (aggregation.incomplete_ids reads it).
    marked: list[str] | int | None
    warnings: list[Problem]
    # Where the case result is in its file (``evalCaseResults[3]``).
    where: str = ""


def _in_several_sets(given: str, what: str, sets: Sequence[str]) -> ConfigError:
    """The case is in several eval sets and ``--eval-set`` picks none of them."""
    message = f"{what} is in several eval sets: {first_named(list(sets))}"
    return ConfigError([Problem(given, "", message, "pass --eval-set ID")])


def _several(
    paths: Sequence[str],
    found: Sequence[tuple[str, str, EvalCaseResult, object]],
    target: Target,
    named: Callable[[str], str],
) -> ConfigError:
    """The case is in more than one place: by eval set when they differ (``--eval-set``
    picks one), else by file (only passing one file picks it); a file that holds it twice
    (a run document of the same eval set run twice) names its places in it."""
    sets = sorted({case.eval_set_id for _, _, case, _ in found})
    what = f"case {target.case_id!r} (run {target.run_id})"
    given = first_named([named(path) for path in paths])
    if len(sets) > 1 and target.eval_set_id is None:
        return _in_several_sets(given, what, sets)
    places: dict[str, list[str]] = {}
    for source, where, _, _ in found:
        places.setdefault(named(source), []).append(where)
    if all(len(wheres) == 1 for wheres in places.values()):
        files = first_named(list(places))
        message = f"{what} of eval set {sets[0]} is in {len(found)} results: {files}"
        return ConfigError([Problem(given, "", message, "pass the one result file to explain")])
    listed = first_named(
        [f"{file} at {first_named(wheres)}" for file, wheres in places.items()], "; "
    )
    problem = Problem(
        given,
        "",
        f"{what} of eval set {sets[0]} appears {len(found)} times: {listed}",
        f"eval set {sets[0]} was run more than once into one document: explain the result "
        "file of one of those runs, which run --output DIR writes for each",
    )
    return ConfigError([problem])


def _place(where: str, index: int) -> str:
    """Where case result ``index`` of a result at ``where`` is (``evalSetResults[1]…[2]``)."""
    from agenteval.inputs import locations
    from agenteval.inputs.result_scan import CASES_KEY

    return locations.join(where, CASES_KEY, index)


def _find_case(
    paths: Sequence[str], target: Target, named: Callable[[str], str] | None = None
) -> _Found:
    """The saved case ``target`` names, its file, and what reading it warned of."""
    from agenteval.inputs.result_inputs import read_parts, reading_warnings

    found: list[tuple[str, str, EvalCaseResult, list[str] | int | None]] = []
    known: list[str] = []
    runs: set[int] = set()  # the runs saved of the case
    parts = read_parts(paths)
    held = list(dict.fromkeys(part.eval_set_id for part in parts))
    if target.eval_set_id and target.eval_set_id not in held:
        raise _unknown(", ".join(paths), "eval set", target.eval_set_id, held)
    for part in parts:
        if target.eval_set_id and part.eval_set_id != target.eval_set_id:
            continue
        known.extend(i for i in part.eval_ids if i not in known)
        runs.update(
            run or 1
            for eval_id, run in zip(part.eval_ids, part.run_ids, strict=True)
            if eval_id == target.case_id
        )
        wanted = [
            i
            for i, (eval_id, run) in enumerate(zip(part.eval_ids, part.run_ids, strict=True))
            if eval_id == target.case_id and (run or 1) == target.run_id
        ]
        marked = part.head.judge_failures
        found.extend(
            (part.source, _place(part.where, index), case, marked)
            for index, case in zip(wanted, part.cases(indices=wanted), strict=True)
        )
    if not found and runs:
        # Not "no case 'x' (did you mean 'x'?)": the case is there, the run is not.
        saved = ", ".join(str(run) for run in sorted(runs))
        message = f"case {target.case_id!r} has no run {target.run_id}"
        raise ConfigError([Problem(", ".join(paths), "", message, f"its runs: {saved}")])
    if not found:
        raise _unknown(", ".join(paths), f"case (run {target.run_id})", target.case_id, known)
    if len(found) > 1:
        raise _several(paths, found, target, named or str)
    source, where, case, marked = found[0]
    return _Found(source, case, marked, reading_warnings(parts), where)


def _saved_case_status(case: EvalCaseResult, marked: list[str] | int | None) -> EvalStatus:
    """The saved case's status as every report reads it (aggregation.case_statuses): its
    finalEvalStatus, failed when not evaluated with an error, incomplete when its eval set
    marks it or a metric of it was not evaluated."""
    from agenteval.results.aggregation import case_statuses
    from agenteval.schema.result import EvalSetResult

    alone = EvalSetResult(
        eval_set_id=case.eval_set_id, eval_case_results=[case], judge_failures=marked
    )
    return case_statuses(alone)[case.eval_id]


def _checked_metrics(metrics_file: str, warnings: list[Problem]) -> list[EvalMetric]:
    """The metric file read and checked as ``run`` reads it (misspelt keys are errors,
    unknown ones warnings, added to ``warnings``); plugins are loaded already."""
    from agenteval.api.files import load_metrics

    # Read once: read again by the model reader alone, a file whose invalid UTF-8 the
    # check read as U+FFFD (with its warning) was then refused as "not UTF-8 text".
    try:
        return load_metrics(metrics_file, warnings=warnings)
    except ConfigError as exc:
        raise ConfigError(exc.problems, [*warnings, *exc.warnings]) from None


def _no_threshold(
    file: str, where: str, case: EvalCaseResult, chosen: EvalMetricResult
) -> ConfigError:
    """A saved metric result without ``threshold`` (Go always writes it; a hand-edited or
    foreign file): scored against the model's 0 it read as passed, labelled as the file's."""
    from agenteval.inputs import locations

    index = (case.overall_eval_metric_results or []).index(chosen)
    path = locations.join(where, "overallEvalMetricResults", index)
    message = (
        f"the saved result of metric {chosen.metric_name!r} has no threshold to score it against"
    )
    hint = "pass --metrics FILE, the metric file that defines it"
    return ConfigError([Problem(file, path, message, hint)])


def _saved_metric(
    case: EvalCaseResult,
    target: Target,
    metrics_file: str | None,
    file: str,
    warnings: list[Problem] | None = None,
    where: str = "",
) -> tuple[EvalMetric, str | None, EvalMetricResult]:
    """The metric to score ``target`` by, where it is defined (None: the saved result) and
    its saved result; a ConfigError when the saved result cannot say its threshold."""
    saved = [m for m in case.overall_eval_metric_results or () if m is not None]
    chosen = next((m for m in saved if m.metric_name == target.metric_name), None)
    if chosen is None:
        raise _unknown(file, "metric", target.metric_name, [m.metric_name for m in saved])
    if metrics_file is not None:
        metrics = _checked_metrics(metrics_file, warnings if warnings is not None else [])
        names = [m.metric_name for m in metrics]
        if target.metric_name not in names:
            raise _unknown(metrics_file, "metric", target.metric_name, names)
        index = names.index(target.metric_name)
        return metrics[index], f"{metrics_file}: [{index}]", chosen
    if "threshold" not in chosen.model_fields_set:
        raise _no_threshold(file, where, case, chosen)
    metric = EvalMetric(
        metric_name=chosen.metric_name, threshold=chosen.threshold, criterion=chosen.criterion
    )
    return metric, None, chosen


def _turn_detail_keys(case: EvalCaseResult, metric_name: str) -> set[str]:
    keys: set[str] = set()
    for turn in case.eval_metric_result_per_invocation or ():
        for result in turn.eval_metric_results or ():
            if result.metric_name == metric_name and result.details is not None:
                keys.update(result.details.model_extra or {})
    return keys


def _saved_evaluator(metric: EvalMetric, case: EvalCaseResult, file: str) -> Evaluator:
    """The evaluator of a saved metric: result files do not name it, so infer it or ask.

    By name (a metric named after its evaluator), else by the one evaluator the criterion
    and the saved details fit: ``finalResponse`` alone is ``final_response_avg_score``,
    ``toolTrajectory`` alone the trajectory score (its F1 when the details hold
    ``trajectoryF1``).  Anything else needs the metric file (``--metrics``).
    """
    if metric.evaluator_name:
        return _evaluator(metric.evaluator_name, file)
    if metric.metric_name in evaluators:
        return _evaluator(metric.metric_name, file)
    criterion = metric.criterion
    parts = (
        set()
        if criterion is None
        else {
            name
            for name in ("tool_trajectory", "final_response", "llm_judge")
            if getattr(criterion, name) is not None
        }
    )
    if parts == {"final_response"}:
        return _evaluator("final_response_avg_score", file)
    if parts == {"tool_trajectory"}:
        f1 = "trajectoryF1" in _turn_detail_keys(case, metric.metric_name)
        return _evaluator("tool_trajectory_f1" if f1 else "tool_trajectory_avg_score", file)
    raise ConfigError(
        [
            Problem(
                file,
                "",
                f"the result does not say which evaluator scored {metric.metric_name!r}",
                "pass --metrics FILE, the metric file that defines it",
            )
        ]
    )


def evaluator_is_saved(case: EvalCaseResult, metric_name: str) -> bool:
    """Whether a saved result alone tells which evaluator scored ``metric_name`` of ``case``
    (:func:`_saved_evaluator`), so ``agenteval explain RESULT`` needs no ``--metrics``."""
    target = Target(case.eval_id, metric_name, case.run_id or 1)
    try:
        metric, _, _ = _saved_metric(case, target, None, "")
        _saved_evaluator(metric, case, "")
    except ConfigError:
        return False
    return True


def _saved_subject(
    case: EvalCaseResult,
    metric: EvalMetric,
    evaluator: Evaluator,
    located: str | None,
    file: str,
) -> Subject:
    """The saved turns and criterion of one metric of a case result, ready to score."""
    turns = case.eval_metric_result_per_invocation or []
    actuals = [t.actual_invocation or Invocation() for t in turns]
    expecteds = [t.expected_invocation or Invocation() for t in turns]
    subject = Subject(
        case.eval_set_id,
        EvalCase(eval_id=case.eval_id, conversation=list(expecteds)),
        case.run_id or 1,
        metric,
        evaluator,
        actuals,
        expecteds,
        resolve_criterion(metric, evaluator.name, located),
    )
    if located is None:
        for index, item in enumerate(subject.criterion):
            if item.source == "given":
                subject.criterion[index] = CriterionField(
                    item.path, item.value, f"saved result ({file})", item.note
                )
    return subject


def _explained_saved(
    file: str,
    case: EvalCaseResult,
    subject: Subject,
    scored: Scored,
    saved: EvalMetricResult,
    target: Target,
    marked: list[str] | int | None = None,
) -> Explanation:
    verdict = partial(_saved_case, case=case, saved_status=_saved_case_status(case, marked))
    explanation = build_explanation(f"result {file}", subject, scored, target, verdict)
    reason = saved.details.reason if saved.details is not None else ""
    explanation.saved = SavedScore(saved.score, saved.eval_status.value, reason)
    if abs(saved.score - explanation.metric.score) > 1e-9 or (
        saved.eval_status.value != explanation.metric.status
    ):
        explanation.notes.append(
            f"the saved result says {exact_number(saved.score)} {saved.eval_status.value}; scored again "
            f"it gives {exact_number(explanation.metric.score)} {explanation.metric.status} "
            "(the metric, a plugin or a judge reply changed since); the case verdict is "
            "the run's, from the saved score"
        )
    return explanation


def explain_result(
    paths: Sequence[str],
    target: Target,
    judge: JudgeOptions,
    metrics_file: str | None = None,
    named: Callable[[str], str] | None = None,
) -> Explanation:
    """Score ``target`` again from a saved result, every step recorded (``named``: how the
    file read is named in what is shown, when not by its path)."""
    found = _find_case(paths, target, named)
    case = found.case
    file = named(found.source) if named is not None else found.source
    warnings = list(found.warnings)
    metric, located, saved = _saved_metric(case, target, metrics_file, file, warnings, found.where)
    evaluator = _saved_evaluator(metric, case, metrics_file or file)
    subject = _saved_subject(case, metric, evaluator, located, file)
    scored = score_explained(subject, judge)
    explanation = _explained_saved(file, case, subject, scored, saved, target, found.marked)
    explanation.warnings = warnings
    return explanation


def explain_case_metric(
    case: EvalCaseResult, metric_name: str, file: str = "the report"
) -> Explanation | None:
    """Explain one metric of a case result without any judge; None when that is not possible.

    For the HTML report: deterministic evaluators only (the comparison runs again from
    the saved turns and criterion, the judge never), and only where the result says which
    evaluator scored the metric (see :func:`_saved_evaluator`).
    """
    target = Target(case.eval_id, metric_name, case.run_id or 1)
    try:
        metric, located, saved = _saved_metric(case, target, None, file)
        evaluator = _saved_evaluator(metric, case, file)
    except ConfigError:
        return None
    if evaluator.needs_judge or evaluator.is_async:
        return None
    subject = _saved_subject(case, metric, evaluator, located, file)
    return _explained_saved(file, case, subject, score_explained(subject, None), saved, target)
