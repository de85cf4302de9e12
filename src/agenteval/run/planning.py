"""The planning of an eval set beside the runner: which cases and metrics a run scores.

:func:`plan_evalset` reads one eval set and its metric file, runs every up-front check
(``checks/``) and returns the :class:`~agenteval.run.runner.EvalSetPlan` the runner
scores; :class:`PlanRules` are the options planning reads (``api.prepare`` builds them).

Tested in tests/run/test_planning.py and tests/api/test_evaluation.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agenteval.checks.case_layout import check_case_layouts
from agenteval.checks.cross_file import Findings, check_cases, check_metrics, check_regexes
from agenteval.checks.documents import (
    check_evalset_text,
    check_metrics_document,
    json_lines_problem,
    parsed,
)
from agenteval.checks.evalset_stream import check_evalset_stream
from agenteval.checks.trace_match import trace_mismatch_problem
from agenteval.errors import ConfigError, Problem
from agenteval.evaluators.registry import KNOWN_BUILTINS, evaluators
from agenteval.inputs import loading
from agenteval.inputs.input_limits import input_file_problem
from agenteval.inputs.lazy_cases import LoadedCases, PlannedCases
from agenteval.inputs.unknown_keys import Strictness
from agenteval.results.fingerprints import digest_bytes, digest_file, fingerprint
from agenteval.run.runner import EvalSetPlan, PlannedMetric
from agenteval.schema.evalset import EvalSet, Invocation
from agenteval.schema.metric import EvalMetric


@dataclass(frozen=True, slots=True)
class PlanRules:
    """What planning reads of a run's options."""

    metrics: str | None = None  # --metrics: a file or a directory; None: beside each eval set
    strictness: Strictness = Strictness.DEFAULT  # --strict / --lenient
    num_runs: int = 1
    skip: frozenset[str] = frozenset()  # --skip-metric
    only: frozenset[str] = frozenset()  # --metric
    environ: Mapping[str, str] | None = field(default=None, hash=False)  # for ${VAR}
    jobs: int = 1  # --jobs: a large eval set's checks shared by forked workers


def metrics_path_for(evalset_path: Path, option: str | None) -> Path:
    """The metric file of an eval set: ``--metrics`` (a file, or a directory of them) or
    the one beside it."""
    if option is None:
        return loading.default_metrics_path(evalset_path)
    path = Path(option)
    if path.is_dir():
        return path / (loading.evalset_id_for(evalset_path) + loading.METRICS_SUFFIX)
    return path


def _read(path: Path, found: Findings) -> str | None:
    try:
        return loading.read_text(path, warnings=found.warnings)
    except ConfigError as exc:
        found.problems.extend(exc.problems)
        return None


def _document_ok(checked: tuple[bool, list[Problem], list[Problem]], found: Findings) -> bool:
    readable, problems, warnings = checked
    found.problems.extend(problems)
    found.warnings.extend(warnings)
    return readable


def _is_builtin_or_unknown(name: str) -> bool:
    """Only a plugin evaluator's criterion may hold keys of its own."""
    return name in KNOWN_BUILTINS or evaluators.get(name) is None


def _plan_metrics(
    metrics_path: Path, rules: PlanRules, found: Findings, seen_metric_files: set[Path] | None
) -> list[EvalMetric]:
    """The metrics of an eval set's metric file; its document is checked the first time only."""
    metrics: list[EvalMetric] = []
    if metrics_path.is_file() or rules.metrics is not None:
        metrics_text = _read(metrics_path, found)
        first_time = seen_metric_files is None or metrics_path.resolve() not in seen_metric_files
        if seen_metric_files is not None:
            seen_metric_files.add(metrics_path.resolve())
        metrics_data = parsed(metrics_text) if metrics_text is not None else None
        lines = None
        if metrics_text is not None and metrics_data is None:
            lines = json_lines_problem(metrics_text, str(metrics_path), metrics=True)
        if lines is not None:
            if first_time:
                found.problems.append(lines)
        elif metrics_text is not None and (
            not first_time
            or metrics_data is None
            or _document_ok(
                check_metrics_document(
                    metrics_data,
                    str(metrics_path),
                    rules.strictness,
                    builtin=_is_builtin_or_unknown,
                    text=metrics_text,
                ),
                found,
            )
        ):
            metrics, metric_problems = loading.parse_metrics(
                metrics_text, str(metrics_path), rules.environ
            )
            found.problems.extend(metric_problems)
            if first_time and not metrics and not metric_problems:
                found.warnings.append(_no_metrics(metrics_path))
    else:
        found.warnings.append(
            Problem(
                str(metrics_path),
                "",
                "metric file not found; every case will be not_evaluated",
                "pass --metrics PATH",
            )
        )
    return metrics


def _no_metrics(path: Path) -> Problem:
    """The warning for a metric file that parses but names no metric (``[]``, ``null``):
    the run would score nothing and say only 'not evaluated', as without a metric file."""
    return Problem(
        str(path),
        "",
        "the metric file holds no metric; every case will be not_evaluated",
        "list metrics in it: `agenteval evaluators` names the evaluators",
    )


def checked_metrics_file(
    path: Path, rules: PlanRules
) -> tuple[list[EvalMetric], list[Problem], list[Problem]]:
    """(metrics, problems, warnings) of a metric file read on its own, as a run reads it
    (no eval set); ``agenteval.load_metrics`` returns its metrics."""
    found = Findings(problems=[])
    metrics = _plan_metrics(path, dataclasses.replace(rules, metrics=str(path)), found, None)
    if not found.problems:
        check_metrics(metrics, str(path), set(rules.skip), found)
    return metrics, found.problems, found.warnings


def check_metrics_file(path: Path, rules: PlanRules) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings) of a metric file read on its own, as a run reads it (no eval set)."""
    _, problems, warnings = checked_metrics_file(path, rules)
    return problems, warnings


def plan_evalset(
    path: Path,
    rules: PlanRules,
    found: Findings,
    traces: Mapping[str, list[Invocation]] | None = None,
    seen_metric_files: set[Path] | None = None,
) -> EvalSetPlan | None:
    """The plan of one eval set, every file, metric and case checked into ``found``.

    The file is checked a case at a time as it is read (``checks/evalset_stream.py``);
    only a file that pass cannot report exactly (another kind of file, a case that does
    not validate, anything the scanner refuses) is read whole, for its messages.
    """
    streamed, plan = _plan_streamed(path, rules, found, traces, seen_metric_files)
    if streamed:
        return plan
    text = _read(path, found)
    if text is None:
        return None
    readable, evalset, problems, warnings = check_evalset_text(text, str(path), rules.strictness)
    found.problems.extend(problems)
    found.warnings.extend(warnings)
    if not readable:
        return None
    metrics_path = metrics_path_for(path, rules.metrics)
    metrics = _plan_metrics(metrics_path, rules, found, seen_metric_files)
    check_metrics(metrics, str(metrics_path), set(rules.skip), found)
    if evalset is None:
        return None
    selected = _selected(metrics, rules)
    check_regexes(evalset, str(path), selected, str(metrics_path), found)
    check_cases(evalset, str(path), metrics, selected, found)
    found.problems.extend(check_case_layouts(evalset, str(path), traces))
    mismatched = [
        p
        for index, case in enumerate(evalset.eval_cases)
        if case is not None
        and (p := trace_mismatch_problem(index, case, str(path), traces, rules.num_runs))
    ]
    # A trace of another question: a warning, an error under --strict (checks/trace_match.py).
    (found.problems if rules.strictness.strict else found.warnings).extend(mismatched)
    cases = LoadedCases.of_evalset(evalset)
    try:
        digest = digest_file(path)
    except OSError as exc:  # read a moment ago; gone or unreadable since
        found.problems.append(Problem(str(path), "", f"cannot read: {exc.strerror}"))
        return None
    return _plan(path, evalset, cases, metrics, selected, metrics_path, found, digest)


def _plan_streamed(
    path: Path,
    rules: PlanRules,
    found: Findings,
    traces: Mapping[str, list[Invocation]] | None,
    seen_metric_files: set[Path] | None,
) -> tuple[bool, EvalSetPlan | None]:
    """Plan an eval set checked case by case, never parsed whole; (False, None): read it whole."""
    if input_file_problem(path) is not None:
        return False, None  # read_text says why
    try:
        data = path.read_bytes()
    except OSError:
        return False, None  # read_text says why
    metrics_path = metrics_path_for(path, rules.metrics)
    # The metric file is read first here (the cases' checks need it) into findings of its own,
    # placed where the whole path puts them; nothing is kept if the file is read whole after all.
    metric_found = Findings()
    seen = set(seen_metric_files) if seen_metric_files is not None else None
    metrics = _plan_metrics(metrics_path, rules, metric_found, seen)
    check_metrics(metrics, str(metrics_path), set(rules.skip), metric_found)
    selected = _selected(metrics, rules)
    streamed = check_evalset_stream(
        data,
        str(path),
        rules.strictness,
        all_metrics=metrics,
        selected=selected,
        metrics_file=str(metrics_path),
        traces=traces,
        num_runs=rules.num_runs,
        jobs=rules.jobs,
    )
    if streamed is None:
        return False, None
    if seen_metric_files is not None and seen is not None:
        seen_metric_files.update(seen)
    for part in (streamed.head, metric_found, streamed.tail):
        found.problems.extend(part.problems)
        found.warnings.extend(part.warnings)
    return True, _plan(
        path,
        streamed.evalset,
        streamed.cases,
        metrics,
        selected,
        metrics_path,
        found,
        digest_bytes(data),
    )


def _selected(metrics: list[EvalMetric], rules: PlanRules) -> list[EvalMetric]:
    skip, only = rules.skip, rules.only
    return [m for m in metrics if m.metric_name not in skip and (not only or m.metric_name in only)]


def _plan(
    path: Path,
    evalset: EvalSet,
    cases: PlannedCases,
    metrics: list[EvalMetric],
    selected: list[EvalMetric],
    metrics_path: Path,
    found: Findings,
    digest: str,
) -> EvalSetPlan:
    """The plan of a checked eval set (``evalset``: its top-level fields; ``digest``: its
    file's, for the fingerprint, which :func:`prepare` completes)."""
    eval_set_id = loading.evalset_id_for(path)
    if evalset.eval_set_id and evalset.eval_set_id != eval_set_id:
        found.warnings.append(
            Problem(
                str(path),
                "evalSetId",
                f"{evalset.eval_set_id!r} differs from the file name; results use {eval_set_id!r}",
            )
        )
    planned = []
    for metric in selected:
        evaluator = evaluators.get(metric.evaluator)
        if evaluator is not None:
            planned.append(PlannedMetric(metric, evaluator))
    return EvalSetPlan(
        path=path,
        eval_set_id=eval_set_id,
        cases=cases,
        metrics=planned,
        all_metrics=metrics,
        metrics_path=metrics_path,
        fingerprint=fingerprint(digest, (p.metric for p in planned)),
    )


__all__ = [
    "PlanRules",
    "check_metrics_file",
    "checked_metrics_file",
    "metrics_path_for",
    "plan_evalset",
]
