"""JUnit XML report (``--junit FILE``) in the Jenkins / Maven Surefire dialect.

Layout::

    <testsuites name="agenteval" tests failures errors skipped time>
      <testsuite name=evalSetId tests failures errors skipped time [timestamp]>
        <properties> numRuns, evalSetResultId, warnings, judgeUsage, agentUsage </properties>
        <testcase classname=evalSetId name=evalId>
          <failure message=… type="failed">…</failure>          (case status failed)
          <error message=… type="not_evaluated">…</error>       (case status not_evaluated)
          <system-out>per-run detail</system-out>               (several runs, not all passed)
        <system-err>warning: file: path: message …</system-err>   (the run's warnings, first suite)

One testcase per eval case whatever the number of runs: its outcome is the
case's in-memory status (:func:`agenteval.results.aggregation.case_statuses`), the
one that decides the exit code, so ``failures`` and ``errors`` equal the
run's failed and not-evaluated case counts.  ``skipped`` is always 0.

A run left unfinished (interrupted, a judge call for no case failed: INCOMPLETE, exit 3,
whatever its finished cases say) has one more testsuite, ``agenteval run``, whose one
testcase is an ``<error type="incomplete">`` saying why, counted in the root's totals.

The run's warnings (never hidden, a flood of one kind collapsed as on the console)
are the ``system-err`` of the first testsuite, one ``warning: …`` line each, and its
``warnings`` property counts them: JUnit has no run-level output element.

What the judge and the agent under test spent on an eval set are its ``judgeUsage`` and
``agentUsage`` properties, worded as on the console and in the Markdown summary
(``12 calls, 3 from cache, … · $0.0123``; a cost without a price says so, never $0).

The document is written piece by piece from :class:`SetReport` objects
(:func:`junit_chunks`), one testcase at a time, in the layout and with the
escaping ElementTree (``ET.indent``, ``ET.tostring``) gave it: no tree of
100,000 elements is ever built.

Times: results carry no per-case durations, so testcases have no ``time``.
A testsuite's ``time`` is the eval set result's ``durationSeconds`` extra key
when present (else 0); the root's is ``elapsed`` when the caller gives it,
else the sum of the suites'.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Unpack

from agenteval.inputs.safe_text import BIDI_CONTROLS
from agenteval.report.agent_cost import agent_usage_text
from agenteval.report.atomic_write import StreamedFile
from agenteval.report.judge_cost import judge_usage_text
from agenteval.report.outcomes import OutcomeText, cap
from agenteval.report.run_notes import NO_NOTES, RunFacts, RunNotes
from agenteval.report.set_tally import DURATION_KEY, SetReport, set_report, suite_time
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus

ROOT_NAME = "agenteval"
# The testsuite and testcase of a run left unfinished (interrupted, a judge call failed).
UNFINISHED_SUITE = "agenteval run"
UNFINISHED_CASE = "run finished"
MESSAGE_CAP = 1000  # characters of the one-line message attribute
BODY_REASON_CAP = 2000  # characters of each reason in the element text
# Bytes of XML gathered before one write to the file.
_WRITE_CHUNK = 1 << 16

# Characters XML 1.0 cannot carry at all (controls, lone surrogates, U+FFFE/U+FFFF), and
# the bidi controls that would reorder what a CI page shows (escaped as on the console).
_NOT_XML = re.compile(f"[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[{BIDI_CONTROLS}]")
# What ElementTree escapes in attribute values and in text, and how (the document is
# written piece by piece, in ElementTree's own layout, instead of built as one tree).
_ATTRIBUTE_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\r": "&#13;",
        "\n": "&#10;",
        "\t": "&#09;",
    }
)
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_INDENT = "  "


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _xml_safe(text: str) -> str:
    # Keep the information visible (\x1b) rather than dropping it or writing invalid XML.
    return _NOT_XML.sub(_escape_char, text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _attributes(pairs: Sequence[tuple[str, str]]) -> str:
    return "".join(f' {key}="{value.translate(_ATTRIBUTE_ESCAPES)}"' for key, value in pairs)


def _element(level: int, tag: str, pairs: Sequence[tuple[str, str]], text: str = "") -> str:
    """One childless element on its own indented line (ElementTree's ``<tag a="v" />``)."""
    head = f"{_INDENT * level}<{tag}{_attributes(pairs)}"
    if not text:
        return f"{head} />\n"
    return f"{head}>{text.translate(_TEXT_ESCAPES)}</{tag}>\n"


def _counts(tests: int, failures: int, errors: int, seconds: float) -> list[tuple[str, str]]:
    return [
        ("tests", str(tests)),
        ("failures", str(failures)),
        ("errors", str(errors)),
        ("skipped", "0"),
        ("time", _seconds(seconds)),
    ]


def _suite_counts(report: SetReport) -> tuple[int, int, int]:
    tests = len(report.statuses)
    failures = report.count(EvalStatus.FAILED)
    return tests, failures, tests - failures - report.count(EvalStatus.PASSED)


def _body(outcome: OutcomeText) -> str:
    if not outcome.multi_run:
        lines = outcome.unevaluated(BODY_REASON_CAP)
        lines += [s.text(BODY_REASON_CAP) for s in outcome.shortfalls()]
        lines += [f"error: {cap(e, BODY_REASON_CAP)}" for e in outcome.errors()]
        return "\n".join(lines) or outcome.headline()
    lines = [f"case {outcome.status.value} over {len(outcome.runs)} runs ({outcome.rule()})"]
    lines += [s.text(BODY_REASON_CAP) for s in outcome.shortfalls()]
    lines.append("per run:")
    lines += outcome.run_lines(BODY_REASON_CAP)
    return "\n".join(lines)


def _testcase(report: SetReport, eval_id: str, status: EvalStatus) -> str:
    head = [("classname", _xml_safe(report.eval_set_id)), ("name", _xml_safe(eval_id))]
    outcome = report.outcomes.get(eval_id)
    child = ""
    if status is EvalStatus.PASSED:
        if outcome is not None and outcome.multi_run and outcome.passed_runs < len(outcome.runs):
            # The case passed on average; the runs that did not are still worth seeing.
            text = _xml_safe("\n".join(outcome.run_lines(BODY_REASON_CAP)))
            child = _element(3, "system-out", [], text)
    else:
        assert outcome is not None
        tag = "failure" if status is EvalStatus.FAILED else "error"
        pairs = [
            ("message", _xml_safe(cap(outcome.headline(), MESSAGE_CAP))),
            ("type", status.value),
        ]
        child = _element(3, tag, pairs, _xml_safe(_body(outcome)))
    if not child:
        return _element(2, "testcase", head)
    return f"{_INDENT * 2}<testcase{_attributes(head)}>\n{child}{_INDENT * 2}</testcase>\n"


def _testsuite(report: SetReport, warnings: Sequence[str] = (), count: int = 0) -> Iterator[str]:
    pairs = [("name", _xml_safe(report.eval_set_id))]
    pairs += _counts(*_suite_counts(report), report.seconds)
    stamp = report.creation_timestamp
    if stamp is not None and math.isfinite(stamp):
        moment = datetime.fromtimestamp(stamp, UTC)
        pairs.append(("timestamp", moment.strftime("%Y-%m-%dT%H:%M:%S")))
    yield f"{_INDENT}<testsuite{_attributes(pairs)}>\n{_INDENT * 2}<properties>\n"
    yield _element(3, "property", [("name", "numRuns"), ("value", str(report.num_runs))])
    if report.eval_set_result_id:
        value = _xml_safe(report.eval_set_result_id)
        yield _element(3, "property", [("name", "evalSetResultId"), ("value", value)])
    if count:
        yield _element(3, "property", [("name", "warnings"), ("value", str(count))])
    spent = (judge_usage_text(report.judge_usage), agent_usage_text(report.agent_usage))
    for name, text in zip(("judgeUsage", "agentUsage"), spent, strict=True):
        if text:
            yield _element(3, "property", [("name", name), ("value", _xml_safe(text))])
    yield f"{_INDENT * 2}</properties>\n"
    for eval_id, status in report.statuses.items():
        yield _testcase(report, eval_id, status)
    if warnings:
        text = "\n".join(f"warning: {line}" for line in warnings)
        yield _element(2, "system-err", [], _xml_safe(text))
    yield f"{_INDENT}</testsuite>\n"


def _unfinished_suite(reasons: Sequence[str]) -> str:
    """The testsuite of an unfinished run: one ``<error type="incomplete">`` saying why.

    The finished cases alone may all pass: without it the document of a run stopped
    after 6 of its 20 cases said 6 tests, 0 errors, while the run was INCOMPLETE (exit 3).
    """
    why = _xml_safe("; ".join(reasons))
    text = f"the run is incomplete ({why}): the cases it did not finish are not in this report"
    error = _element(3, "error", [("message", why), ("type", EvalStatus.INCOMPLETE.value)], text)
    head = _attributes([("name", UNFINISHED_SUITE), *_counts(1, 0, 1, 0.0)])
    case = _attributes([("classname", UNFINISHED_SUITE), ("name", UNFINISHED_CASE)])
    return (
        f"{_INDENT}<testsuite{head}>\n{_INDENT * 2}<testcase{case}>\n{error}"
        f"{_INDENT * 2}</testcase>\n{_INDENT}</testsuite>\n"
    )


def junit_chunks(
    reports: Sequence[SetReport],
    *,
    elapsed: float | None = None,
    name: str = ROOT_NAME,
    notes: RunNotes = NO_NOTES,
) -> Iterator[str]:
    """The JUnit XML document of tallied eval sets, piece by piece (one testcase at a time).

    ``notes``: the run's warnings, shown in the first testsuite, and why it is unfinished
    (a last testsuite, :func:`_unfinished_suite`).
    """
    unfinished = int(bool(notes.unfinished))
    tests, failures, errors = unfinished, 0, unfinished
    for report in reports:
        suite_tests, suite_failures, suite_errors = _suite_counts(report)
        tests, failures, errors = (
            tests + suite_tests,
            failures + suite_failures,
            errors + suite_errors,
        )
    seconds = sum(report.seconds for report in reports)
    pairs = [("name", _xml_safe(name))]
    pairs += _counts(tests, failures, errors, elapsed if elapsed is not None else seconds)
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    if not reports and not unfinished:
        yield f"<testsuites{_attributes(pairs)} />\n"
        return
    yield f"<testsuites{_attributes(pairs)}>\n"
    warnings, count = notes.lines(), notes.warning_count
    for index, report in enumerate(reports):
        yield from _testsuite(report, *((warnings, count) if index == 0 else ((), 0)))
    if unfinished:
        yield _unfinished_suite(notes.unfinished)
    yield "</testsuites>\n"


def junit_xml(
    results: Sequence[EvalSetResult], *, elapsed: float | None = None, name: str = ROOT_NAME
) -> str:
    """The JUnit XML document of a run: one testsuite per eval set, one testcase per case."""
    reports = [set_report(result) for result in results]
    return "".join(junit_chunks(reports, elapsed=elapsed, name=name))


def write_junit_reports(
    path: Path | str, reports: Sequence[SetReport], **facts: Unpack[RunFacts]
) -> Path:
    """Write :func:`junit_chunks` to ``path`` as it is made, put in place whole at the end."""
    with StreamedFile(path) as out:
        pending: list[str] = []
        size = 0
        chunks = junit_chunks(reports, **facts)
        for chunk in chunks:
            pending.append(chunk)
            size += len(chunk)
            if size >= _WRITE_CHUNK:
                out.write("".join(pending).encode("utf-8", "replace"))
                pending, size = [], 0
        out.write("".join(pending).encode("utf-8", "replace"))
        return out.commit()


def write_junit(
    path: Path | str, results: Sequence[EvalSetResult], *, elapsed: float | None = None
) -> Path:
    """Write the JUnit XML of ``results`` to ``path`` (see :func:`write_junit_reports`)."""
    return write_junit_reports(path, [set_report(result) for result in results], elapsed=elapsed)


__all__ = [
    "DURATION_KEY",
    "junit_chunks",
    "junit_xml",
    "suite_time",
    "write_junit",
    "write_junit_reports",
]
