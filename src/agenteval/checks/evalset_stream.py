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

import json
import re
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from agenteval.checks.case_layout import case_layout_problem
from agenteval.checks.cross_file import (
    CaseChecker,
    Findings,
    RegexTarget,
    case_checkers,
    case_regex_problems,
    check_case,
    regex_targets,
)
from agenteval.checks.trace_match import trace_mismatch_problem
from agenteval.errors import Problem
from agenteval.inputs.duplicate_keys import duplicate_problems
from agenteval.inputs.evalset_file import CaseRules
from agenteval.inputs.evalset_scan import EvalSetScan, NotStreamable, ScannedCase
from agenteval.inputs.file_kind import FileKind, kind_of
from agenteval.inputs.finite_numbers import non_finite_numbers
from agenteval.inputs.foreign_files import adk_case, kind_of_data
from agenteval.inputs.lazy_cases import LazyCases, OwnTurns, note
from agenteval.inputs.unknown_keys import (
    Strictness,
    case_unknown_keys,
    closed_case,
    evalset_unknown_keys,
    sort_unknown,
)
from agenteval.registry import own_code
from agenteval.results.share_workers import ShareWorker, can_fork, cpu_count
from agenteval.schema.evalset import EvalSet, Invocation
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
    repeated: list[Problem] = field(default_factory=list)  # keys given twice
    unknown: list[Problem] = field(default_factory=list)
    regex: list[list[Problem]] = field(default_factory=list)
    layouts: list[Problem] = field(default_factory=list)
    mismatched: list[Problem] = field(default_factory=list)
    checked: Findings = field(default_factory=Findings)


@dataclass(slots=True)
class _CaseChecks:
    """Every per-case check of one file, case after case (a worker's share too)."""

    file: str
    all_metrics: Sequence[EvalMetric]
    selected: Sequence[EvalMetric]
    metrics_file: str
    traces: Mapping[str, list[Invocation]] | None
    num_runs: int
    rules: CaseRules = field(init=False)
    found: _Buckets = field(default_factory=_Buckets)
    targets: list[RegexTarget] = field(init=False)
    checkers: list[CaseChecker] = field(init=False)
    sample: list[Any] = field(default_factory=list)
    spans: array[int] = field(default_factory=lambda: array("q"))
    ids: list[str] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)  # for a share's rules, checked later
    trace_mode: set[str] = field(default_factory=set)
    conversation: set[str] = field(default_factory=set)
    entries: int = 0  # evalCases entries checked (null ones too)

    def __post_init__(self) -> None:
        self.rules = CaseRules(self.file)
        self.targets = regex_targets(self.selected)
        self.found.regex = [[] for _ in self.targets]
        self.checkers = case_checkers(self.selected)

    def check(self, scanned: ScannedCase, index: int) -> bool:
        """Check the case at ``evalCases[index]``; False: the whole path names its format."""
        raw, file = scanned.data, self.file
        if index < _SAMPLED:
            self.sample.append(raw)
        self.entries = index + 1
        if raw is None:
            return True
        if adk_case(raw):
            return False  # ADK turns: the whole path names the format
        case, closed = closed_case(raw)
        found = self.found
        found.non_finite.extend(non_finite_numbers(raw, file, scanned.text, ("evalCases", index)))
        if scanned.repeated is not None:
            decoded, objects = scanned.repeated
            found.repeated.extend(duplicate_problems(decoded, objects, file, ("evalCases", index)))
        if not closed:
            found.unknown.extend(case_unknown_keys(raw, file, index))
        self.rules.add(index, case.eval_id, case.eval_mode)
        for bucket, target in zip(found.regex, self.targets, strict=True):
            bucket.extend(case_regex_problems(target, index, case, file, self.metrics_file))
        if self.checkers:
            check_case(index, case, file, self.all_metrics, self.checkers, found.checked)
        layout = case_layout_problem(index, case, file, self.traces)
        if layout is not None:
            found.layouts.append(layout)
        mismatch = trace_mismatch_problem(index, case, file, self.traces, self.num_runs)
        if mismatch is not None:
            found.mismatched.append(mismatch)
        self.spans.extend((scanned.start, scanned.end, index))
        self.ids.append(case.eval_id)
        self.modes.append(case.eval_mode)
        note(case, self.trace_mode, self.conversation)
        return True

    def clean(self) -> bool:
        """Whether no case checked found a problem or a warning (the evalId rules aside)."""
        found = self.found
        buckets = (found.non_finite, found.repeated, found.unknown, found.layouts, found.mismatched)
        return not (
            any(buckets) or any(found.regex) or found.checked.problems or found.checked.warnings
        )

    def absorb(self, share: _Share) -> None:
        """A worker's clean share, checked after every case here (its indices shifted)."""
        base = self.entries
        spans = share.spans
        for at, (eval_id, mode) in enumerate(zip(share.ids, share.modes, strict=True)):
            start, end, index = spans[3 * at], spans[3 * at + 1], spans[3 * at + 2] + base
            self.rules.add(index, eval_id, mode)
            self.spans.extend((start, end, index))
        self.ids.extend(share.ids)
        self.trace_mode |= share.trace_mode
        self.conversation |= share.conversation
        self.entries = base + share.entries


@dataclass(slots=True)
class _Share:
    """What a worker ships of the cases it checked (indices from its share's first)."""

    entries: int
    spans: array[int]
    ids: list[str]
    modes: list[str]
    trace_mode: set[str]
    conversation: set[str]
    after: dict[str, Any]  # the keys after evalCases (the last share's)


# A share of the checks is at least this many bytes of the file: less and the fork and
# the merge cost more than they save (2 MB are ~1,600 of the bench's cases, ~0.1 s).
SHARE_BYTES = 2 << 20
# Where one array entry ends and the next begins, as most writers lay an array out.
_BETWEEN_CASES = re.compile(rb"\}\s*,\s*\{")
_DECODER = json.JSONDecoder()
_OPENS_KEY = re.compile(rb'\s*"')  # what follows the "{" of an object with a key
# Where a window's end cut a value, its decoder stops this close to the end (a literal or a
# number it was reading); a string cut short is said "Unterminated" from where it starts.
_CUT_SLACK = 32


def _share_offsets(data: bytes, jobs: int, checkers: Sequence[CaseChecker]) -> list[int]:
    """Where the shares after the first start (guessed, see :func:`_case_start`); [] when
    the file is checked in this process only (``--jobs 1``, a small file, a plugin's checks)."""
    if jobs < 2 or not can_fork() or any(not own_code(e) for _, e in checkers):
        return []
    shares = min(jobs, cpu_count(), len(data) // SHARE_BYTES)
    offsets: list[int] = []
    for number in range(1, shares):
        start = _case_start(data, len(data) * number // shares)
        if start is not None and (not offsets or start > offsets[-1]):
            offsets.append(start)
    return offsets


def _case_start(data: bytes, after: int) -> int | None:
    """The first ``{`` past byte ``after`` that opens an object with an ``evalId`` right
    after a ``}`` and a comma: most likely a case.  Only a guess (the text could be inside
    a string): a share is taken only when the scan of the cases before it meets a case
    exactly there."""
    tried = 0
    for found in _BETWEEN_CASES.finditer(data, after):
        if not _OPENS_KEY.match(data, found.end()):
            continue  # no object starts here (`}, {\"a\"` in a string holding JSON text)
        tried += 1
        if tried > 64:
            return None
        start = found.end() - 1
        window = 1 << 16
        while True:
            text = data[start : start + window].decode("utf-8", "ignore")
            try:
                value, _ = _DECODER.raw_decode(text)
                break
            except json.JSONDecodeError as exc:
                # A wider window helps only a value cut short by this one: text that is no
                # JSON there (`}, {\"a\": 1}` in a string holding JSON) is not tried again
                # on ever more megabytes.
                cut = exc.pos >= len(text) - _CUT_SLACK or exc.msg.startswith("Unterminated")
                if not cut or start + window >= len(data) or window >= SHARE_BYTES:
                    value = None
                    break
                window *= 4
        if isinstance(value, dict) and "evalId" in value:
            return start
    return None


def _check_share(
    data: bytes, start: int, stop: int | None, checks: _CaseChecks
) -> Callable[[], _Share | None]:
    """A worker's job: check the cases from byte ``start`` to the one at ``stop`` (None: to
    the end, and the keys after them); None unless every case is clean and a case starts
    exactly at ``stop``."""

    def work() -> _Share | None:
        scan = EvalSetScan(data)
        met = stop is None
        for scanned in scan.cases_from(start):
            if stop is not None and scanned.start >= stop:
                met = scanned.start == stop
                break
            if not checks.check(scanned, scanned.index):
                return None
        if not met or not checks.clean():
            return None
        return _Share(
            checks.entries,
            checks.spans,
            checks.ids,
            checks.modes,
            checks.trace_mode,
            checks.conversation,
            scan.after,
        )

    return work


def _check_cases(
    scan: EvalSetScan, data: bytes, checks: _CaseChecks, fresh: Callable[[], _CaseChecks], jobs: int
) -> dict[str, Any] | None:
    """Check every case of ``scan``; the keys after them (None: the whole path reads the
    file).  With ``jobs`` > 1 and a large file, workers check the later shares meanwhile;
    a share is taken only when this scan meets a case exactly where it starts and its
    worker found nothing to say (else its cases are checked here), so the problems,
    warnings and their order are always those of one pass."""
    offsets = _share_offsets(data, jobs, checks.checkers)
    ends: list[int | None] = [*offsets[1:], None] if offsets else []
    workers = [
        ShareWorker.start(_check_share(data, start, stop, fresh()))
        for start, stop in zip(offsets, ends, strict=True)
    ]
    source, tail, base = scan.cases(), scan, 0  # tail: the scan that reads the end
    try:
        while True:
            held = None
            for scanned in source:
                if workers and scanned.start >= offsets[0]:
                    held = scanned
                    break
                if not checks.check(scanned, base + scanned.index):
                    return None
            if held is None:
                return tail.after
            taken, after = 0, {}
            if held.start == offsets[0] and checks.entries >= _SAMPLED:
                for worker in workers:
                    share = worker.result()
                    if not isinstance(share, _Share):
                        break
                    checks.absorb(share)
                    taken, after = taken + 1, share.after
            for worker in workers:
                worker.close()
            if taken == len(workers):
                return after
            if taken:
                # Share ``taken`` was not: its cases and the rest are checked here, from
                # its start (the share before met a case there).
                tail = EvalSetScan(data)
                source, base = tail.cases_from(offsets[taken]), checks.entries
            elif not checks.check(held, base + held.index):
                return None
            workers, offsets = [], []
    finally:
        for worker in workers:
            worker.close()


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
    jobs: int = 1,
) -> StreamedEvalSet | None:
    """Check the eval set ``data`` (the file's bytes) case by case; None: read it whole instead.

    ``jobs`` (``--jobs``): a large file's later shares are checked by forked workers."""
    scan = EvalSetScan(data)

    def fresh() -> _CaseChecks:
        return _CaseChecks(file, all_metrics, selected, metrics_file, traces, num_runs)

    checks = fresh()
    try:
        after = _check_cases(scan, data, checks, fresh, jobs)
    except (NotStreamable, ValidationError):
        return None
    if after is None or after.keys() & scan.before.keys():
        return None  # a key given twice: the scan of one pass refuses it too
    scan.after = after
    found = checks.found
    head = _top_level(scan, checks.sample, file)
    if head is None:
        return None
    evalset, non_finite_before, non_finite_after, unknown_before, unknown_after = head
    non_finite = non_finite_before + found.non_finite + non_finite_after
    # Keys given twice first, as the whole path says them (checks/documents.py).
    unknown = found.repeated + unknown_before + found.unknown + unknown_after
    own_turns = OwnTurns(frozenset(checks.trace_mode), frozenset(checks.conversation))
    result = StreamedEvalSet(
        evalset, LazyCases(data, checks.spans, checks.ids, own_turns=own_turns)
    )
    errors, warnings = sort_unknown(unknown, strictness)
    result.head.problems = non_finite + errors + checks.rules.problems
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
