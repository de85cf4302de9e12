"""What changed between passes: newly failing and passing cases, score deltas, new problems."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from agenteval import api
from agenteval.watch.changes import pass_changes
from agenteval.watch.pairs import PassOutcome, score_pass
from trace_cases import usage_eval_set

ROOT = Path(__file__).resolve().parents[2]


def one_pass(evalset: Path, previous: PassOutcome | None = None) -> PassOutcome:
    options = api.Options(cache=None)
    return score_pass(
        api.prepare([str(evalset)], options), options, previous.pairs if previous else {}
    )


def edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_changes_between_passes(tmp_path: Path) -> None:
    evalset = tmp_path / "travel-assistant.evalset.json"
    metrics = tmp_path / "travel-assistant.metrics.json"
    shutil.copy(ROOT / "evalsets" / "travel-assistant.evalset.json", evalset)
    shutil.copy(ROOT / "metrics" / "travel-assistant.metrics.json", metrics)
    first = one_pass(evalset)
    assert pass_changes(first, first).lines() == []

    def thresholds(data: Any) -> None:
        data[0]["threshold"] = 0.0  # the trajectory: currency_wrong_amount passes now
        del data[2]["threshold"]  # answer_length: a warning, and it always passes

    def answer(data: Any) -> None:
        # weather_paris's answer no longer matches its reference: ROUGE drops, the case fails
        data["evalCases"][0]["actualConversation"][0]["finalResponse"]["content"] = "No idea."

    edit(metrics, thresholds)
    edit(evalset, answer)
    second = one_pass(evalset, first)
    lines = pass_changes(first, second).lines()
    assert "newly failing: travel-assistant/weather_paris (failed)" in lines
    assert "newly passing: travel-assistant/currency_wrong_amount" in lines
    similarity = [line for line in lines if line.startswith("score: ") and "similarity" in line]
    assert similarity and similarity[0].startswith(
        "score: travel-assistant/weather_paris answer_similarity 1 → 0"
    )
    assert any(
        line.startswith(f"new problem: {metrics}: [2].threshold: no threshold") for line in lines
    )
    # What was already so is not news.
    assert not any("packing_tips_two_turns" in line and "newly" in line for line in lines)


def test_passed_to_incomplete_is_newly_failing_and_back_newly_passing(tmp_path: Path) -> None:
    # token_usage sums the turns (15 + 15 = 30 <= 100: passed); once turn 2 has no usage
    # the metric still says passed on 15, but the case is INCOMPLETE, as run reports it.
    evalset = tmp_path / "u.evalset.json"
    (tmp_path / "u.metrics.json").write_text(
        json.dumps([{"metricName": "token_usage", "threshold": 100}])
    )
    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=True)))
    first = one_pass(evalset)
    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=False)))
    second = one_pass(evalset, first)
    lines = pass_changes(first, second).lines()
    assert "newly failing: u/c1 (incomplete)" in lines
    assert "score: u/c1 token_usage 30 → 15" in lines
    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=True)))
    third = one_pass(evalset, second)
    assert "newly passing: u/c1" in pass_changes(second, third).lines()


def test_a_case_removed_or_added_passing_is_a_change(tmp_path: Path) -> None:
    # Renaming an incomplete case to one that passes turned the run from INCOMPLETE to
    # PASSED while the watch said "no result changed": the old id was gone (never listed)
    # and the new one, having no previous status, was not "newly passing".
    evalset = tmp_path / "u.evalset.json"
    (tmp_path / "u.metrics.json").write_text(
        json.dumps([{"metricName": "token_usage", "threshold": 100}])
    )
    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=False)))
    first = one_pass(evalset)

    def renamed(data: Any) -> None:
        data["evalCases"][0]["evalId"] = "c2"

    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=True)))
    edit(evalset, renamed)
    lines = pass_changes(first, one_pass(evalset, first)).lines()
    assert lines == ["newly passing: u/c2 (new case)", "removed: u/c1 (was incomplete)"]


def test_a_metric_failing_at_the_same_score_is_a_change(tmp_path: Path) -> None:
    # Two model calls fail inference_call_count's bound of 1. Then token_usage's bound drops
    # below its 30 tokens: the metric fails at the same score, in a case that was failing
    # already, and the watch said "no result changed".
    evalset = tmp_path / "u.evalset.json"
    metrics = tmp_path / "u.metrics.json"
    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=True)))
    bounds = [("inference_call_count", 1), ("token_usage", 100)]
    metrics.write_text(json.dumps([{"metricName": n, "threshold": t} for n, t in bounds]))
    first = one_pass(evalset)
    edit(metrics, lambda data: data[1].update(threshold=20))
    assert pass_changes(first, one_pass(evalset, first)).lines() == [
        "status: u/c1 token_usage passed → failed"
    ]
