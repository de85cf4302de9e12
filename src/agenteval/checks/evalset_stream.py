"""Every check of one eval set file, case by case: the file is never parsed or modelled whole.

The checks and their messages are those of the whole-document path
(:mod:`.documents`, :func:`agenteval.inputs.loading.parse_evalset`, :mod:`.cross_file`,
:mod:`.case_layout`), run on one case at a time as :mod:`agenteval.inputs.evalset_scan`
reads it, and the problems are put back in the order that path reports them:
non-finite numbers and unknown keys in document order, the case rules, then
(after the metric file's own problems, which the caller adds) the regex
patterns metric by metric, the evaluators' per-case checks and the layouts.

What this pass cannot report exactly it hands back (``None``): a file of
another kind, an ADK-looking turn, a case or top-level field that does not
validate (its messages come from validating the document whole), anything the
scanner refuses.  The caller then reads the file whole, as before; so a broken
file costs what it always did, and a valid one never holds more than one case.

Tested in tests/checks/test_evalset_stream.py.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from agenteval.checks.case_layout import case_layout_problem
from agenteval.checks.cross_file import (
    Findings,
    case_checkers,
    case_regex_problems,
    check_case,
    regex_targets,
)
from agenteval.checks.trace_match import trace_mismatch_problem
from agenteval.errors import Problem
from agenteval.inputs.evalset_file import CaseRules
from agenteval.inputs.evalset_scan import EvalSetScan, NotStreamable
from agenteval.inputs.file_kind import FileKind, kind_of
from agenteval.inputs.finite_numbers import non_finite_numbers
from agenteval.inputs.foreign_files import adk_case, kind_of_data
from agenteval.inputs.lazy_cases import LazyCases, OwnTurns, note
from agenteval.inputs.unknown_keys import (
    Strictness,
    case_unknown_keys,
    evalset_unknown_keys,
    sort_unknown,
)
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation
from agenteval.schema.metric import EvalMetric

# kind_of looks at this many cases (file_kind._SAMPLED_CASES); a copy of them is kept.
_SAMPLED = 20


@dataclass(slots=True)
class StreamedEvalSet:
    """The outcome of checking one eval set file case by case."""

    evalset: EvalSet  # its top-level fields; no cases
    cases: LazyCases
    # Before the metric file's problems (document checks, case rules) and after them.
    head: Findings = field(default_factory=Findings)
    tail: Findings = field(default_factory=Findings)


@dataclass(slots=True)
class _Buckets:
    """Problems found case by case, kept apart until they are put in the whole path's order."""

    non_finite: list[Problem] = field(default_factory=list)
    unknown: list[Problem] = field(default_factory=list)
    regex: list[list[Problem]] = field(default_factory=list)
    layouts: list[Problem] = field(default_factory=list)
    mismatched: list[Problem] = field(default_factory=list)
    checked: Findings = field(default_factory=Findings)


def check_evalset_stream(
    data: bytes,
    file: str,
    strictness: Strictness,
    *,
    all_metrics: Sequence[EvalMetric],
    selected: Sequence[EvalMetric],
    metrics_file: str,
    traces: Mapping[str, list[Invocation]] | None,
    num_runs: int = 1,
) -> StreamedEvalSet | None:
    """Check the eval set ``data`` (the file's bytes) case by case; None: read it whole instead."""
    scan = EvalSetScan(data)
    rules = CaseRules(file)
    found = _Buckets()
    targets = regex_targets(selected)
    found.regex = [[] for _ in targets]
    checkers = case_checkers(selected)
    sample: list[Any] = []
    spans = array("q")
    ids: list[str] = []
    trace_mode: set[str] = set()
    conversation: set[str] = set()
    try:
        for scanned in scan.cases():
            index, raw = scanned.index, scanned.data
            if index < _SAMPLED:
                sample.append(raw)
            if raw is None:
                continue
            if adk_case(raw):
                return None  # ADK turns: the whole path names the format
            case = EvalCase.model_validate(raw)
            found.non_finite.extend(
                non_finite_numbers(raw, file, scanned.text, ("evalCases", index))
            )
            found.unknown.extend(case_unknown_keys(raw, file, index))
            rules.add(index, case.eval_id, case.eval_mode)
            for bucket, target in zip(found.regex, targets, strict=True):
                bucket.extend(case_regex_problems(target, index, case, file, metrics_file))
            if checkers:
                check_case(index, case, file, all_metrics, checkers, found.checked)
            layout = case_layout_problem(index, case, file, traces)
            if layout is not None:
                found.layouts.append(layout)
            mismatch = trace_mismatch_problem(index, case, file, traces, num_runs)
            if mismatch is not None:
                found.mismatched.append(mismatch)
            spans.extend((scanned.start, scanned.end, index))
            ids.append(case.eval_id)
            note(case, trace_mode, conversation)
    except (NotStreamable, ValidationError):
        return None
    head = _top_level(scan, sample, file)
    if head is None:
        return None
    evalset, non_finite_before, non_finite_after, unknown_before, unknown_after = head
    non_finite = non_finite_before + found.non_finite + non_finite_after
    unknown = unknown_before + found.unknown + unknown_after
    own_turns = OwnTurns(frozenset(trace_mode), frozenset(conversation))
    result = StreamedEvalSet(evalset, LazyCases(data, spans, ids, own_turns=own_turns))
    errors, warnings = sort_unknown(unknown, strictness)
    result.head.problems = non_finite + errors + rules.problems
    result.head.warnings = warnings
    result.tail.problems = [p for bucket in found.regex for p in bucket]
    result.tail.problems += found.checked.problems + found.layouts
    result.tail.warnings = found.checked.warnings
    # A trace of another question: a warning, an error under --strict (checks/trace_match.py).
    (result.tail.problems if strictness.strict else result.tail.warnings).extend(found.mismatched)
    return result


def _top_level(
    scan: EvalSetScan, sample: list[Any], file: str
) -> tuple[EvalSet, list[Problem], list[Problem], list[Problem], list[Problem]] | None:
    """The top-level fields checked: None when the file is not plainly an eval set."""
    skeleton = {**scan.before, "evalCases": sample, **scan.after}
    if kind_of(skeleton) is not FileKind.EVALSET:
        return None
    if kind_of_data({**scan.before, **scan.after, "evalCases": []}) is not None:
        return None
    try:
        evalset = EvalSet.model_validate({**scan.before, **scan.after})
    except ValidationError:
        return None
    return (
        evalset,
        non_finite_numbers(scan.before, file),
        non_finite_numbers(scan.after, file),
        evalset_unknown_keys(scan.before, file),
        evalset_unknown_keys(scan.after, file),
    )
