"""Cross-file checks before anything runs: evaluator names, criteria, thresholds, regexes, filters."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agenteval.checks.thresholds import threshold_issues
from agenteval.criteria.text import compile_regex, go_lower
from agenteval.errors import Problem
from agenteval.evaluators.base import Evaluator
from agenteval.evaluators.registry import KNOWN_BUILTINS, evaluators
from agenteval.schema.case_rubrics import CaseRubricError, merged_rubrics, with_rubrics
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation
from agenteval.schema.metric import EvalMetric, TextCriterion


@dataclass(slots=True)
class Findings:
    """Problems stop the run; warnings are printed and the run goes on."""

    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def check_metrics(
    metrics: Sequence[EvalMetric], file: str, skip: set[str], found: Findings
) -> None:
    """Every metric must name a registered evaluator with a valid configuration."""
    for index, metric in enumerate(metrics):
        if metric.metric_name in skip or not metric.metric_name:
            continue
        base = f"[{index}]"
        evaluator = evaluators.get(metric.evaluator)
        key = "evaluatorName" if metric.evaluator_name else "metricName"
        if evaluator is None:
            closest = evaluators.closest(metric.evaluator)
            if metric.evaluator in KNOWN_BUILTINS:
                hint = (
                    f"not available in this build; skip it with --skip-metric {metric.metric_name}"
                )
            elif closest:
                hint = f"did you mean {closest!r}?"
            else:
                hint = "see `agenteval evaluators`"
            found.problems.append(
                Problem(file, f"{base}.{key}", f"unknown evaluator {metric.evaluator!r}", hint)
            )
            continue
        for issue in [*evaluator.check(metric), *threshold_issues(metric, evaluator)]:
            problem = Problem(file, f"{base}.{issue.path}", issue.message, issue.hint)
            (found.warnings if issue.warning else found.problems).append(problem)


def _regex_criteria(metric: EvalMetric) -> Iterator[tuple[str, TextCriterion]]:
    criterion = metric.criterion
    if criterion is None:
        return
    final = criterion.final_response
    if final and final.text and not final.text.ignore and final.text.match_strategy == "regex":
        yield "finalResponse", final.text
    trajectory = criterion.tool_trajectory
    if trajectory is None:
        return
    strategies = [trajectory.default_strategy, *(trajectory.tool_strategy or {}).values()]
    for strategy in strategies:
        name = strategy.name if strategy else None
        if name and not name.ignore and name.match_strategy == "regex" and not name.compare_name:
            yield "tools", name


def _patterns(turn: Invocation, target: str) -> Iterator[tuple[str, str]]:
    if target == "finalResponse":
        if turn.final_response is not None:
            yield "finalResponse.content", turn.final_response.content
    else:
        for index, tool in enumerate(turn.tools or ()):
            yield f"tools[{index}].name", tool.name


def check_regexes(
    evalset: EvalSet, file: str, metrics: Sequence[EvalMetric], metrics_file: str, found: Findings
) -> None:
    """With matchStrategy regex the expected text is a pattern: every one must compile."""
    for target in regex_targets(metrics):
        for case_index, case in enumerate(evalset.eval_cases):
            if case is not None:
                found.problems.extend(
                    case_regex_problems(target, case_index, case, file, metrics_file)
                )


RegexTarget = tuple[EvalMetric, str, TextCriterion]


def regex_targets(metrics: Sequence[EvalMetric]) -> list[RegexTarget]:
    """(metric, target, criterion) of every regex criterion of ``metrics``, in check order."""
    return [
        (metric, target, text) for metric in metrics for target, text in _regex_criteria(metric)
    ]


def case_regex_problems(
    regex: RegexTarget, case_index: int, case: EvalCase, file: str, metrics_file: str
) -> list[Problem]:
    """The patterns of ``evalCases[case_index]`` that one regex criterion cannot compile."""
    metric, target, text = regex
    problems: list[Problem] = []
    for turn_index, turn in enumerate(case.conversation or ()):
        if turn is None:
            continue
        for where, pattern in _patterns(turn, target):
            if text.case_insensitive:
                pattern = go_lower(pattern)  # as text.go lower-cases it: strings.ToLower
            try:
                compile_regex(pattern)
            except ValueError as exc:
                problems.append(
                    Problem(
                        file,
                        f"evalCases[{case_index}].conversation[{turn_index}].{where}",
                        f"invalid regex: {exc}",
                        f"metric {metric.metric_name!r} in {Path(metrics_file).name} "
                        "uses matchStrategy regex",
                    )
                )
    return problems


def check_cases(
    evalset: EvalSet,
    file: str,
    all_metrics: Sequence[EvalMetric],
    selected: Sequence[EvalMetric],
    found: Findings,
) -> None:
    """Each selected metric's per-case problems (``Evaluator.check_case``), in the eval set file."""
    checking = case_checkers(selected)
    if not checking:
        return
    for case_index, case in enumerate(evalset.eval_cases):
        if case is not None:
            check_case(case_index, case, file, all_metrics, checking, found)


CaseChecker = tuple[EvalMetric, Evaluator]


def case_checkers(selected: Sequence[EvalMetric]) -> list[CaseChecker]:
    """The selected metrics whose evaluator has per-case checks, with that evaluator."""
    return [
        (metric, evaluator)
        for metric in selected
        if (evaluator := evaluators.get(metric.evaluator)) is not None
        # Most evaluators have no per-case checks: skip the per-case work for them.
        and type(evaluator).check_case is not Evaluator.check_case
    ]


def check_case(
    case_index: int,
    case: EvalCase,
    file: str,
    all_metrics: Sequence[EvalMetric],
    checking: Sequence[CaseChecker],
    found: Findings,
) -> None:
    """``evalCases[case_index]`` through every checker of :func:`case_checkers`.

    The evaluator sees the case's effective metric (case rubrics merged); a case
    whose rubrics are invalid is skipped here, because the run reports it.
    """
    try:
        rubrics = merged_rubrics(case, all_metrics)
    except CaseRubricError:
        return
    for metric, evaluator in checking:
        if metric.metric_name in rubrics:
            metric = with_rubrics(metric, rubrics[metric.metric_name])
        for issue in evaluator.check_case(metric, case):
            hint = f"metric {metric.metric_name!r}" + (f": {issue.hint}" if issue.hint else "")
            problem = Problem(file, f"evalCases[{case_index}].{issue.path}", issue.message, hint)
            (found.warnings if issue.warning else found.problems).append(problem)


def check_filters(
    only_metrics: Sequence[str],
    skip_metrics: Sequence[str],
    cases: Sequence[str],
    metric_names: set[str],
    case_ids: set[str],
    found: Findings,
) -> None:
    """Every ``--metric``, ``--skip-metric`` and ``--case`` value must match something."""
    for flag, wanted, known in (
        ("--metric", only_metrics, metric_names),
        ("--skip-metric", skip_metrics, metric_names),
        ("--case", cases, case_ids),
    ):
        for name in wanted:
            if name not in known:
                found.problems.append(
                    Problem(flag, "", f"{name!r} matches nothing in the given files")
                )
