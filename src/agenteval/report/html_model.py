"""What the HTML report shows, as plain JSON data: summary, case index, case details, comparison.

The page needs two things at once and one only on demand:

* the **index** — per run its summary (pass rates, metric averages and score
  histograms, pass@k, judge usage) and one short row per case (status, score,
  failing metrics, a little text to search) — parsed when the page opens;
* the **details** — every run of every case exactly as in the result files
  (pydantic writes them, so nothing is re-evaluated or reshaped), plus the JSON
  paths that the trajectory reasons name.  They are cut into chunks of
  ``CHUNK_SIZE`` cases that the page parses when a case is opened, so a
  10,000-case report opens without parsing 50 MB of JSON.

Criteria are the same object for every result of a metric: they are left
out of the case details and kept once per eval set and metric.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from agenteval import __version__
from agenteval.report.diff import diff_results
from agenteval.report.html_inputs import ReportRun
from agenteval.report.outcomes import CaseOutcome, case_outcomes
from agenteval.report.verdicts import result_verdicts
from agenteval.schema.base import dump
from agenteval.schema.result import EvalCaseResult, EvalMetricResult, EvalSetResult, extra
from agenteval.schema.status import EvalStatus

CHUNK_SIZE = 200
HISTOGRAM_BINS = 10
# Characters of user message and final answer kept per case for the list's text search.
SEARCH_TEXT_CHARS = 240

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


def status_label(outcome: CaseOutcome) -> str:
    """``passed``, ``failed`` or ``incomplete`` (any metric not evaluated, never passed)."""
    if outcome.status is EvalStatus.FAILED:
        return "failed"
    if outcome.status is EvalStatus.NOT_EVALUATED:
        return "incomplete"
    for run in outcome.runs:
        for metric in run.overall_eval_metric_results or []:
            if metric.eval_status is EvalStatus.NOT_EVALUATED:
                return "incomplete"
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


def _search_text(case: EvalCaseResult) -> str:
    """The first turn's user message and answers, cut to ``SEARCH_TEXT_CHARS``."""
    turns = case.eval_metric_result_per_invocation
    if not turns:
        return ""
    first = turns[0]
    texts = [
        _message_text(invocation.user_content) + " " + _message_text(invocation.final_response)
        for invocation in (first.actual_invocation, first.expected_invocation)
        if invocation is not None
    ]
    return " ".join(texts)[:SEARCH_TEXT_CHARS]


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
    threshold: float = 0.0
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    scores: list[float] = field(default_factory=list)
    passed_scores: list[float] = field(default_factory=list)
    criterion: Any = None

    def add(self, result: EvalMetricResult) -> None:
        if result.eval_status is EvalStatus.NOT_EVALUATED:
            self.not_evaluated += 1
            return
        if self.criterion is None and result.criterion is not None:
            self.criterion = dump(result.criterion)
        self.threshold = result.threshold
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
            "threshold": self.threshold,
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


@dataclass(slots=True)
class CaseRow:
    """One case of one run in the report: its list row and where its details are."""

    run: int
    eval_set: int
    outcome: CaseOutcome
    status: str
    score: float | None
    failing: list[str]

    def row(self, text: str) -> list[Any]:
        """``[evalSetIndex, evalId, status, score, failingMetrics, searchText]``."""
        return [self.eval_set, self.outcome.eval_id, self.status, self.score, self.failing, text]


def _case_row(run: int, eval_set: int, outcome: CaseOutcome) -> CaseRow:
    evaluated = [
        r.score for r in outcome.runs if r.final_eval_status is not EvalStatus.NOT_EVALUATED
    ]
    failing: list[str] = []
    for case_run in outcome.runs:
        for metric in case_run.overall_eval_metric_results or []:
            if metric.eval_status is not EvalStatus.PASSED and metric.metric_name not in failing:
                failing.append(metric.metric_name)
    return CaseRow(run, eval_set, outcome, status_label(outcome), _mean(evaluated), failing)


def _eval_set_summary(result: EvalSetResult, rows: Sequence[CaseRow]) -> dict[str, Any]:
    counts = {"passed": 0, "failed": 0, "incomplete": 0}
    for row in rows:
        counts[row.status] += 1
    stats: dict[str, _MetricStats] = {}
    for row in rows:
        for case_run in row.outcome.runs:
            for metric in case_run.overall_eval_metric_results or []:
                stats.setdefault(metric.metric_name, _MetricStats()).add(metric)
    summary_extra = (result.summary.model_extra or {}) if result.summary else {}
    extras = extra(result)
    return {
        "evalSetId": result.eval_set_id,
        "resultId": result.eval_set_result_id,
        "numRuns": result.summary.num_runs if result.summary else 1,
        "cases": len(rows),
        "counts": counts,
        "passRate": counts["passed"] / len(rows) if rows else None,
        "metrics": [s.to_json(name) for name, s in stats.items()],
        "passAtK": summary_extra.get("passAtK"),
        "passHatK": summary_extra.get("passHatK"),
        # Stable pass / flaky / stable fail per case of a --num-runs run (report/verdicts.py).
        "verdicts": [
            {"evalId": eval_id, **verdict.to_json()}
            for eval_id, verdict in result_verdicts(result).items()
        ],
        "judgeUsage": extras.get("judgeUsage"),
        "partial": bool(extras.get("partial")),
        "judgeFailures": extras.get("judgeFailures") or 0,
    }


@dataclass(slots=True)
class RunModel:
    """One run's index data and its case rows (details are written from the rows)."""

    index: dict[str, Any]
    rows: list[CaseRow]


def run_model(position: int, run: ReportRun) -> RunModel:
    """Summary and case rows of one run."""
    rows: list[CaseRow] = []
    eval_sets: list[dict[str, Any]] = []
    for set_index, result in enumerate(run.results):
        set_rows = [_case_row(position, set_index, o) for o in case_outcomes(result)]
        eval_sets.append(_eval_set_summary(result, set_rows))
        rows.extend(set_rows)
    counts = {"passed": 0, "failed": 0, "incomplete": 0}
    for row in rows:
        counts[row.status] += 1
    overall = "failed" if counts["failed"] or not rows else "passed"
    if overall == "passed" and counts["incomplete"]:
        overall = "incomplete"
    index = {
        "label": run.label,
        "sources": run.sources,
        "overallStatus": overall,
        "counts": counts,
        "durationSeconds": run.extras.get("durationSeconds"),
        "createdAt": run.extras.get("createdAt"),
        "warnings": run.extras.get("warnings") or [],
        "evalSets": eval_sets,
        "chunks": math.ceil(len(rows) / CHUNK_SIZE),
        "cases": [row.row(_search_text(row.outcome.runs[0])) for row in rows],
    }
    return RunModel(index, rows)


def case_detail_json(row: CaseRow) -> bytes:
    """One case's details as JSON bytes: every run's result object and the tool differences."""
    runs = [
        run.model_dump_json(
            by_alias=True, exclude_unset=True, exclude_none=True, exclude=_NO_CRITERIA
        ).encode("utf-8")
        for run in row.outcome.runs
    ]
    marks = [_case_marks(run) for run in row.outcome.runs]
    return b'{"runs":[' + b",".join(runs) + b'],"marks":' + orjson.dumps(marks) + b"}"


def detail_chunks(model: RunModel) -> Iterator[bytes]:
    """The run's case details, ``CHUNK_SIZE`` cases per JSON array, in case-row order."""
    for start in range(0, len(model.rows), CHUNK_SIZE):
        rows = model.rows[start : start + CHUNK_SIZE]
        yield b"[" + b",".join(case_detail_json(row) for row in rows) + b"]"


def _metric_deltas(base: RunModel, new: RunModel) -> list[dict[str, Any]]:
    """Average score per eval set and metric on both sides (only pairs present in both)."""

    def averages(model: RunModel) -> dict[tuple[str, str], float | None]:
        return {
            (eval_set["evalSetId"], metric["name"]): metric["average"]
            for eval_set in model.index["evalSets"]
            for metric in eval_set["metrics"]
        }

    old, now = averages(base), averages(new)
    deltas: list[dict[str, Any]] = []
    for key, after in now.items():
        if key not in old:
            continue
        before = old[key]
        delta = after - before if after is not None and before is not None else None
        deltas.append(
            {"evalSetId": key[0], "metric": key[1], "base": before, "new": after, "delta": delta}
        )
    return deltas


def comparison(
    base_run: ReportRun, new_run: ReportRun, base: RunModel, new: RunModel, tolerance: float
) -> dict[str, Any]:
    """``agenteval diff``'s verdict and changes (regressions first) plus per-metric deltas."""
    found = diff_results(base_run.results, new_run.results, tolerance)
    data = found.to_json()
    data["metricDeltas"] = _metric_deltas(base, new)
    return data


def report_index(
    runs: Sequence[ReportRun], models: Sequence[RunModel], title: str, tolerance: float = 0.0
) -> dict[str, Any]:
    """The page's index: every run's summary and case rows, and the comparison of two runs."""
    data: dict[str, Any] = {
        "title": title,
        "generator": f"agenteval {__version__}",
        "chunkSize": CHUNK_SIZE,
        "runs": [model.index for model in models],
        "comparison": None,
    }
    if len(runs) == 2:
        data["comparison"] = comparison(runs[0], runs[1], models[0], models[1], tolerance)
    return data


__all__ = [
    "CHUNK_SIZE",
    "CaseRow",
    "RunModel",
    "case_detail_json",
    "comparison",
    "detail_chunks",
    "report_index",
    "run_model",
    "status_label",
    "tool_differences",
]
