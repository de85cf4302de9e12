"""A judge call that fails for good makes its turn not_evaluated; the other turns go on (issue 3)."""

from __future__ import annotations

from pathlib import Path

from llm_support import Outcome, metric, ok, options, run, turn, verdict

from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.schema.base import dump
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = FinalResponseJudge()
P, F, N = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED


def three(server: JudgeServer, **judge: object) -> Outcome:
    actuals = [turn(f"question {i}", f"answer {i}") for i in (1, 2, 3)]
    expecteds = [turn(answer=f"reference {i}") for i in (1, 2, 3)]
    return run(JUDGE, metric(server), actuals, expecteds, judge_options=options(**judge))


def test_server_errors_until_retries_run_out(judge_server: JudgeServer) -> None:
    judge_server.when("question 2", Reply.status_error(500, "upstream exploded"))
    judge_server.when("question 3", verdict("invalid", "wrong"))
    outcome = three(judge_server, retries=2)
    result = ok(outcome)
    assert [t.status for t in result.turns] == [P, N, F]
    failed = result.turns[1]
    assert failed.score == 0.0
    assert "HTTP 500: upstream exploded" in failed.details.reason
    assert "judge-model" in failed.details.reason
    # 1 + (1 + 2 retries) + 1 requests: the failing turn was retried, then the case went on.
    prompts = [r.prompt for r in judge_server.recorded()]
    assert sum("question 2" in p for p in prompts) == 3
    assert len(prompts) == 5
    # Overall = mean of the evaluated turns (1 and 0).
    assert (result.score, result.status) == (0.5, P)
    assert len(outcome.session.failures) == 1
    line = outcome.session.failures[0]
    assert line.startswith("set-1/case-1 run 1 metric llm_final_response turn 2: ")
    assert "HTTP 500" in line
    assert dump(failed.details) == {"reason": failed.details.reason, "score": 0}


def test_offline_cache_miss(judge_server: JudgeServer, tmp_path: Path) -> None:
    outcome = three(judge_server, offline=True, cache_path=tmp_path / "cache.sqlite")
    result = ok(outcome)
    assert [t.status for t in result.turns] == [N, N, N]
    assert all("offline: no cached judge reply" in t.details.reason for t in result.turns)
    assert (result.score, result.status) == (0.0, N)
    assert len(outcome.session.failures) == 3
    assert judge_server.count == 0


def test_offline_cache_hit_after_an_online_run(judge_server: JudgeServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    first = ok(three(judge_server, cache_path=cache))
    sent = judge_server.count
    again = three(judge_server, offline=True, cache_path=cache)
    assert judge_server.count == sent == 3
    assert [t.status for t in ok(again).turns] == [t.status for t in first.turns] == [P, P, P]
    assert again.session.failures == []


def test_budget_exhausted(judge_server: JudgeServer) -> None:
    outcome = three(judge_server, max_calls=2)
    result = ok(outcome)
    assert [t.status for t in result.turns] == [P, P, N]
    assert "max" in result.turns[2].details.reason.lower()
    assert judge_server.count == 2
    assert len(outcome.session.failures) == 1


def test_rejected_request(judge_server: JudgeServer) -> None:
    judge_server.default = Reply.status_error(401, "invalid api key")
    outcome = three(judge_server)
    result = ok(outcome)
    assert [t.status for t in result.turns] == [N, N, N]
    assert "HTTP 401" in result.turns[0].details.reason
    # 401 is not retried.
    assert judge_server.count == 3
    assert "sk-test" not in " ".join(outcome.session.failures)


def test_unusable_reply_bodies(judge_server: JudgeServer) -> None:
    judge_server.enqueue(
        Reply.no_choices(), Reply.error_body("model overloaded"), Reply.malformed()
    )
    result = ok(three(judge_server, concurrency=1))
    assert [t.status for t in result.turns] == [N, N, N]
    reasons = [t.details.reason for t in result.turns]
    assert "no final response" in reasons[0]
    assert "model overloaded" in reasons[1]
    assert "malformed JSON" in reasons[2]


def test_one_failing_sample_makes_the_turn_not_evaluated(judge_server: JudgeServer) -> None:
    judge_server.enqueue(verdict("valid"), Reply.status_error(503))
    m = metric(judge_server, numSamples=3)
    outcome = run(JUDGE, m, [turn()], [turn()], judge_options=options(concurrency=1, retries=0))
    result = ok(outcome)
    only = result.turns[0]
    assert only.status is N
    assert "HTTP 503" in only.details.reason
    # No partial votes are written for a turn that could not be judged.
    assert "samples" not in (only.details.model_extra or {})
    assert len(outcome.session.failures) == 1


def test_dropped_connection(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply.dropped(), Reply.dropped())
    outcome = run(JUDGE, metric(judge_server), [turn()], [turn()], judge_options=options(retries=1))
    assert ok(outcome).turns[0].status is N
    assert judge_server.count == 2


def test_each_run_asks_afresh_and_a_rerun_hits_the_cache(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    m = metric(judge_server, numSamples=2)
    judge_options = options(cache_path=cache)

    def statuses(run_id: int) -> list[EvalStatus]:
        outcome = run(JUDGE, m, [turn()], [turn()], judge_options=judge_options, run_id=run_id)
        return [t.status for t in ok(outcome).turns]

    judge_server.default = verdict("valid")
    assert statuses(1) == [P]
    assert judge_server.count == 2
    # Run 2 of --num-runs is an independent judgement: new calls, here a different verdict.
    judge_server.default = verdict("invalid")
    assert statuses(2) == [F]
    assert judge_server.count == 4
    # Rerunning the same evaluation replays both runs from the cache.
    assert (statuses(1), statuses(2)) == ([P], [F])
    assert judge_server.count == 4
