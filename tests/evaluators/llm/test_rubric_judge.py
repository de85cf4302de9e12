"""The four built-in rubric evaluators (llm-evaluators.md §5.3–§5.6; §11 20, 38–41) over HTTP.

Each judge reply is scripted on the loopback server; requests are inspected as
they went over the wire (prompt, ``response_format``).  Malformed replies of
issue 4 acceptance 3 run through every rubric evaluator: each fails the
evaluation with the scorer's reason and the turn, never a crash or a zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_support import error, judge_model, metric, ok, options, run, turn

from agenteval.api import Options, prepare
from agenteval.errors import ConfigError
from agenteval.evaluators.llm.knowledge_recall import KnowledgeRecallJudge
from agenteval.evaluators.llm.operators.constructors import TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.rubric_critic import RubricCriticJudge, RubricCriticPrompt
from agenteval.evaluators.llm.rubric_judge import RubricJudge, RubricPrompt
from agenteval.evaluators.llm.rubric_reference_critic import (
    RubricReferenceCriticJudge,
    RubricReferenceCriticPrompt,
)
from agenteval.evaluators.llm.rubric_response import RubricResponseJudge, RubricResponsePrompt
from agenteval.evaluators.registry import evaluators
from agenteval.schema import EvalMetric, Invocation
from agenteval.schema.base import dump
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGES: dict[str, tuple[RubricJudge, str]] = {
    "llm_rubric_response": (RubricResponseJudge(), "rubric_response_scores"),
    "llm_rubric_critic": (RubricCriticJudge(), "rubric_critic_scores"),
    "llm_rubric_reference_critic": (RubricReferenceCriticJudge(), "rubric_reference_critic_scores"),
    "llm_rubric_knowledge_recall": (KnowledgeRecallJudge(), "rubric_knowledge_recall_scores"),
}
DESCRIPTIONS = {
    "llm_rubric_response": (
        "LLM rubric response evaluator",
        "Per-rubric binary scores and reasons for rubric response evaluation.",
    ),
    "llm_rubric_critic": (
        "LLM rubric critic evaluator",
        "Per-rubric binary scores and reasons for rubric critic evaluation.",
    ),
    "llm_rubric_reference_critic": (
        "LLM rubric critic evaluator against reference answers",
        "Per-rubric binary scores and reasons for rubric reference critic evaluation.",
    ),
    "llm_rubric_knowledge_recall": (
        "LLM rubric knowledge recall evaluator",
        "Per-rubric binary scores and reasons for knowledge recall evaluation.",
    ),
}


def rubric(rubric_id: str, text: str) -> dict[str, Any]:
    return {"id": rubric_id, "content": {"text": text}}


def rubric_metric(
    server: JudgeServer | None,
    *rubrics: dict[str, Any],
    name: str = "llm_rubric_response",
    threshold: float = 0.5,
    **model: Any,
) -> EvalMetric:
    block = {"judgeModel": judge_model(server, **model), "rubrics": list(rubrics)}
    return metric(server, name=name, threshold=threshold, llm_judge=block)


def scores(*items: tuple[str, int | float, str]) -> Reply:
    payload = {"rubricScores": [{"id": i, "score": s, "reason": r} for i, s, r in items]}
    return Reply(content=json.dumps(payload))


def prompt_of(server: JudgeServer, index: int = 0) -> str:
    content: str = server.bodies()[index]["messages"][0]["content"]
    return content


def positions(text: str, *needles: str) -> list[int]:
    found = [text.index(n) for n in needles]
    return found


R1 = rubric("1", "The final answer states the correct city.")
R2 = rubric("2", "The final answer is one sentence.")


def test_registered_under_go_names() -> None:
    for name, (judge, _) in JUDGES.items():
        registered = evaluators.get(name)
        assert type(registered) is type(judge)
        assert registered is not None and registered.description == DESCRIPTIONS[name][0]


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_request_carries_the_strict_rubric_schema(judge_server: JudgeServer, name: str) -> None:
    judge, schema_name = JUDGES[name]
    judge_server.default = scores(("1", 1, "ok"), ("2", 0, "no"))
    m = rubric_metric(judge_server, R1, R2, name=name)
    result = ok(run(judge, m, [turn("q", "Paris.")], [turn("q", "Paris.")]))
    only = result.turns[0]
    assert (only.score, only.status) == (0.5, EvalStatus.PASSED)
    assert [(s.id, s.score, s.reason) for s in only.details.rubric_scores or []] == [
        ("1", 1.0, "ok"),
        ("2", 0.0, "no"),
    ]
    assert only.details.reason == "ok\nno"
    body = judge_server.bodies()[0]
    assert [m["role"] for m in body["messages"]] == ["user"]
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema"
    spec = response_format["json_schema"]
    assert (spec["name"], spec["strict"], spec["description"]) == (
        schema_name,
        True,
        DESCRIPTIONS[name][1],
    )
    array = spec["schema"]["properties"]["rubricScores"]
    assert (array["minItems"], array["maxItems"]) == (2, 2)
    assert array["items"]["properties"]["id"]["enum"] == ["1", "2"]
    assert "rubricScores" in prompt_of(judge_server)
    assert judge_server.count == 1


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_s20_legacy_text_reply_is_a_decode_error(judge_server: JudgeServer, name: str) -> None:
    judge, _ = JUDGES[name]
    judge_server.default = Reply(
        content='{"debug": true}\n\nID: 1\nRubric: alpha\nEvidence: e1\nReason: r1\nVerdict: yes\n'
    )
    m = rubric_metric(judge_server, rubric("1", "alpha"), name=name)
    message = error(run(judge, m, [turn()], [turn()]))
    assert message.startswith("score based on response: unmarshal response json: "), message


MALFORMED = [
    ("The answer satisfies both rubrics.", "unmarshal response json: "),
    ('{"rubricScores":[{"id":"1","score":1,"reason":"a"}]}', 'missing rubric score id "2"'),
    (
        '{"rubricScores":[{"id":"1","score":1,"reason":"a"},{"id":"7","score":1,"reason":"b"}]}',
        'unexpected rubric score id "7"',
    ),
    (
        '{"rubricScores":[{"id":"1","score":"1","reason":"a"},{"id":"2","score":1,"reason":"b"}]}',
        "unmarshal response json: cannot unmarshal string into field rubricScores[0].score",
    ),
    ("null", "rubricScores is empty"),
    (
        'Here is my evaluation:\n```json\n{"rubricScores":[{"id":"1","score":1,"reason":"a"},'
        '{"id":"2","score":1,"reason":"b"}]}\n```',
        "unmarshal response json: ",
    ),
]


@pytest.mark.parametrize("name", sorted(JUDGES))
@pytest.mark.parametrize(("content", "reason"), MALFORMED)
def test_malformed_replies_fail_with_the_reason(
    judge_server: JudgeServer, name: str, content: str, reason: str
) -> None:
    judge, _ = JUDGES[name]
    judge_server.default = Reply(content=content)
    m = rubric_metric(judge_server, R1, R2, name=name)
    message = error(run(judge, m, [turn()], [turn()]))
    assert message.startswith(f"score based on response: {reason}"), message
    assert message.endswith("(turn 1)")


def test_malformed_sample_among_five_names_the_sample(judge_server: JudgeServer) -> None:
    good = scores(("1", 1, "a"), ("2", 1, "b"))
    judge_server.enqueue(good, good, Reply(content="not json"), good, good)
    m = rubric_metric(judge_server, R1, R2, numSamples=5)
    judge = RubricResponseJudge()
    message = error(run(judge, m, [turn()], [turn()], judge_options=options(concurrency=1)))
    assert message.startswith("score based on response: unmarshal response json: ")
    assert message.endswith("(turn 1, sample 3)")


def test_ids_in_the_reply_are_trimmed_and_the_mean_is_fractional(judge_server: JudgeServer) -> None:
    judge_server.default = scores((" a ", 1, "x"), ("b", 0, "y"), ("c", 0, "z"))
    m = rubric_metric(
        judge_server, rubric(" a ", "A."), rubric("b", "B."), rubric("c", "C."), threshold=0.5
    )
    result = ok(run(RubricResponseJudge(), m, [turn()], [turn()]))
    assert result.turns[0].score == pytest.approx(1 / 3)
    assert result.turns[0].status is EvalStatus.FAILED
    assert [s.id for s in result.turns[0].details.rubric_scores or []] == ["a", "b", "c"]
    # Prompts show ids untrimmed (§4.1), schemas trimmed (§4.3).
    assert "\n a : A.\nb: B.\nc: C.\n</rubric>" in prompt_of(judge_server)
    enum = judge_server.bodies()[0]["response_format"]["json_schema"]["schema"]
    assert enum["properties"]["rubricScores"]["items"]["properties"]["id"]["enum"] == [
        "a",
        "b",
        "c",
    ]


def test_two_turns_average_and_each_gets_its_own_schema(judge_server: JudgeServer) -> None:
    judge_server.when("first question", scores(("1", 1, "yes")))
    judge_server.when("second question", scores(("1", 0, "no")))
    m = rubric_metric(judge_server, R1, threshold=1)
    actuals = [turn("first question", "a1"), turn("second question", "a2")]
    result = ok(run(RubricResponseJudge(), m, actuals, [turn(), turn()]))
    assert [(t.score, t.status) for t in result.turns] == [
        (1.0, EvalStatus.PASSED),
        (0.0, EvalStatus.FAILED),
    ]
    assert (result.score, result.status) == (0.5, EvalStatus.FAILED)
    assert all("response_format" in body for body in judge_server.bodies())


# --- rubric response (§11 40) ------------------------------------------------------------


def test_rubric_response_prompt_order_and_contents(judge_server: JudgeServer) -> None:
    judge_server.default = scores(("1", 1, "ok"))
    actual = turn("What is the capital of France?", "Paris is the capital.")
    # Expected turns are ignored by llm_rubric_response.
    expected = turn("ignored question", "ignored reference")
    ok(run(RubricResponseJudge(), rubric_metric(judge_server, R1), [actual], [expected]))
    text = prompt_of(judge_server)
    assert "ignored" not in text
    at = positions(
        text,
        "<user_prompt>\n<main_prompt>\nWhat is the capital of France?\n</main_prompt>\n</user_prompt>",
        "<response>\n<final_answer>\nParis is the capital.\n</final_answer>\n</response>",
        "<rubric>\n1: The final answer states the correct city.\n</rubric>",
    )
    assert at == sorted(at)
    for rule in ("Tool calls", "outside knowledge", "rounding", "not applicable"):
        assert rule in text
    # The reply contract comes after the inputs.
    assert text.index('{"rubricScores"') > at[-1]


def prefix(m: EvalMetric | None, actuals: list[Any], expecteds: list[Any] | None = None) -> Any:
    return TurnPrefix(actuals, expecteds if expecteds is not None else list(actuals), m)  # type: ignore[arg-type]


def prompt_error(constructor: RubricPrompt, turn_prefix: TurnPrefix) -> str:
    with pytest.raises(OperatorError) as info:
        constructor.prompt(turn_prefix)
    return str(info.value)


NO_JUDGE = EvalMetric.model_validate({"metricName": "m", "criterion": {}})
NO_RUBRICS = EvalMetric.model_validate(
    {"metricName": "m", "criterion": {"llmJudge": {"rubrics": [{"id": "x"}]}}}
)
WITH_RUBRIC = rubric_metric(None, R1)


def test_s40_rubric_response_required_inputs() -> None:
    c = RubricResponsePrompt()
    assert prompt_error(c, prefix(WITH_RUBRIC, [])) == "actuals is empty"
    assert prompt_error(c, prefix(None, [turn()])) == "eval metric is nil"
    assert prompt_error(c, prefix(NO_JUDGE, [turn()])) == "llm judge criterion is required"
    # A rubric without content is invisible.
    assert prompt_error(c, prefix(NO_RUBRICS, [turn()])) == "llm judge rubrics are required"
    assert prompt_error(c, prefix(WITH_RUBRIC, [None])) == "actual invocation is nil"
    # Expecteds are not needed at all.
    assert "1: The final answer" in c.prompt(prefix(WITH_RUBRIC, [turn()], []))
    schema = c.structured_output(prefix(WITH_RUBRIC, [turn()]))
    assert schema is not None and schema.name == "rubric_response_scores"
    array = schema.schema["properties"]["rubricScores"]
    assert (array["minItems"], array["maxItems"]) == (1, 1)


def test_missing_messages_render_empty() -> None:
    bare = Invocation()
    text = RubricResponsePrompt().prompt(prefix(WITH_RUBRIC, [bare]))
    assert "<main_prompt>\n\n</main_prompt>" in text
    assert "<final_answer>\n\n</final_answer>" in text


# --- rubric critic (§11 38) --------------------------------------------------------------


def test_s38_critic_prompt_and_schema(judge_server: JudgeServer) -> None:
    judge_server.default = scores(("1", 1, "Golden says Paris; Actual says Paris."))
    actual = turn("What is the capital of France?", "Paris is the capital.")
    expected = turn("What is the capital of France?", "The capital of France is Paris.")
    m = rubric_metric(judge_server, R1, name="llm_rubric_critic")
    result = ok(run(RubricCriticJudge(), m, [actual], [expected]))
    assert result.turns[0].score == 1.0
    text = prompt_of(judge_server)
    for needle in (
        "What is the capital of France?",
        "Paris is the capital.",
        "The capital of France is Paris.",
        "1: The final answer states the correct city.",
        "llm_rubric_critic",
        "<reference_answer>",
        "rubricScores",
        "Golden",
    ):
        assert needle in text
    at = positions(
        text,
        "<main_prompt>\nWhat is the capital of France?\n</main_prompt>",
        "<final_answer>\nParis is the capital.\n</final_answer>",
        "<reference_answer>\nThe capital of France is Paris.\n</reference_answer>",
        "<rubric>\n1: The final answer",
    )
    assert at == sorted(at)
    spec = judge_server.bodies()[0]["response_format"]["json_schema"]
    assert spec["name"] == "rubric_critic_scores"
    array = spec["schema"]["properties"]["rubricScores"]
    assert (array["minItems"], array["maxItems"]) == (1, 1)


def test_s38_rubric_id_errors_come_from_the_structured_output_step() -> None:
    c = RubricCriticPrompt()
    blank = rubric_metric(None, rubric("", "The final answer states the correct city."))
    p = prefix(blank, [turn()])
    assert "The final answer states the correct city." in c.prompt(p)
    with pytest.raises(
        OperatorError, match=r"^llm judge rubric id is required for structured output$"
    ):
        c.structured_output(p)
    twice = rubric_metric(None, R1, rubric("1", "Another."))
    with pytest.raises(OperatorError, match=r'^duplicate llm judge rubric id "1"$'):
        c.structured_output(prefix(twice, [turn()]))


def test_s38_bad_rubric_ids_fail_before_any_judge_call(judge_server: JudgeServer) -> None:
    m = rubric_metric(judge_server, R1, rubric(" 1 ", "Again."), name="llm_rubric_critic")
    message = error(run(RubricCriticJudge(), m, [turn()], [turn()]))
    assert message == 'resolve structured output: duplicate llm judge rubric id "1" (turn 1)'
    assert judge_server.count == 0


def test_s38_critic_required_inputs() -> None:
    c = RubricCriticPrompt()
    no_reference = turn("q", None)
    assert prompt_error(c, prefix(WITH_RUBRIC, [], [turn()])) == "actuals is empty"
    assert prompt_error(c, prefix(WITH_RUBRIC, [turn()], [])) == "expecteds is empty"
    assert prompt_error(c, prefix(None, [turn()])) == "eval metric is nil"
    assert prompt_error(c, prefix(NO_JUDGE, [turn()])) == "llm judge criterion is required"
    assert prompt_error(c, prefix(NO_RUBRICS, [turn()])) == "llm judge rubrics are required"
    assert prompt_error(c, prefix(WITH_RUBRIC, [None], [turn()])) == "actual invocation is nil"
    assert prompt_error(c, prefix(WITH_RUBRIC, [turn()], [None])) == "expected invocation is nil"
    assert prompt_error(c, prefix(WITH_RUBRIC, [turn()], [no_reference])) == (
        "expected final response is required for llm_rubric_critic"
    )
    # An empty reference text is allowed; a missing actual answer reads as empty.
    text = c.prompt(prefix(WITH_RUBRIC, [turn("q", None)], [turn("q", "")]))
    assert "<final_answer>\n\n</final_answer>" in text
    assert "<reference_answer>\n\n</reference_answer>" in text


# --- rubric reference critic (§11 39) ----------------------------------------------------


def test_s39_reference_critic_order_and_schema(judge_server: JudgeServer) -> None:
    judge_server.default = scores(("1", 0, "Reference gives a year; Actual does not."))
    m = rubric_metric(judge_server, R1, name="llm_rubric_reference_critic")
    actual = turn("When was it released?", "It was released recently.")
    expected = turn("When was it released?", "It was released in 2024.")
    result = ok(run(RubricReferenceCriticJudge(), m, [actual], [expected]))
    assert (result.score, result.status) == (0.0, EvalStatus.FAILED)
    text = prompt_of(judge_server)
    assert "llm_rubric_reference_critic" in text and "quality anchor" in text
    at = positions(
        text,
        "<main_prompt>\nWhen was it released?\n</main_prompt>",
        "<reference_answer>\nIt was released in 2024.\n</reference_answer>",
        "<response>\n<final_answer>\nIt was released recently.\n</final_answer>\n</response>",
        "<rubric>\n1: ",
    )
    assert at == sorted(at)
    spec = judge_server.bodies()[0]["response_format"]["json_schema"]
    assert spec["name"] == "rubric_reference_critic_scores"


def test_s39_reference_critic_required_inputs() -> None:
    c = RubricReferenceCriticPrompt()
    # expecteds are checked before the rubrics.
    assert prompt_error(c, prefix(NO_RUBRICS, [turn()], [])) == "expecteds is empty"
    assert prompt_error(c, prefix(NO_RUBRICS, [turn()])) == "llm judge rubrics are required"
    assert prompt_error(c, prefix(WITH_RUBRIC, [turn()], [Invocation()])) == (
        "expected final response is required for llm_rubric_reference_critic"
    )


# --- up-front checks ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_checks_report_rubric_problems_up_front(name: str) -> None:
    judge, _ = JUDGES[name]
    clean = list(judge.check(rubric_metric(None, R1, name=name)))
    assert clean == []
    issues = list(
        judge.check(
            rubric_metric(None, rubric(" ", "a"), R1, rubric("1 ", "b"), {"id": "x"}, name=name)
        )
    )
    assert [(i.path, i.message, i.warning) for i in issues] == [
        (
            "criterion.llmJudge.rubrics[0].id",
            "llm judge rubric id is required for structured output",
            False,
        ),
        ("criterion.llmJudge.rubrics[2].id", 'duplicate llm judge rubric id "1"', False),
    ]
    # No rubrics at all: case-level rubrics may still add them, so only a warning.
    (only,) = judge.check(rubric_metric(None, name=name))
    assert (only.path, only.message, only.warning) == (
        "criterion.llmJudge.rubrics",
        "llm judge rubrics are required",
        True,
    )
    missing = EvalMetric.model_validate({"metricName": name, "threshold": 1})
    (problem,) = judge.check(missing)
    assert problem.message == "missing required fields in eval metric" and not problem.warning


def test_validation_reports_rubric_problems_with_file_and_path(tmp_path: Path) -> None:
    evalset = tmp_path / "s.evalset.json"
    # A case the runner can lay out: validate reports its layout problems too (issue 12).
    turn = {"userContent": {"role": "user", "content": "q"}}
    case = {"evalId": "c", "evalMode": "trace", "sessionInput": {}, "actualConversation": [turn]}
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    bad = rubric_metric(None, R1, rubric(" 1", "Again."), name="llm_rubric_critic")
    no_rubrics = rubric_metric(None, name="llm_rubric_response")
    metrics = tmp_path / "s.metrics.json"
    metrics.write_text(json.dumps([dump(bad), dump(no_rubrics)]))
    with pytest.raises(ConfigError) as info:
        prepare([str(evalset)], Options(metrics=str(metrics), cache=None))
    (problem,) = info.value.problems
    assert (problem.path, problem.message) == (
        "[0].criterion.llmJudge.rubrics[1].id",
        'duplicate llm judge rubric id "1"',
    )
    # Without the bad metric the rubric-less one is only a warning.
    metrics.write_text(json.dumps([dump(no_rubrics)]))
    prepared = prepare([str(evalset)], Options(metrics=str(metrics), cache=None))
    assert [(w.path, w.message) for w in prepared.warnings] == [
        ("[0].criterion.llmJudge.rubrics", "llm judge rubrics are required")
    ]


def test_s58_unset_parallelism_is_not_serialised() -> None:
    written = json.dumps(dump(rubric_metric(None, R1)))
    assert "sampleParallelism" not in written
    assert "apiKey" not in written and "sk-test" not in written
