"""--resume keeps case results of matching fingerprints and says why it scores the rest again."""

from __future__ import annotations

from typing import Any

from agenteval.results.merging import merge_extras
from agenteval.results.resuming import (
    NO_FINGERPRINT,
    ResumeTally,
    attributed,
    mismatch,
    resume_notes,
)
from agenteval.schema.result import EvalCaseResult, EvalSetResult, Fingerprint, extra

NOW = Fingerprint(eval_set="sha256:e", metrics={"m": "sha256:1"}, shard="2/4")


def test_a_matching_fingerprint_is_kept_whatever_the_shard() -> None:
    assert mismatch(NOW.model_copy(update={"shard": "1/2"}), NOW) is None
    assert mismatch(NOW.model_copy(update={"shard": None}), NOW) is None


def test_other_inputs_and_unknown_fingerprints_are_not_kept() -> None:
    assert mismatch(None, NOW) == NO_FINGERPRINT
    other = NOW.model_copy(update={"metrics": {"m": "sha256:2"}, "traces": "sha256:t"})
    assert mismatch(other, NOW) == "whose metric file changed (m) and traces changed"


def test_one_warning_per_eval_set_with_counts_and_reasons() -> None:
    clean = ResumeTally("a", kept=5)
    mixed = ResumeTally(
        "b", kept=12, incomplete=1, rescored={"whose eval set changed": 3, NO_FINGERPRINT: 2}
    )
    runs = ResumeTally("c", rescored={"whose traces changed": 4}, several_runs=True)
    notes = resume_notes([clean, mixed, runs])
    assert [str(note) for note in notes] == [
        "--resume: eval set 'b': kept 12 cases; re-scoring 3 whose eval set changed, "
        f"2 {NO_FINGERPRINT} and 1 incomplete",
        "--resume: eval set 'c': kept 0 case runs; re-scoring 4 whose traces changed",
    ]


def spent(calls: int, cost: float, turns: int) -> dict[str, Any]:
    """A case result's own judgeUsage and agentUsage (as the runner writes them)."""
    judge = {"calls": calls, "promptTokens": 11 * calls, "costUsd": cost, "unpricedCalls": 0}
    agent = {"turns": turns, "inputTokens": 100 * turns, "costUsd": cost}
    return {"judgeUsage": judge, "agentUsage": agent}


def test_a_part_kept_in_pieces_carries_only_what_its_cases_spent() -> None:
    """Two shards of one earlier run each carried its whole usage: merged, counted twice."""
    cases = [
        EvalCaseResult.model_validate({"evalId": f"c{i}", **spent(i + 1, 0.1 * (i + 1), i + 1)})
        for i in range(4)
    ]
    head = EvalSetResult.model_validate(
        {
            "evalSetId": "s",
            # The run's totals: 10 calls and 1.0 USD of its cases, plus 2 calls of a case a
            # stop cut off (in no case result) and the split by metric.
            "judgeUsage": {
                "total": {"calls": 12, "promptTokens": 132, "costUsd": 1.2, "unpricedCalls": 0},
                "byMetric": {"m": {"calls": 12}},
            },
            "agentUsage": {"turns": 10, "inputTokens": 1000, "costUsd": 1.0},
            "durationSeconds": 9.5,
            "creationTimestamp": 1.0,
            "fingerprint": {"evalSet": "sha256:e"},
            "judgeFailures": ["c3"],
        }
    )
    first, second = attributed(head, cases[:1]), attributed(head, cases[1:])
    assert first.judge_usage == {
        "total": {"calls": 1, "promptTokens": 11, "costUsd": 0.1, "unpricedCalls": 0}
    }
    assert second.judge_usage is not None
    assert second.judge_usage["total"]["costUsd"] == 0.9  # 0.2 + 0.3 + 0.4 added exactly
    together = merge_extras([first, second])
    assert together["judgeUsage"]["total"]["calls"] == 10  # the cases' 10, not 24
    assert together["agentUsage"]["turns"] == 10 and together["agentUsage"]["costUsd"] == 1.0
    assert "durationSeconds" not in together
    # Cases without usage carry none; the other keys stay as they were.
    bare = attributed(head, [EvalCaseResult(eval_id="c9")])
    assert (bare.judge_usage, bare.agent_usage) == (None, None)
    assert extra(bare) == {"fingerprint": head.fingerprint, "judgeFailures": ["c3"]}
    assert bare.creation_timestamp == 1.0
    assert extra(head)["durationSeconds"] == 9.5  # the earlier head itself is untouched
