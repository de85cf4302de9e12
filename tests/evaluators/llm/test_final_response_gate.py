"""``final_response_gate`` (text-metrics.md §4): exact → ROUGE → judge, over real HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import agenteval.evaluators.builtins  # noqa: F401  (registers the built-ins)
from agenteval.checks.cross_file import Findings, check_metrics
from agenteval.evaluators.base import (
    EvalContext,
    EvaluateResult,
    Evaluator,
    EvaluatorError,
    TurnResult,
)
from agenteval.evaluators.llm.final_response_gate import GateConfig, check_gate
from agenteval.evaluators.llm.gate_judge import (
    JudgeReplyFormatError,
    JudgeVerdict,
    majority_vote,
    parse_judge_reply,
)
from agenteval.evaluators.registry import evaluators
from agenteval.judge import JudgeClient, JudgeOptions
from agenteval.judge.session import JudgeSession
from agenteval.schema.evalset import EvalCase, Invocation
from agenteval.schema.metric import EvalMetric
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply


def registered(name: str) -> Evaluator:
    """The evaluator registered under ``name`` (the built-ins are imported above)."""
    evaluator = evaluators.get(name)
    assert evaluator is not None, name
    return evaluator


GATE = registered("final_response_gate")

QUESTION = "The web server ignores my new config. What should I do?"
REFERENCE = "Restart the nginx service to apply the new configuration."
PARAPHRASE = "Reload nginx so that it picks up the changed settings."
WORD_SALAD = "restart service configuration nginx apply purple elephant banana"
NEAR_MISS = "Restart the nginx service to apply your new configuration."


def verdict(score: float, passed: bool, reasoning: str = "same key facts") -> Reply:
    """A judge reply carrying one JSON verdict."""
    body = {"score": score, "pass": passed, "reasoning": reasoning}
    return Reply(content=json.dumps(body))


def turn(answer: str | None, question: str = QUESTION) -> Invocation:
    """A turn with a user question and a final answer (None: no final response)."""
    data: dict[str, Any] = {"userContent": {"role": "user", "content": question}}
    if answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    return Invocation.model_validate(data)


def gate_metric(
    server: JudgeServer | None = None,
    *,
    gate: Any = None,
    generation: dict[str, Any] | None = None,
    num_samples: int | None = None,
    threshold: float = 1.0,
) -> EvalMetric:
    """A final_response_gate metric; with ``server``, its llmJudge points at the loopback judge."""
    criterion: dict[str, Any] = {}
    if gate is not None:
        criterion["gate"] = gate
    if server is not None:
        model: dict[str, Any] = {
            "providerName": "openai",
            "modelName": "gate-judge",
            "baseURL": server.base_url,
            "apiKey": "sk-test-gate",
        }
        if generation is not None:
            model["generationConfig"] = generation
        if num_samples is not None:
            model["numSamples"] = num_samples
        criterion["llmJudge"] = {"judgeModel": model}
    return EvalMetric.model_validate(
        {"metricName": "final_response_gate", "threshold": threshold, "criterion": criterion}
    )


def gate_run(
    metric: EvalMetric,
    pairs: list[tuple[str | None, str | None]],
    *,
    run_id: int = 1,
    cache: Path | None = None,
) -> tuple[EvaluateResult, list[str]]:
    """Run the gate on (candidate, reference) turns with a live judge client; also the failures."""
    actuals = [turn(candidate) for candidate, _ in pairs]
    expecteds = [turn(reference) for _, reference in pairs]
    options = JudgeOptions(cache_path=cache, retries=1, backoff_base=0.001, backoff_max=0.01)
    failures: list[str] = []

    async def go() -> EvaluateResult:
        async with JudgeClient(options) as client:
            session = JudgeSession(client=client, failures=failures)
            context = EvalContext("gate-set", EvalCase(eval_id="case-7"), run_id, session)
            return await GATE.aevaluate(metric, actuals, expecteds, context)

    return asyncio.run(go()), failures


def extra(turn_result: TurnResult) -> dict[str, Any]:
    """The gate's extra detail keys of one turn (method, rouge, judge, votes)."""
    return dict(turn_result.details.model_extra or {})


# ------------------------------------------------------------- vectors (no judge)


@pytest.mark.parametrize(
    ("candidate", "reference", "method", "passed", "prf"),
    [
        ("the cat sat on a mat", "the cat sat on the mat", "rouge", True, (5 / 6, 5 / 6, 5 / 6)),
        ("the the the the", "the mat", "rouge", False, (0.25, 0.5, 1 / 3)),
        ("Try rebooting the daemon.", "You should restart the service.", "rouge", False,
         (0.25, 0.2, 2 / 9)),
        ("The answer is 42.", "the answer is 42", "exact", True, (1.0, 1.0, 1.0)),
        ("Café!", "café", "exact", True, (1.0, 1.0, 1.0)),
        ("forty-two", "42", "rouge", False, (0.0, 0.0, 0.0)),
    ],
)  # fmt: skip
def test_gate_vectors_without_judge(
    candidate: str, reference: str, method: str, passed: bool, prf: tuple[float, float, float]
) -> None:
    # No judge client at all: these turns must be decided without one.
    context = EvalContext("gate-set", EvalCase(eval_id="c"), 1, None)
    metric = gate_metric(gate={"rougeF1": 0.8})
    result = asyncio.run(GATE.aevaluate(metric, [turn(candidate)], [turn(reference)], context))
    only = result.turns[0]
    assert extra(only)["method"] == method
    assert only.score == (1.0 if passed else 0.0)
    assert only.status is (EvalStatus.PASSED if passed else EvalStatus.FAILED)
    rouge = extra(only)["rouge"]
    assert (rouge["precision"], rouge["recall"], rouge["f1"]) == pytest.approx(prf, abs=1e-6)
    assert "judge" not in extra(only)
    assert result.extra["methods"] == {
        "exact": int(method == "exact"),
        "rouge": int(method == "rouge"),
        "judge": 0,
    }


def test_rouge_threshold_is_inclusive_and_configurable() -> None:
    context = EvalContext("gate-set", EvalCase(eval_id="c"), 1, None)
    pair = ([turn("the cat sat on a mat")], [turn("the cat sat on the mat")])
    strict = asyncio.run(GATE.aevaluate(gate_metric(gate={"rougeF1": 0.9}), *pair, context))
    assert strict.turns[0].status is EvalStatus.FAILED
    assert strict.turns[0].details.reason == "ROUGE-1 F1 0.8333 < 0.9"
    exact_f1 = asyncio.run(GATE.aevaluate(gate_metric(gate={"rougeF1": 5 / 6}), *pair, context))
    assert exact_f1.turns[0].status is EvalStatus.PASSED


def test_a_rouge_score_beside_its_bar_reads_in_the_order_the_numbers_are() -> None:
    """2/3 against 0.6667 fails (the reason said ``0.6667 < 0.6667``), and 5/6 against
    0.83333 passes (it said ``0.8333 >= 0.83333``, a number below the bar)."""
    context = EvalContext("gate-set", EvalCase(eval_id="c"), 1, None)
    short = ([turn("The cat sat")], [turn("the cat sat on the mat")])
    above = asyncio.run(GATE.aevaluate(gate_metric(gate={"rougeF1": 0.6667}), *short, context))
    assert above.turns[0].status is EvalStatus.FAILED
    assert above.turns[0].details.reason == "ROUGE-1 F1 0.6666666666666666 < 0.6667"
    pair = ([turn("the cat sat on a mat")], [turn("the cat sat on the mat")])
    below = asyncio.run(GATE.aevaluate(gate_metric(gate={"rougeF1": 0.83333}), *pair, context))
    assert below.turns[0].status is EvalStatus.PASSED
    assert below.turns[0].details.reason == "ROUGE-1 F1 0.8333333333333334 >= 0.83333"


def test_absent_answers_read_as_empty() -> None:
    context = EvalContext("gate-set", EvalCase(eval_id="c"), 1, None)
    result = asyncio.run(
        GATE.aevaluate(gate_metric(), [turn(None), turn(None)], [turn(None), turn("x")], context)
    )
    assert [extra(t)["method"] for t in result.turns] == ["exact", "rouge"]
    assert [t.score for t in result.turns] == [1.0, 0.0]
    assert result.score == 0.5
    assert result.status is EvalStatus.FAILED


def test_turn_and_overall_status_follow_the_metric_threshold() -> None:
    context = EvalContext("gate-set", EvalCase(eval_id="c"), 1, None)
    actuals = [turn("the cat sat on a mat"), turn("a dog")]
    expecteds = [turn("the cat sat on the mat"), turn("the cat sat on the mat")]
    half = asyncio.run(GATE.aevaluate(gate_metric(threshold=0.5), actuals, expecteds, context))
    assert [t.status for t in half.turns] == [EvalStatus.PASSED, EvalStatus.FAILED]
    assert (half.score, half.status) == (0.5, EvalStatus.PASSED)
    # Score 0 meets a threshold of 0, as it does for every evaluator (score >= threshold).
    zero = asyncio.run(GATE.aevaluate(gate_metric(threshold=0.0), actuals, expecteds, context))
    assert [t.score for t in zero.turns] == [1.0, 0.0]
    assert [t.status for t in zero.turns] == [EvalStatus.PASSED, EvalStatus.PASSED]


# --------------------------------------------------------------------- config


def problems_of(metric: EvalMetric) -> list[str]:
    """The ``file: json.path: problem`` lines validation prints for ``metric``."""
    found = Findings()
    check_metrics([metric], "gate.metrics.json", set(), found)
    return [str(p) for p in found.problems]


def test_config_defaults() -> None:
    gate = GateConfig()
    assert (gate.rouge_f1, gate.judge_threshold, gate.use_judge) == (0.8, 0.8, None)
    assert problems_of(gate_metric()) == []
    with JudgeServer() as server:
        assert problems_of(gate_metric(server)) == []


def test_use_judge_without_llm_judge_is_a_config_error() -> None:
    assert problems_of(gate_metric(gate={"useJudge": True})) == [
        "gate.metrics.json: [0].criterion.gate.useJudge: useJudge is true but "
        'criterion.llmJudge is missing (add criterion.llmJudge.judgeModel, or set "useJudge": false)'
    ]
    context = EvalContext("gate-set", EvalCase(eval_id="c"), 1, None)
    with pytest.raises(EvaluatorError, match=r"criterion\.llmJudge is missing"):
        asyncio.run(GATE.aevaluate(gate_metric(gate={"useJudge": True}), [], [], context))


@pytest.mark.parametrize(
    ("gate", "line"),
    [
        ({"rougeF1": "0.8"}, '[0].criterion.gate.rougeF1: input should be a valid number, got "0.8"'),
        ({"rougeF1": -0.5}, "[0].criterion.gate.rougeF1: input should be greater than or equal to 0, got -0.5"),
        ({"judgeThreshold": 1.5}, "[0].criterion.gate.judgeThreshold: input should be less than or equal to 1, got 1.5"),
        ({"useJudge": "yes"}, '[0].criterion.gate.useJudge: input should be a valid boolean, got "yes"'),
        ({"rougef1": 0.5}, "[0].criterion.gate.rougef1: unknown key (keys: rougeF1, judgeThreshold, useJudge)"),
        ([0.8], "[0].criterion.gate: must be an object (keys: rougeF1, judgeThreshold, useJudge)"),
    ],
)  # fmt: skip
def test_bad_gate_values_are_config_errors(gate: Any, line: str) -> None:
    assert problems_of(gate_metric(gate=gate)) == [f"gate.metrics.json: {line}"]


def test_bad_judge_model_settings_are_config_errors() -> None:
    with JudgeServer() as server:
        zero = problems_of(gate_metric(server, num_samples=0))
        assert zero == [
            "gate.metrics.json: [0].criterion.llmJudge.judgeModel.numSamples: "
            "num samples must be greater than 0"
        ]
        bad = problems_of(gate_metric(server, generation={"temperature": "hot"}))
        assert len(bad) == 1
        assert "generationConfig.temperature: expected a number" in bad[0]
        # With the judge step off, the judge model is not the gate's business.
        off = gate_metric(server, gate={"useJudge": False}, num_samples=0)
        assert check_gate(off) == []


# ------------------------------------------------------- judge over real HTTP


def test_paraphrase_reaches_the_judge_and_passes(judge_server: JudgeServer) -> None:
    judge_server.default = verdict(1.0, True, "Reloading nginx applies the new settings.")
    result, failures = gate_run(gate_metric(judge_server), [(PARAPHRASE, REFERENCE)])
    assert judge_server.count == 1
    only = result.turns[0]
    assert only.status is EvalStatus.PASSED and only.score == 1.0
    details = extra(only)
    assert details["method"] == "judge"
    assert details["judge"] == {
        "score": 1.0,
        "pass": True,
        "reasoning": "Reloading nginx applies the new settings.",
    }
    assert details["rouge"]["f1"] < 0.8
    assert result.extra["methods"] == {"exact": 0, "rouge": 0, "judge": 1}
    assert failures == []
    body = judge_server.bodies()[0]
    prompt = body["messages"][0]["content"]
    for text in (QUESTION, REFERENCE, PARAPHRASE, '"score"', '"pass"', '"reasoning"'):
        assert text in prompt
    # Temperature 0 by default, Go's other judge defaults kept; no schema is attached.
    assert body["temperature"] == 0
    assert body["max_completion_tokens"] == 2000
    assert "response_format" not in body


def test_word_salad_with_reference_keywords_is_failed_by_the_judge(
    judge_server: JudgeServer,
) -> None:
    judge_server.when(WORD_SALAD, verdict(0.0, False, "A list of keywords, not an answer."))
    judge_server.default = verdict(1.0, True)
    result, _ = gate_run(gate_metric(judge_server), [(WORD_SALAD, REFERENCE)])
    assert judge_server.count == 1
    only = result.turns[0]
    assert only.status is EvalStatus.FAILED and only.score == 0.0
    assert extra(only)["method"] == "judge"
    assert extra(only)["judge"]["pass"] is False
    # It shares most of the reference's words, yet ROUGE alone could not pass it.
    assert 0.5 < extra(only)["rouge"]["f1"] < 0.8
    assert "earn nothing" in judge_server.recorded()[0].prompt
    assert result.status is EvalStatus.FAILED


def test_near_miss_passes_by_rouge_without_a_judge_call(judge_server: JudgeServer) -> None:
    judge_server.default = verdict(0.0, False)
    result, _ = gate_run(gate_metric(judge_server), [(NEAR_MISS, REFERENCE)])
    assert judge_server.count == 0
    only = result.turns[0]
    assert only.status is EvalStatus.PASSED
    assert extra(only)["method"] == "rouge"
    assert extra(only)["rouge"]["f1"] == pytest.approx(8 / 9)
    assert result.extra["methods"] == {"exact": 0, "rouge": 1, "judge": 0}


def test_methods_are_counted_and_only_open_turns_cost_a_call(judge_server: JudgeServer) -> None:
    judge_server.default = verdict(1.0, True)
    pairs: list[tuple[str | None, str | None]] = [
        ("restart the NGINX service to apply the new configuration!", REFERENCE),
        (NEAR_MISS, REFERENCE),
        (PARAPHRASE, REFERENCE),
        ("Paris", "paris."),
    ]
    result, _ = gate_run(gate_metric(judge_server, threshold=0.75), pairs)
    assert [extra(t)["method"] for t in result.turns] == ["exact", "rouge", "judge", "exact"]
    assert result.extra["methods"] == {"exact": 2, "rouge": 1, "judge": 1}
    assert judge_server.count == 1
    assert PARAPHRASE in judge_server.recorded()[0].prompt
    assert result.score == 1.0 and result.status is EvalStatus.PASSED


def test_use_judge_false_never_calls_the_judge(judge_server: JudgeServer) -> None:
    result, _ = gate_run(gate_metric(judge_server, gate={"useJudge": False}), [(PARAPHRASE, REFERENCE)])  # fmt: skip
    assert judge_server.count == 0
    assert extra(result.turns[0])["method"] == "rouge"
    assert result.turns[0].status is EvalStatus.FAILED


FENCED_AND_CHATTY = [
    '```json\n{"score": 0.9, "pass": true, "reasoning": "Same fix."}\n```',
    '```\n{"score": 0.9, "pass": true, "reasoning": "Same fix."}\n```',
    'Sure! Here is my verdict:\n{"score": 0.9, "pass": true, "reasoning": "Same fix."}\nHope it helps.',
    'My assessment:\n```json\n{"score": 0.9, "pass": true, "reasoning": "Same fix."}\n```\nDone.',
    '  {"Score": 0.9, "PASS": true, "Reasoning": "Same fix."}  ',
]


@pytest.mark.parametrize("content", FENCED_AND_CHATTY)
def test_fenced_and_chatty_replies_parse(judge_server: JudgeServer, content: str) -> None:
    judge_server.default = Reply(content=content)
    result, _ = gate_run(gate_metric(judge_server), [(PARAPHRASE, REFERENCE)])
    assert extra(result.turns[0])["judge"] == {"score": 0.9, "pass": True, "reasoning": "Same fix."}
    assert result.turns[0].status is EvalStatus.PASSED


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"score": 1.5, "pass": true, "reasoning": "x"}', r"judge score 1\.5 is outside \[0, 1\]"),
        ('{"score": -0.1, "pass": false, "reasoning": "x"}', r"judge score -0\.1 is outside"),
        ("The candidate is fine.", "no JSON object in the judge reply"),
        ('{"score": 0.9, "pass": true, "reasoning": "x",}', "judge reply is not valid JSON"),
        ('{"score": "0.9", "pass": true}', "judge reply has no numeric score"),
        ('{"score": 0.9, "pass": "yes"}', "judge reply has no boolean pass"),
        ('{"score": true, "pass": true}', "judge reply has no numeric score"),
    ],
)
def test_malformed_judge_replies_fail_the_case(
    judge_server: JudgeServer, content: str, message: str
) -> None:
    judge_server.default = Reply(content=content)
    with pytest.raises(EvaluatorError, match="score based on response: " + message):
        gate_run(gate_metric(judge_server), [(PARAPHRASE, REFERENCE)])


def test_judge_score_below_the_gate_threshold_fails(judge_server: JudgeServer) -> None:
    judge_server.default = verdict(0.5, True, "Partly right.")
    strict, _ = gate_run(gate_metric(judge_server), [(PARAPHRASE, REFERENCE)])
    assert strict.turns[0].status is EvalStatus.FAILED
    assert extra(strict.turns[0])["judge"]["score"] == 0.5
    lenient, _ = gate_run(
        gate_metric(judge_server, gate={"judgeThreshold": 0.5}), [(PARAPHRASE, REFERENCE)]
    )
    assert lenient.turns[0].status is EvalStatus.PASSED
    # The judge's own "pass": false fails a turn whatever the score.
    judge_server.default = verdict(1.0, False, "Contradicts the reference.")
    refused, _ = gate_run(gate_metric(judge_server), [(PARAPHRASE, REFERENCE)])
    assert refused.turns[0].status is EvalStatus.FAILED


def test_samples_are_combined_by_majority_vote(judge_server: JudgeServer) -> None:
    judge_server.enqueue(verdict(1.0, True), verdict(0.0, False), verdict(0.9, True))
    result, _ = gate_run(gate_metric(judge_server, num_samples=3), [(PARAPHRASE, REFERENCE)])
    assert judge_server.count == 3
    assert [b["messages"] for b in judge_server.bodies()].count(
        judge_server.bodies()[0]["messages"]
    ) == 3
    only = result.turns[0]
    assert only.status is EvalStatus.PASSED
    assert extra(only)["votes"] == {"pass": 2, "fail": 1}
    assert extra(only)["judge"]["pass"] is True


def test_a_tied_vote_fails(judge_server: JudgeServer) -> None:
    judge_server.enqueue(verdict(1.0, True), verdict(0.0, False))
    result, _ = gate_run(gate_metric(judge_server, num_samples=2), [(PARAPHRASE, REFERENCE)])
    only = result.turns[0]
    assert only.status is EvalStatus.FAILED
    assert extra(only)["votes"] == {"pass": 1, "fail": 1}
    assert extra(only)["judge"]["pass"] is False


def test_each_run_asks_the_judge_afresh_and_reruns_hit_the_cache(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    judge_server.default = verdict(1.0, True)
    cache = tmp_path / "cache.sqlite"
    metric = gate_metric(judge_server, num_samples=2)
    for run_id in (1, 2, 1, 2):
        result, _ = gate_run(metric, [(PARAPHRASE, REFERENCE)], run_id=run_id, cache=cache)
        assert result.turns[0].status is EvalStatus.PASSED
    # Runs 1 and 2 each cost their own two samples; repeating them is answered by the cache.
    assert judge_server.count == 4


@pytest.mark.parametrize(
    ("generation", "temperature", "max_tokens"),
    [(None, 0, 2000), ({"max_tokens": 64}, 0, 64), ({"temperature": 0.3}, 0.3, None)],
)
def test_temperature_defaults_to_zero(
    judge_server: JudgeServer,
    generation: dict[str, Any] | None,
    temperature: float,
    max_tokens: int | None,
) -> None:
    judge_server.default = verdict(1.0, True)
    gate_run(gate_metric(judge_server, generation=generation), [(PARAPHRASE, REFERENCE)])
    body = judge_server.bodies()[0]
    assert body["temperature"] == temperature
    assert body.get("max_completion_tokens") == max_tokens


def test_unreachable_judge_leaves_the_turn_not_evaluated(judge_server: JudgeServer) -> None:
    judge_server.default = Reply.status_error(401, "invalid api key")
    pairs: list[tuple[str | None, str | None]] = [(PARAPHRASE, REFERENCE), ("Paris", "paris")]
    result, failures = gate_run(gate_metric(judge_server), pairs)
    first, second = result.turns
    assert first.status is EvalStatus.NOT_EVALUATED and first.score == 0.0
    assert "401" in first.details.reason and "invalid api key" in first.details.reason
    assert extra(first)["method"] == "judge"
    assert second.status is EvalStatus.PASSED
    # The open turn counts for no method and is left out of the mean.
    assert result.extra["methods"] == {"exact": 1, "rouge": 0, "judge": 0}
    assert result.score == 1.0
    assert len(failures) == 1
    assert failures[0].startswith("gate-set/case-7 run 1 metric final_response_gate turn 1: ")


# ------------------------------------------------------------ pure helpers


def test_parse_judge_reply_keeps_the_fields() -> None:
    parsed = parse_judge_reply('```JSON\n{"score": 1, "pass": false, "reasoning": " Off. "}\n```')
    assert parsed == JudgeVerdict(1.0, False, "Off.")
    assert parse_judge_reply('{"score": 0, "pass": false}').reasoning == ""
    # Cut to the outermost braces, a JSON array around an object leaves just the object.
    with pytest.raises(JudgeReplyFormatError, match="no numeric score"):
        parse_judge_reply("[{}]")
    with pytest.raises(JudgeReplyFormatError, match="outside"):
        parse_judge_reply('{"score": 1e400, "pass": true}')


def test_majority_vote_picks_the_first_sample_of_the_winning_side() -> None:
    fail = JudgeVerdict(0.2, False, "no")
    weak = JudgeVerdict(0.6, True, "weak yes")
    strong = JudgeVerdict(0.9, True, "yes")
    vote = majority_vote([fail, weak, strong, strong], threshold=0.8)
    assert (vote.passed, vote.passes, vote.fails) == (False, 2, 2)
    assert vote.representative is fail
    vote = majority_vote([weak, strong, strong], threshold=0.5)
    assert (vote.passed, vote.representative) == (True, weak)


# ------------------------------------------------------------ end to end


def test_gate_end_to_end_through_the_api(judge_server: JudgeServer, tmp_path: Any) -> None:
    """Files in, results out: per-turn methods and the per-method counts reach the result."""
    from agenteval import api
    from agenteval.schema.base import dump

    judge_server.when("<candidate_answer>", verdict(1.0, True, "Same fix."))
    pairs = [(NEAR_MISS, REFERENCE), (PARAPHRASE, REFERENCE), ("paris!", "Paris")]

    def conversation(answers: list[str]) -> list[dict[str, Any]]:
        return [
            {
                "invocationId": f"t{i}",
                "userContent": {"role": "user", "content": QUESTION},
                "finalResponse": {"role": "assistant", "content": text},
            }
            for i, text in enumerate(answers)
        ]

    evalset = {
        "evalSetId": "gate-e2e",
        "evalCases": [
            {
                "evalId": "ops-1",
                "evalMode": "trace",
                "actualConversation": conversation([c for c, _ in pairs]),
                "conversation": conversation([r for _, r in pairs]),
                "sessionInput": {"appName": "ops", "userId": "u"},
            }
        ],
    }
    metric = gate_metric(judge_server, gate={"rougeF1": 0.8})
    (tmp_path / "gate-e2e.evalset.json").write_text(json.dumps(evalset))
    (tmp_path / "gate-e2e.metrics.json").write_text(json.dumps([dump(metric)]))
    result = api.evaluate(str(tmp_path / "gate-e2e.evalset.json"), cache=None)
    assert result.exit_code == api.EXIT_PASSED
    assert judge_server.count == 1
    case = result.results[0].case_results()[0]
    overall = (case.overall_eval_metric_results or [])[0]
    assert dump(overall)["methods"] == {"exact": 1, "rouge": 1, "judge": 1}
    per_turn = [
        dump((turn.eval_metric_results or [])[0])["details"]
        for turn in case.eval_metric_result_per_invocation or []
    ]
    assert [d["method"] for d in per_turn] == ["rouge", "judge", "exact"]
    assert per_turn[1]["judge"] == {"score": 1, "pass": True, "reasoning": "Same fix."}


def test_unreachable_judge_makes_the_run_incomplete(
    judge_server: JudgeServer, tmp_path: Any
) -> None:
    from agenteval import api
    from agenteval.schema.base import dump

    judge_server.default = Reply.status_error(403, "forbidden")
    evalset = {
        "evalSetId": "gate-e2e",
        "evalCases": [
            {
                "evalId": "ops-1",
                "evalMode": "trace",
                "actualConversation": [
                    {"userContent": {"role": "user", "content": QUESTION},
                     "finalResponse": {"role": "assistant", "content": PARAPHRASE}}
                ],
                "conversation": [
                    {"userContent": {"role": "user", "content": QUESTION},
                     "finalResponse": {"role": "assistant", "content": REFERENCE}}
                ],
                "sessionInput": {"appName": "ops", "userId": "u"},
            }
        ],
    }  # fmt: skip
    (tmp_path / "gate-e2e.evalset.json").write_text(json.dumps(evalset))
    (tmp_path / "gate-e2e.metrics.json").write_text(json.dumps([dump(gate_metric(judge_server))]))
    result = api.evaluate(str(tmp_path / "gate-e2e.evalset.json"), cache=None)
    assert result.exit_code == api.EXIT_INCOMPLETE
    assert len(result.judge_failures) == 1
    assert "403" in result.judge_failures[0]
