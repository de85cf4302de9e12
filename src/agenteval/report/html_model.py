"""What the HTML report shows, as plain JSON data: summary, case index, case details, comparison.

The page needs two things at once and one only on demand:

* the **index** — per run its summary (pass rates, metric averages and score
  histograms, pass@k, judge usage) and one short row per case (status, score,
  failing metrics, a little text to search, where its details are) — parsed when
  the page opens;
* the **details** — every case result exactly as in the result files (pydantic
  writes them, so nothing is re-evaluated or reshaped), one entry per case and run,
  with the JSON paths that the trajectory reasons name.  They are numbered in the
  order the results come and cut into chunks of ``CHUNK_SIZE`` entries that the page
  parses (or loads from its sidecar, :mod:`agenteval.report.html`) when a case is
  opened, so a 10,000-case report opens without parsing 50 MB of JSON.

A :class:`RunBuilder` takes the case results one at a time, in result-file order (run
1's cases, then run 2's, …): each is encoded into a :class:`DetailSpool` (a temp file)
and dropped, and only its row and the running summary stay — the page of a
100,000-case run is built in flat memory, from a run's sink as cases finish or from
result files as they are read.  Case statuses are :class:`~agenteval.report.set_tally.SetTally`'s,
the ones every other report prints.

Criteria are the same object for every result of a metric: they are left out of the
case details and kept once per eval set and metric.
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from agenteval import __version__
from agenteval.errors import Problem
from agenteval.inputs.case_sources import CaseSource, check_case_summaries
from agenteval.inputs.case_sources import runs_of as source_runs
from agenteval.report.diff import diff_results
from agenteval.report.set_tally import NOTHING_SHOWN, SetTally
from agenteval.report.set_tally import num_runs as runs_of
from agenteval.report.verdicts import summary_verdicts
from agenteval.results.aggregation import (
    CaseSummaryData,
    SummaryTally,
    run_id_of,
    run_outcome,
    uses_custom_aggregator,
)
from agenteval.schema.base import dump
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResult,
    EvalSetResultSummary,
    extra,
)
from agenteval.schema.status import EvalStatus

CHUNK_SIZE = 200
HISTOGRAM_BINS = 10
# Characters of user message and final answer kept per case for the list's text search.
SEARCH_TEXT_CHARS = 240
# Characters of a case's first reason kept in the index (the failures-first list).
REASON_CHARS = 400
# A case row's status (:func:`status_label`), the keys of the page's case counts.
CASE_LABELS = ("passed", "failed", "not_evaluated", "incomplete")

# Criteria leave the per-case details: they are kept once per metric (see module docstring).
_NO_CRITERIA: Any = {
    "overall_eval_metric_results": {"__all__": {"criterion"}},
    "eval_metric_result_per_invocation": {
        "__all__": {"eval_metric_results": {"__all__": {"criterion"}}}
    },
}

# One difference of a tool pair, as criteria/trajectory.py and criteria/jsoncmp.py word it:
# "actual tool c1 named convert mismatch with expected tool named convert: arguments mismatch:
#  value mismatch at $.amount: 100 vs 1000".
_PAIR_DIFF = re.compile(
    r"actual tool (?:(?P<aid>\S+) )?named (?P<aname>.+?) mismatch with expected tool "
    r"(?:(?P<eid>\S+) )?named (?P<ename>.+?): (?P<part>arguments|result) mismatch: "
    r"(?P<what>[a-z ]+?) at (?P<path>\$(?:\.[A-Za-z_]\w*|\[\d+\]|\[\"(?:[^\"\\]|\\.)*\"\])*)"
    r"(?:: (?P<detail>[^;]*))?"
)


def status_label(status: EvalStatus, not_evaluated: bool) -> str:
    """``passed``, ``failed``, ``incomplete`` (any metric not evaluated: never passed) or
    ``not_evaluated`` (nothing scored it and nothing was left unfinished: a case without
    metrics, a case aggregator's verdict), the case's status as every other report gives it.

    A not-evaluated case read as incomplete made the page say "incomplete" of a run that
    exited 0 with ``PASSED: 1 of 2 cases passed (1 not evaluated)``.
    """
    if status is EvalStatus.FAILED:
        return "failed"
    if status is EvalStatus.INCOMPLETE or not_evaluated:
        return "incomplete"
    if status is EvalStatus.NOT_EVALUATED:
        return "not_evaluated"
    return "passed"


def tool_differences(reason: str) -> list[dict[str, str]]:
    """The tool pairs and JSON paths a trajectory reason names, in the order it names them."""
    marks: list[dict[str, str]] = []
    for found in _PAIR_DIFF.finditer(reason):
        mark = {
            "actualTool": found["aname"],
            "expectedTool": found["ename"],
            "actualId": found["aid"] or "",
            "expectedId": found["eid"] or "",
            "part": found["part"],
            "what": found["what"],
            "path": found["path"],
            "detail": (found["detail"] or "").strip(),
        }
        marks.append(mark)
    return marks


def _message_text(message: Any) -> str:
    if message is None:
        return ""
    if message.content:
        return str(message.content)
    parts = message.content_parts or []
    return " ".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))


def _case_marks(case: EvalCaseResult) -> list[dict[str, Any]]:
    """Tool-call differences per turn and metric, from the per-turn reasons."""
    marks: list[dict[str, Any]] = []
    for index, turn in enumerate(case.eval_metric_result_per_invocation or []):
        for result in turn.eval_metric_results or []:
            reason = result.details.reason if result.details else ""
            if " at $" not in reason:
                continue
            for mark in tool_differences(reason):
                marks.append({"turn": index, "metric": result.metric_name, **mark})
    return marks


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _bins(scores: Sequence[float]) -> list[int]:
    bins = [0] * HISTOGRAM_BINS
    for score in scores:
        clipped = min(max(score, 0.0), 1.0) if math.isfinite(score) else 0.0
        bins[min(int(clipped * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
    return bins


@dataclass(slots=True)
class _MetricStats:
    # The first result's, as the console reads it (report/metric_averages.py), whatever its
    # status: taken from evaluated results only, a judge that never answered showed 0.
    threshold: float | None = None
    # A count metric's threshold is an upper bound: a lower average is the better one.
    upper_bound: bool = False
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    scores: list[float] = field(default_factory=list)
    passed_scores: list[float] = field(default_factory=list)
    criterion: Any = None

    def add(self, result: EvalMetricResult) -> None:
        if self.threshold is None:
            self.threshold = result.threshold
            self.upper_bound = result.upper_bound
        if result.eval_status is EvalStatus.NOT_EVALUATED:
            self.not_evaluated += 1
            return
        if self.criterion is None and result.criterion is not None:
            self.criterion = dump(result.criterion)
        self.scores.append(result.score)
        if result.eval_status is EvalStatus.PASSED:
            self.passed += 1
            self.passed_scores.append(result.score)
        else:
            self.failed += 1

    def to_json(self, name: str) -> dict[str, Any]:
        every, passed = _bins(self.scores), _bins(self.passed_scores)
        evaluated = self.passed + self.failed
        return {
            "name": name,
            "threshold": self.threshold if self.threshold is not None else 0.0,
            "upperBound": self.upper_bound,
            "passed": self.passed,
            "failed": self.failed,
            "notEvaluated": self.not_evaluated,
            "passRate": self.passed / evaluated if evaluated else None,
            "average": _mean(self.scores),
            # Per score bin (0-0.1, ..., 0.9-1): how many passed and how many failed.
            "histogram": {
                "passed": passed,
                "failed": [a - b for a, b in zip(every, passed, strict=True)],
            },
            "criterion": self.criterion,
        }


class DetailSpool:
    """Case details spooled to a temp file as they come, read back as ``CHUNK_SIZE``-entry chunks.

    Entries are numbered from 0 in the order they are added; entry ``n`` is element
    ``n % CHUNK_SIZE`` of chunk ``n // CHUNK_SIZE``.
    """

    def __init__(self, chunk_size: int = CHUNK_SIZE) -> None:
        self.chunk_size = chunk_size
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115  (closed by close())
        self._starts: list[int] = []  # byte offset where each chunk starts
        self._entries = 0
        self.size = 0  # bytes of every entry and separator, the chunks' brackets excluded

    def add(self, entry: bytes) -> int:
        """Spool one entry (JSON bytes); returns its number."""
        if self._entries % self.chunk_size == 0:
            self._starts.append(self.size)
        else:
            self._file.write(b",")
            self.size += 1
        self._file.write(entry)
        self.size += len(entry)
        self._entries += 1
        return self._entries - 1

    @property
    def chunk_count(self) -> int:
        """How many chunks the entries fill."""
        return len(self._starts)

    def chunks(self) -> Iterator[bytes]:
        """Each chunk as one JSON array, in order (one chunk in memory at a time)."""
        self._file.flush()
        ends = [*self._starts[1:], self.size][: len(self._starts)]
        try:
            for start, end in zip(self._starts, ends, strict=True):
                self._file.seek(start)
                yield b"[" + self._file.read(end - start) + b"]"
        finally:
            self._file.seek(0, 2)  # later entries are appended

    def close(self) -> None:
        """Drop the spool."""
        self._file.close()


def detail_entry(case: EvalCaseResult) -> bytes:
    """One case result's details: the result object (criteria left out), its tool differences
    and the explain steps of its metrics that did not pass."""
    run = case.model_dump_json(
        by_alias=True, exclude_unset=True, exclude_none=True, exclude=_NO_CRITERIA
    ).encode("utf-8")
    return (
        b'{"run":'
        + run
        + b',"marks":'
        + orjson.dumps(_case_marks(case))
        + b',"explain":'
        + orjson.dumps(explain_steps(case))
        + b"}"
    )


# Explain's lines of one failing metric, or None (the command is given instead). Set by
# the explain package when it is loaded (explain sits above report: it imports the API).
MetricExplainer = Callable[[EvalCaseResult, str], list[str] | None]
_explainers: list[MetricExplainer] = []


def use_metric_explainer(explainer: MetricExplainer) -> None:
    """Have every HTML page show ``explainer``'s lines under a metric that did not pass."""
    _explainers[:] = [explainer]


def explain_steps(case: EvalCaseResult) -> dict[str, dict[str, Any]]:
    """Per metric that did not pass: ``agenteval explain``'s lines for it, and the command.

    Deterministic metrics get their steps (the comparison, never a judge, run again from
    the saved turns and criterion: explain's own record, rendered as on the console) when
    explain is loaded (:func:`use_metric_explainer`); a judge metric, or one whose
    evaluator the result does not name, gets the command.
    """
    found: dict[str, dict[str, Any]] = {}
    for metric in case.overall_eval_metric_results or ():
        if metric.eval_status is EvalStatus.PASSED or metric.metric_name in found:
            continue
        command = (
            f"agenteval explain RESULT --case {case.eval_id} --metric {metric.metric_name}"
            + (f" --run {case.run_id}" if case.run_id and case.run_id > 1 else "")
        )
        entry: dict[str, Any] = {"command": command}
        lines = _explainers[0](case, metric.metric_name) if _explainers else None
        if lines is not None:
            entry["lines"] = lines
        found[metric.metric_name] = entry
    return found


def first_reason(case: EvalCaseResult) -> str:
    """Why the case did not pass, in one line: its error, else its first failing metric's reason."""
    if case.error_message:
        return case.error_message[:REASON_CHARS]
    for metric in case.overall_eval_metric_results or ():
        if metric.eval_status is EvalStatus.PASSED:
            continue
        reason = metric.details.reason if metric.details is not None else ""
        reason = reason.strip(";") or metric.eval_status.value
        return f"{metric.metric_name}: {reason}"[:REASON_CHARS]
    return ""


@dataclass(slots=True)
class _CaseEntry:
    """One case of the report while its runs arrive."""

    eval_set: int
    eval_id: str
    search: str
    details: list[tuple[int, int]] = field(default_factory=list)  # (runId, entry number)
    score_sum: float = 0.0
    scored_runs: int = 0
    failing: list[str] = field(default_factory=list)
    not_evaluated: bool = False
    reason: str = ""

    def add(self, case: EvalCaseResult, entry: int) -> None:
        self.details.append((case.run_id, entry))
        if case.final_eval_status is not EvalStatus.NOT_EVALUATED:
            self.score_sum += case.score
            self.scored_runs += 1
        unscored = False  # a metric not evaluated leaves even a passed case incomplete
        for metric in case.overall_eval_metric_results or ():
            if metric.eval_status is EvalStatus.NOT_EVALUATED:
                self.not_evaluated = unscored = True
            if (
                metric.eval_status is not EvalStatus.PASSED
                and metric.metric_name not in self.failing
            ):
                self.failing.append(metric.metric_name)
        if not self.reason and (unscored or case.final_eval_status is not EvalStatus.PASSED):
            self.reason = first_reason(case)

    def row(self, status: EvalStatus) -> list[Any]:
        """``[evalSetIndex, evalId, status, score, failingMetrics, searchText, detailEntries,
        firstReason]``."""
        score = self.score_sum / self.scored_runs if self.scored_runs else None
        entries = [entry for _, entry in sorted(self.details, key=lambda item: item[0])]
        label = status_label(status, self.not_evaluated)
        reason = self.reason if label != "passed" else ""
        return [
            self.eval_set,
            self.eval_id,
            label,
            score,
            self.failing,
            self.search,
            entries,
            reason,
        ]


class RunBuilder:
    """One run of the report, built from its case results one at a time.

    ``begin_set`` / ``add`` / ``end_set`` take what a run's case sink gets (the head
    given to ``end_set`` is the eval set's result; its cases, if any, are not read);
    :meth:`index` gives the run's part of the page index once every set has ended.
    """

    def __init__(
        self,
        label: str,
        *,
        sources: Sequence[str] = (),
        extras: dict[str, Any] | None = None,
        chunk_size: int = CHUNK_SIZE,
    ) -> None:
        self.label = label
        self.sources = list(sources)
        self.extras = dict(extras or {})
        self.details = DetailSpool(chunk_size)
        self.rows: list[list[Any]] = []
        self.eval_sets: list[dict[str, Any]] = []
        self._cases: dict[str, _CaseEntry] = {}
        self._stats: dict[str, _MetricStats] = {}
        self._tally: SetTally | None = None
        self._summary: SummaryTally | None = None

    def begin_set(self, eval_set_id: str, num_runs: int = 1) -> None:
        """Start an eval set of ``num_runs`` runs."""
        # Statuses only: no case is kept for printing, no reason text.
        self._tally = SetTally(
            eval_set_id, num_runs, view=NOTHING_SHOWN, reason_keep=0, repeats=True
        )
        # numRuns and pass@k for a head without a summary (a run's, as its cases finish).
        self._summary = SummaryTally(num_runs, emit=_drop if num_runs == 1 else None)
        self._cases = {}
        self._stats = {}

    def add(self, case: EvalCaseResult) -> None:
        """One case result, in result-file order; it is spooled and not kept."""
        assert self._tally is not None and self._summary is not None, "add before begin_set"
        self._tally.add(case)
        self._summary.add(case)
        entry = self._cases.get(case.eval_id)
        if entry is None:
            entry = _CaseEntry(len(self.eval_sets), case.eval_id, _search_text(case))
            self._cases[case.eval_id] = entry
        entry.add(case, self.details.add(detail_entry(case)))
        for metric in case.overall_eval_metric_results or ():
            self._stats.setdefault(metric.metric_name, _MetricStats()).add(metric)

    def end_set(self, head: EvalSetResult) -> None:
        """Finish the eval set with its head (``judgeFailures``, summary and extras set)."""
        assert self._tally is not None and self._summary is not None, "end_set before begin_set"
        tallied = self._tally.finish(head)
        statuses = tallied.statuses
        # The summary of the cases added, never a saved one: pass@k and the verdicts agree
        # with the case rows even when a file's summary was edited apart from its cases.
        summary = self._summary.finish(custom_aggregator=uses_custom_aggregator(head))
        self._tally = self._summary = None
        rows = [entry.row(statuses[eval_id]) for eval_id, entry in self._cases.items()]
        self.rows.extend(rows)
        self.eval_sets.append(
            _eval_set_summary(head, summary, rows, self._stats, tallied.incomplete())
        )
        self._cases = {}
        self._stats = {}

    def feed(self, results: Iterable[EvalSetResult]) -> RunBuilder:
        """Add every case of whole ``results`` (saved result files); returns self."""
        for result in results:
            cases = result.case_results()
            # A file's numRuns below its highest runId would stop the summary tally.
            runs = max([runs_of(result), *(run_id_of(case) for case in cases)])
            self.begin_set(result.eval_set_id, runs)
            for case in cases:
                self.add(case)
            self.end_set(result)
        return self

    def feed_source(self, source: CaseSource, problems: list[Problem]) -> RunBuilder:
        """Add every case of a saved result read case by case (never whole); returns self.

        ``problems``: where a case that does not validate is noted (it is left out); the
        caller refuses the page when any is.  ``report`` of a 100,000-case result file
        peaked at 2.7 GB reading it whole first (bench/result_reading.py).
        """
        # A file's numRuns below its highest runId would stop the summary tally.
        runs = max(source_runs(source), *source.run_ids, 1)
        self.begin_set(source.head.eval_set_id, runs)
        for case in source.cases(problems):
            self.add(case)
        if runs > 1:  # one run: its case summaries are the cases again, never read
            check_case_summaries(source, problems)
        self.end_set(source.head)
        return self

    def index(self) -> dict[str, Any]:
        """The run's summary and case rows."""
        counts = dict.fromkeys(CASE_LABELS, 0)
        for row in self.rows:
            counts[row[2]] += 1
        # The one rule (aggregation.run_outcome), as the console's verdict and the exit
        # code: incomplete outranks failed, and a partial eval set leaves the run
        # incomplete (a partial merge's page said passed where `show` said INCOMPLETE).
        reached = [EvalStatus(status) for status, count in counts.items() if count]
        partial = any(eval_set.get("partial") for eval_set in self.eval_sets)
        status = run_outcome(reached, unfinished=partial).status
        overall = "failed" if not self.rows else status.value
        return {
            "label": self.label,
            "sources": self.sources,
            "overallStatus": overall,
            "counts": counts,
            "durationSeconds": self.extras.get("durationSeconds"),
            "createdAt": self.extras.get("createdAt"),
            "warnings": _warning_lines(self.extras.get("warnings")),
            "evalSets": self.eval_sets,
            "chunks": self.details.chunk_count,
            "cases": self.rows,
        }

    def close(self) -> None:
        """Drop the spooled details."""
        self.details.close()


def _warning_lines(saved: object) -> list[str]:
    """A run document's ``warnings`` as ``show`` reads them: the lines of a list (anything
    else is none; ``"warnings": 5`` stopped the page, which iterated it)."""
    return [line for line in saved if isinstance(line, str)] if isinstance(saved, list) else []


def _search_text(case: EvalCaseResult) -> str:
    """The first turn's user message and answers, each text once, cut to ``SEARCH_TEXT_CHARS``.

    Most of a large page's index is this text; an expected turn mostly repeats the
    actual one's user message (and, when it passed, its answer).
    """
    turns = case.eval_metric_result_per_invocation
    if not turns:
        return ""
    parts: list[str] = []
    for invocation in (turns[0].actual_invocation, turns[0].expected_invocation):
        if invocation is None:
            continue
        for message in (invocation.user_content, invocation.final_response):
            text = _message_text(message)[:SEARCH_TEXT_CHARS]
            if text and text not in parts:
                parts.append(text)
    return " ".join(parts)[:SEARCH_TEXT_CHARS]


def _drop(summary: CaseSummaryData) -> None:
    """Case summaries are not needed for the page (SummaryTally's ``emit``)."""


def _eval_set_summary(
    result: EvalSetResult,
    summary: EvalSetResultSummary,
    rows: Sequence[list[Any]],
    stats: dict[str, _MetricStats],
    incomplete: Collection[str],
) -> dict[str, Any]:
    counts = dict.fromkeys(CASE_LABELS, 0)
    for row in rows:
        counts[row[2]] += 1
    summary_extra = summary.model_extra or {}
    extras = extra(result)
    return {
        "evalSetId": result.eval_set_id,
        "resultId": result.eval_set_result_id,
        "numRuns": summary.num_runs,
        "cases": len(rows),
        "counts": counts,
        "passRate": counts["passed"] / len(rows) if rows else None,
        "metrics": [s.to_json(name) for name, s in stats.items()],
        "passAtK": summary_extra.get("passAtK"),
        "passHatK": summary_extra.get("passHatK"),
        # Stable pass / flaky / stable fail / incomplete per case of a --num-runs run
        # (report/verdicts.py; ``incomplete``: the cases whose status the rows say is).
        "verdicts": [
            {"evalId": eval_id, **verdict.to_json()}
            for eval_id, verdict in summary_verdicts(summary, incomplete=incomplete).items()
        ],
        "judgeUsage": extras.get("judgeUsage"),
        "agentUsage": extras.get("agentUsage"),
        "partial": bool(extras.get("partial")),
        **_judge_failures(extras.get("judgeFailures")),
    }


def _judge_failures(saved: object) -> dict[str, int]:
    """``judgeFailures`` as the page counts it: the incomplete cases it lists (agenteval's
    list of evalIds), or an older file's count of judge turns; the heading printed the list
    itself as that count ("a,b judge turns not evaluated")."""
    cases = len(set(map(str, saved))) if isinstance(saved, list) else 0
    turns = saved if isinstance(saved, int) and not isinstance(saved, bool) else 0
    return {"judgeFailures": turns, "unevaluatedCases": cases}


def _metric_deltas(base: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Average score per eval set and metric on both sides (only pairs present in both)."""

    def averages(index: dict[str, Any]) -> dict[tuple[str, str], float | None]:
        return {
            (eval_set["evalSetId"], metric["name"]): metric["average"]
            for eval_set in index["evalSets"]
            for metric in eval_set["metrics"]
        }

    lower_better = {
        (eval_set["evalSetId"], metric["name"])
        for eval_set in new["evalSets"]
        for metric in eval_set["metrics"]
        if metric["upperBound"]
    }
    old, now = averages(base), averages(new)
    deltas: list[dict[str, Any]] = []
    for key, after in now.items():
        if key not in old:
            continue
        before = old[key]
        delta = after - before if after is not None and before is not None else None
        deltas.append(
            {
                "evalSetId": key[0],
                "metric": key[1],
                "base": before,
                "new": after,
                "delta": delta,
                # Whether a fall is the worse change (a count metric's rise is).
                "worseDown": key not in lower_better,
            }
        )
    return deltas


def comparison(
    base_results: Sequence[EvalSetResult],
    new_results: Sequence[EvalSetResult],
    base: dict[str, Any],
    new: dict[str, Any],
    tolerance: float,
) -> dict[str, Any]:
    """``agenteval diff``'s verdict and changes (regressions first) plus per-metric deltas.

    ``base`` and ``new`` are the two runs' indexes (:meth:`RunBuilder.index`).
    """
    found = diff_results(base_results, new_results, tolerance)
    data = found.to_json()
    data["metricDeltas"] = _metric_deltas(base, new)
    return data


def report_index(
    runs: Sequence[dict[str, Any]],
    title: str,
    compared: dict[str, Any] | None = None,
    *,
    chunk_size: int = CHUNK_SIZE,
) -> dict[str, Any]:
    """The page's index: every run's summary and case rows, and the comparison of two runs."""
    return {
        "title": title,
        "generator": f"agenteval {__version__}",
        "chunkSize": chunk_size,
        "runs": list(runs),
        "comparison": compared,
        "shards": None,
    }


__all__ = [
    "CHUNK_SIZE",
    "DetailSpool",
    "RunBuilder",
    "comparison",
    "detail_entry",
    "report_index",
    "status_label",
    "tool_differences",
]
