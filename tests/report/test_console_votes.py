"""Judge variance in the console (issue 4): votes per turn, agreement, unstable turns counted.

Results are built the way the judge pipeline writes them (details extra keys
``samples``, ``agreement``, ``unstable``), rendered live and after a round
trip through a result file.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console

from agenteval.inputs.loading import load_result
from agenteval.report.console import final_line, render_results
from agenteval.report.console_tables import judge_votes, unstable_turns, vote_note
from agenteval.report.result_files import write_result
from agenteval.results.aggregation import build_summary
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    MetricDetails,
)
from agenteval.schema.status import EvalStatus

P, F = EvalStatus.PASSED, EvalStatus.FAILED


def judged(statuses: list[str], chosen: EvalStatus, reason: str) -> EvalMetricResult:
    """A per-turn judge result with one vote per sample, as the pipeline records it."""
    samples = [
        {"score": 1 if s == "passed" else 0, "status": s, "reason": f"sample {i + 1}"}
        for i, s in enumerate(statuses)
    ]
    extras: dict[str, Any] = {}
    if len(samples) > 1:
        extras["samples"] = samples
        extras["agreement"] = statuses.count(chosen.value) / len(statuses)
        if len(set(statuses)) > 1:
            extras["unstable"] = True
    score = 1.0 if chosen is P else 0.0
    return EvalMetricResult(
        metric_name="quality",
        score=score,
        eval_status=chosen,
        threshold=1.0,
        details=MetricDetails(reason=reason, score=score, **extras),
    )


def case(eval_id: str, turns: list[EvalMetricResult]) -> EvalCaseResult:
    passed = sum(t.score for t in turns) / len(turns)
    status = P if passed >= 1 else F
    overall = EvalMetricResult(
        metric_name="quality",
        score=passed,
        eval_status=status,
        threshold=1.0,
        details=MetricDetails(reason=";".join(t.details.reason for t in turns if t.details)),
    )
    return EvalCaseResult(
        eval_set_id="votes",
        eval_id=eval_id,
        run_id=1,
        score=passed,
        final_eval_status=status,
        overall_eval_metric_results=[overall],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(eval_metric_results=[t]) for t in turns
        ],
    )


def split_vote_result() -> EvalSetResult:
    cases = [
        # 3 of 5 samples pass: the turn passes, agreement 0.6, unstable.
        case(
            "split", [judged(["passed", "failed", "passed", "failed", "passed"], P, "mostly fine")]
        ),
        # 1 of 3 passes: the turn fails, agreement 2/3, unstable.
        case("leaning_fail", [judged(["failed", "passed", "failed"], F, "misses the date")]),
        # Unanimous: votes shown, nothing unstable.
        case("unanimous", [judged(["passed"] * 3, P, "all agree")]),
        # One sample: no votes at all.
        case("single", [judged(["passed"], P, "one look")]),
    ]
    result = EvalSetResult(eval_set_id="votes", eval_case_results=cases)
    result.summary = build_summary(result.case_results(), 1)
    return result


def render(result: EvalSetResult, **options: Any) -> str:
    console = Console(record=True, width=140, file=io.StringIO())
    render_results(console, [result], **options)
    return console.export_text()


def test_votes_agreement_and_unstable_in_the_console() -> None:
    text = render(split_vote_result())
    assert re.search(r"quality\s+1 \(3/5 pass\)\s+1\s+1\s+passed", text)
    assert re.search(r"quality\s+0 \(1/3 pass\)\s+0\s+1\s+failed", text)
    assert re.search(r"quality\s+1 \(3/3 pass\)\s+1\s+1\s+passed", text)
    assert re.search(r"quality\s+1\s+1\s+1\s+passed", text)  # the single-sample case
    # A failing turn names its votes; a passing unstable turn gets a line of its own.
    assert "✗ quality · turn 1: misses the date [1/3 pass, agreement 0.6667, unstable]" in text
    assert "~ quality · turn 1: mostly fine [3/5 pass, agreement 0.6, unstable]" in text
    assert "all agree" not in text
    assert "judge variance: 2 unstable judge turns (the judge samples disagreed)" in text
    assert text.rstrip().endswith(
        "FAILED: 3 of 4 cases passed (1 failed) · 1 eval set · 2 unstable judge turns"
    )


def test_saved_result_file_renders_the_same_votes(tmp_path: Path) -> None:
    live = split_vote_result()
    path = write_result(live, tmp_path, "app")
    raw = path.read_text()
    assert '"agreement": 0.6' in raw and '"unstable": true' in raw
    loaded = load_result(path)
    assert unstable_turns(loaded.case_results()) == 2
    assert render(loaded) == render(split_vote_result())


def test_stable_runs_say_nothing_about_variance() -> None:
    result = EvalSetResult(
        eval_set_id="votes",
        eval_case_results=[case("unanimous", [judged(["passed"] * 3, P, "ok")])],
    )
    text = render(result)
    assert "unstable" not in text and "judge variance" not in text
    assert final_line([result]).plain == "PASSED: 1 of 1 cases passed · 1 eval set"


def test_many_turns_collapse_but_keep_the_unstable_count() -> None:
    turns = [judged(["passed"] * 3, P, "ok") for _ in range(6)]
    turns.append(judged(["passed", "failed", "passed"], P, "wobbly"))
    text = render(EvalSetResult(eval_set_id="votes", eval_case_results=[case("long", turns)]))
    assert re.search(r"quality\s+7/7 \(1 unstable\)\s+1\s+1\s+passed", text)
    assert "1 unstable judge turn" in text


def test_vote_texts() -> None:
    details = judged(["passed", "failed", "passed"], P, "r").details
    assert judge_votes(details) == "2/3 pass"
    assert vote_note(details) == "2/3 pass, agreement 0.6667, unstable"
    assert judge_votes(judged(["passed"], P, "r").details) == ""
    assert vote_note(MetricDetails(reason="x")) == ""
    assert vote_note(judged(["failed"] * 2, F, "r").details) == "0/2 pass, agreement 1"
