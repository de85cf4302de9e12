"""JUnit XML report (``--junit FILE``) in the Jenkins / Maven Surefire dialect.

Layout::

    <testsuites name="agenteval" tests failures errors skipped time>
      <testsuite name=evalSetId tests failures errors skipped time [timestamp]>
        <properties> numRuns, evalSetResultId </properties>
        <testcase classname=evalSetId name=evalId>
          <failure message=… type="failed">…</failure>          (case status failed)
          <error message=… type="not_evaluated">…</error>       (case status not_evaluated)
          <system-out>per-run detail</system-out>               (several runs, not all passed)

One testcase per eval case whatever the number of runs: its outcome is the
case's in-memory status (:func:`agenteval.aggregation.case_statuses`), the
one that decides the exit code, so ``failures`` and ``errors`` equal the
run's failed and not-evaluated case counts.  ``skipped`` is always 0.

Times: results carry no per-case durations, so testcases have no ``time``.
A testsuite's ``time`` is the eval set result's ``durationSeconds`` extra key
when present (else 0); the root's is ``elapsed`` when the caller gives it,
else the sum of the suites'.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from agenteval.report.atomic_write import write_text_atomic
from agenteval.report.console import num_runs
from agenteval.report.outcomes import CaseOutcome, cap, case_outcomes
from agenteval.schema.result import EvalSetResult, extra
from agenteval.schema.status import EvalStatus

ROOT_NAME = "agenteval"
# Extra key of an EvalSetResult holding its wall time in seconds (read when present).
DURATION_KEY = "durationSeconds"
MESSAGE_CAP = 1000  # characters of the one-line message attribute
BODY_REASON_CAP = 2000  # characters of each reason in the element text

# Characters XML 1.0 cannot carry at all (controls, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _xml_safe(text: str) -> str:
    # Keep the information visible (\x1b) rather than dropping it or writing invalid XML.
    return _NOT_XML.sub(_escape_char, text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def suite_time(result: EvalSetResult) -> float:
    """Seconds an eval set took: its ``durationSeconds`` extra key, else 0."""
    value = extra(result).get(DURATION_KEY)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if math.isfinite(value) and value >= 0 else 0.0


class _Tally:
    """tests / failures / errors of a suite or of the whole report."""

    def __init__(self) -> None:
        self.tests = 0
        self.failures = 0
        self.errors = 0

    def add(self, status: EvalStatus) -> None:
        self.tests += 1
        if status is EvalStatus.FAILED:
            self.failures += 1
        elif status is not EvalStatus.PASSED:
            self.errors += 1

    def add_tally(self, other: _Tally) -> None:
        self.tests += other.tests
        self.failures += other.failures
        self.errors += other.errors

    def stamp(self, element: ET.Element, seconds: float) -> None:
        element.set("tests", str(self.tests))
        element.set("failures", str(self.failures))
        element.set("errors", str(self.errors))
        element.set("skipped", "0")
        element.set("time", _seconds(seconds))


def _body(outcome: CaseOutcome) -> str:
    if not outcome.multi_run:
        lines = outcome.unevaluated(BODY_REASON_CAP)
        lines += [s.text(BODY_REASON_CAP) for s in outcome.shortfalls()]
        lines += [f"error: {cap(e, BODY_REASON_CAP)}" for e in outcome.errors()]
        return "\n".join(lines) or outcome.headline()
    lines = [
        f"case {outcome.status.value} over {len(outcome.runs)} runs"
        " (metric scores averaged across runs decide)"
    ]
    lines += [s.text(BODY_REASON_CAP) for s in outcome.shortfalls()]
    lines.append("per run:")
    lines += outcome.run_lines(BODY_REASON_CAP)
    return "\n".join(lines)


def _testcase(parent: ET.Element, outcome: CaseOutcome) -> None:
    case = ET.SubElement(
        parent,
        "testcase",
        {"classname": _xml_safe(outcome.eval_set_id), "name": _xml_safe(outcome.eval_id)},
    )
    if outcome.status is EvalStatus.PASSED:
        if outcome.multi_run and any(
            run.final_eval_status is not EvalStatus.PASSED for run in outcome.runs
        ):
            # The case passed on average; the runs that did not are still worth seeing.
            out = ET.SubElement(case, "system-out")
            out.text = _xml_safe("\n".join(outcome.run_lines(BODY_REASON_CAP)))
        return
    tag = "failure" if outcome.status is EvalStatus.FAILED else "error"
    element = ET.SubElement(
        case,
        tag,
        {
            "message": _xml_safe(cap(outcome.headline(), MESSAGE_CAP)),
            "type": outcome.status.value,
        },
    )
    element.text = _xml_safe(_body(outcome))


def _testsuite(parent: ET.Element, result: EvalSetResult) -> tuple[_Tally, float]:
    suite = ET.SubElement(parent, "testsuite", {"name": _xml_safe(result.eval_set_id)})
    tally = _Tally()
    outcomes = case_outcomes(result)
    for outcome in outcomes:
        tally.add(outcome.status)
    seconds = suite_time(result)
    tally.stamp(suite, seconds)
    if result.creation_timestamp is not None and math.isfinite(result.creation_timestamp):
        moment = datetime.fromtimestamp(result.creation_timestamp, UTC)
        suite.set("timestamp", moment.strftime("%Y-%m-%dT%H:%M:%S"))
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "numRuns", "value": str(num_runs(result))})
    if result.eval_set_result_id:
        ET.SubElement(
            properties,
            "property",
            {"name": "evalSetResultId", "value": _xml_safe(result.eval_set_result_id)},
        )
    for outcome in outcomes:
        _testcase(suite, outcome)
    return tally, seconds


def junit_xml(
    results: Sequence[EvalSetResult], *, elapsed: float | None = None, name: str = ROOT_NAME
) -> str:
    """The JUnit XML document of a run: one testsuite per eval set, one testcase per case."""
    root = ET.Element("testsuites", {"name": _xml_safe(name)})
    total = _Tally()
    seconds = 0.0
    for result in results:
        tally, suite_seconds = _testsuite(root, result)
        total.add_tally(tally)
        seconds += suite_seconds
    total.stamp(root, elapsed if elapsed is not None else seconds)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(
    path: Path | str, results: Sequence[EvalSetResult], *, elapsed: float | None = None
) -> Path:
    """Atomically write :func:`junit_xml` of ``results`` to ``path``; returns the path."""
    return write_text_atomic(path, junit_xml(results, elapsed=elapsed))


__all__ = ["DURATION_KEY", "junit_xml", "suite_time", "write_junit"]
