"""Judge variance made visible (issue 4): every sample's vote, agreement and the unstable flag.

Replies are scripted by arrival order; with ``concurrency=1`` samples reach the
server in sample order, so the script maps to sample indexes.
"""

from __future__ import annotations

from typing import Any

import pytest
from llm_support import metric, ok, options, run, turn, verdict

from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.schema.base import dump
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer

JUDGE = FinalResponseJudge()
P, F = EvalStatus.PASSED, EvalStatus.FAILED


def extras(details: Any) -> dict[str, Any]:
    return dict(details.model_extra or {})


def judged(server: JudgeServer, samples: int, labels: list[str], turns: int = 1) -> Any:
    server.enqueue(*(verdict(label, f"sample {i + 1}") for i, label in enumerate(labels)))
    m = metric(server, numSamples=samples)
    actuals = [turn(f"q{i}") for i in range(turns)]
    expecteds = [turn(f"q{i}") for i in range(turns)]
    return ok(run(JUDGE, m, actuals, expecteds, judge_options=options(concurrency=1)))


def test_split_vote_of_three_passes(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 3, ["invalid", "valid", "valid"])
    only = result.turns[0]
    # Majority passes: the first passing sample represents the turn.
    assert (only.score, only.status, only.details.reason) == (1.0, P, "sample 2")
    data = extras(only.details)
    assert data["samples"] == [
        {"score": 0, "status": "failed", "reason": "sample 1"},
        {"score": 1, "status": "passed", "reason": "sample 2"},
        {"score": 1, "status": "passed", "reason": "sample 3"},
    ]
    assert data["agreement"] == pytest.approx(2 / 3)
    assert data["unstable"] is True
    assert result.extra == {"unstableTurns": 1}
    assert judge_server.count == 3


def test_split_vote_of_three_fails(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 3, ["valid", "invalid", "invalid"])
    only = result.turns[0]
    assert (only.score, only.status, only.details.reason) == (0.0, F, "sample 2")
    assert extras(only.details)["agreement"] == pytest.approx(2 / 3)
    assert (result.score, result.status) == (0.0, F)


def test_five_samples_three_to_two(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 5, ["valid", "invalid", "valid", "invalid", "valid"])
    only = result.turns[0]
    data = extras(only.details)
    assert (only.status, only.details.reason) == (P, "sample 1")
    assert [s["status"] for s in data["samples"]] == [
        "passed",
        "failed",
        "passed",
        "failed",
        "passed",
    ]
    assert data["agreement"] == pytest.approx(0.6)
    assert data["unstable"] is True
    # The result file carries the votes as extra keys Go readers ignore.
    written = dump(only.details)
    assert written["agreement"] == pytest.approx(0.6)
    assert written["unstable"] is True
    assert len(written["samples"]) == 5
    assert (written["reason"], written["score"]) == ("sample 1", 1)


def test_five_samples_two_to_three_fail(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 5, ["valid", "valid", "invalid", "invalid", "invalid"])
    only = result.turns[0]
    assert (only.status, only.details.reason) == (F, "sample 3")
    assert extras(only.details)["agreement"] == pytest.approx(0.6)


def test_unanimous_samples_are_stable(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 5, ["valid"] * 5)
    data = extras(result.turns[0].details)
    assert data["agreement"] == 1.0
    assert "unstable" not in data
    assert len(data["samples"]) == 5
    assert result.extra == {}


def test_tie_of_two_fails_and_is_unstable(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 2, ["valid", "invalid"])
    only = result.turns[0]
    assert (only.score, only.status) == (0.0, F)
    assert extras(only.details)["agreement"] == 0.5
    assert extras(only.details)["unstable"] is True


def test_one_sample_writes_no_vote_keys(judge_server: JudgeServer) -> None:
    result = judged(judge_server, 1, ["valid"])
    assert extras(result.turns[0].details) == {}
    assert set(dump(result.turns[0].details)) == {"reason", "score", "value"}
    assert result.extra == {}


def test_unstable_turns_are_counted(judge_server: JudgeServer) -> None:
    turn1, turn2, turn3 = (
        ["valid"] * 3,
        ["valid", "invalid", "valid"],
        ["invalid", "valid", "invalid"],
    )
    labels = [*turn1, *turn2, *turn3]
    result = judged(judge_server, 3, labels, turns=3)
    assert [t.status for t in result.turns] == [P, P, F]
    assert ["unstable" in extras(t.details) for t in result.turns] == [False, True, True]
    assert result.extra == {"unstableTurns": 2}
    assert result.score == pytest.approx(2 / 3)


def test_concurrent_samples_keep_counts(judge_server: JudgeServer) -> None:
    # Without ordering guarantees on the wire, the vote counts still decide the turn.
    judge_server.latency = 0.02
    judge_server.enqueue(*(verdict(v) for v in ["valid", "invalid", "valid", "invalid", "valid"]))
    m = metric(judge_server, numSamples=5)
    result = ok(run(JUDGE, m, [turn()], [turn()], judge_options=options(concurrency=16)))
    data = extras(result.turns[0].details)
    assert sorted(s["status"] for s in data["samples"]) == ["failed"] * 2 + ["passed"] * 3
    assert result.turns[0].status is P
    assert judge_server.max_in_flight == 5
