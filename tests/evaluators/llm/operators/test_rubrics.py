"""JSON reply decoding, rubric validation/schema and the rubric_scores scorer (§4.2–§4.5, §11 17–22).

The malformed-reply cases of issue 4 also run through the pipeline over HTTP:
each fails the case with the reason, never a crash and never a silent zero.
"""

from __future__ import annotations

from typing import Any

import pytest
from llm_support import error, judge_model, metric, ok, run, turn

from agenteval.evaluators.llm.llm_final_response import FinalResponseJudge
from agenteval.evaluators.llm.operators.constructors import (
    PromptConstructor,
    TurnPrefix,
    rubric_block,
)
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.response_json import (
    NUMBER,
    STRING,
    unmarshal_reply,
)
from agenteval.evaluators.llm.operators.rubrics import (
    rubric_scores_schema,
    validate_structured,
    visible_rubrics,
)
from agenteval.evaluators.llm.operators.scorers import response_scorers
from agenteval.judge import JudgeReply, StructuredOutput
from agenteval.schema import EvalMetric
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

SCORER = response_scorers.resolve("rubric_scores")
TWO = '{"rubricScores":[{"id":"1","score":1,"reason":"Correct."},{"id":"2","score":0,"reason":"Missing evidence."}]}'


def with_rubrics(*rubrics: dict[str, Any] | None) -> EvalMetric:
    return EvalMetric.model_validate(
        {"metricName": "m", "threshold": 0.5, "criterion": {"llmJudge": {"rubrics": list(rubrics)}}}
    )


def rubric(rubric_id: str, text: str = "t") -> dict[str, Any]:
    return {"id": rubric_id, "content": {"text": text}}


NO_RUBRICS = EvalMetric(metric_name="m", threshold=0.5)
R12 = with_rubrics(rubric("1"), rubric("2"))


def score(text: str, m: EvalMetric = NO_RUBRICS) -> Any:
    return SCORER.score(JudgeReply(text=text), m)


def fails(text: str, m: EvalMetric = NO_RUBRICS) -> str:
    with pytest.raises(OperatorError) as info:
        score(text, m)
    return str(info.value)


# --- rubric_scores scorer (§11 17–21) -----------------------------------------------------


def test_s17_any_ids_without_rubrics() -> None:
    result = score(TWO)
    assert result.score == 0.5
    assert result.value is not None and (result.value.kind, result.value.numeric) == (
        "numeric",
        0.5,
    )
    assert [(r.id, r.score, r.reason) for r in result.rubric_scores] == [
        ("1", 1.0, "Correct."),
        ("2", 0.0, "Missing evidence."),
    ]
    assert result.reason == "Correct.\nMissing evidence."


def test_s18_ids_checked_against_rubrics() -> None:
    assert score(TWO, R12).score == 0.5
    dup = TWO.replace('"id":"2"', '"id":"1"')
    assert fails(dup, R12) == 'duplicate rubric score id "1"'
    assert fails(TWO.replace('"id":"2"', '"id":"3"'), R12) == 'unexpected rubric score id "3"'
    only_one = '{"rubricScores":[{"id":"1","score":1,"reason":"ok"}]}'
    assert fails(only_one, R12) == 'missing rubric score id "2"'


def test_s18_duplicates_are_errors_without_rubrics_too() -> None:
    assert fails(TWO.replace('"id":"2"', '"id":" 1 "')) == 'duplicate rubric score id "1"'


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ('{"rubricScores":[]}', "rubricScores is empty"),
        ('{"rubricScores":null}', "rubricScores is empty"),
        ("{}", "rubricScores is empty"),
        ("null", "rubricScores is empty"),
        ('{"rubricScores":[{"id":"","score":1,"reason":"r"}]}', "rubric score id is empty"),
        ('{"rubricScores":[{"id":"  ","score":1,"reason":"r"}]}', "rubric score id is empty"),
        ('{"rubricScores":[{"score":1,"reason":"r"}]}', "rubric score id is empty"),
        ('{"rubricScores":[null]}', "rubric score id is empty"),
        ('{"rubricScores":[{"id":"1","reason":"r"}]}', "rubric score is required"),
        ('{"rubricScores":[{"id":"1","score":null,"reason":"r"}]}', "rubric score is required"),
        ('{"rubricScores":[{"id":"1","score":1}]}', "rubric score reason is required"),
        (
            '{"rubricScores":[{"id":"1","score":2,"reason":"r"}]}',
            "rubric score must be between 0 and 1",
        ),
        (
            '{"rubricScores":[{"id":"1","score":-0.1,"reason":"r"}]}',
            "rubric score must be between 0 and 1",
        ),
    ],
)
def test_s19_item_errors(reply: str, message: str) -> None:
    assert fails(reply) == message


def test_s19_not_json() -> None:
    assert fails("not-json").startswith("unmarshal response json: ")


def test_fractional_scores_are_accepted() -> None:
    result = score(
        '{"rubricScores":[{"id":"a","score":0.25,"reason":"x"},{"id":"b","score":1,"reason":"y"}]}'
    )
    assert result.score == pytest.approx(0.625)


def test_s20_legacy_text_reply_is_a_decode_error() -> None:
    legacy = '{"debug": true}\n\nID: 1\nRubric: alpha\nEvidence: e1\nReason: r1\nVerdict: yes\n'
    assert fails(legacy, R12).startswith("unmarshal response json: ")


def test_s21_keys_match_case_insensitively() -> None:
    result = score('{"RubricScores":[{"ID":"1","Score":1,"Reason":"ok"}]}')
    assert result.score == 1.0 and result.rubric_scores[0].id == "1"


def test_ids_are_trimmed_and_reasons_kept_raw() -> None:
    m = with_rubrics(rubric(" a "))
    result = score('{"rubricScores":[{"id":" a ","score":1,"reason":"  spaced  "}]}', m)
    assert (result.rubric_scores[0].id, result.rubric_scores[0].reason) == ("a", "  spaced  ")


def test_first_missing_id_in_rubric_order() -> None:
    m = with_rubrics(rubric("x"), rubric("y"), rubric("z"))
    reply = '{"rubricScores":[{"id":"y","score":1,"reason":"r"}]}'
    assert fails(reply, m) == 'missing rubric score id "x"'


def test_rubric_validation_errors_propagate() -> None:
    m = with_rubrics(rubric("a"), rubric(" a "))
    reply = '{"rubricScores":[{"id":"a","score":1,"reason":"r"}]}'
    assert fails(reply, m) == 'duplicate llm judge rubric id "a"'


# --- §4.4 decoding ------------------------------------------------------------------------

SINGLE = {"score": NUMBER, "reason": STRING}


def decode(text: str) -> dict[str, Any]:
    return unmarshal_reply(JudgeReply(text=text), SINGLE)


def decode_error(text: str) -> str:
    with pytest.raises(OperatorError) as info:
        decode(text)
    return str(info.value)


def test_s22_json_fence_is_stripped() -> None:
    assert decode('```json\n{"score":0.75,"reason":"Looks good."}\n```') == {
        "score": 0.75,
        "reason": "Looks good.",
    }


@pytest.mark.parametrize("fence", ["```JSON", "```"])
def test_other_fence_spellings(fence: str) -> None:
    assert decode(f'  {fence}\n{{"score":1,"reason":"r"}}\n```  ')["score"] == 1.0


def test_mixed_case_fence_word_is_left_in_place() -> None:
    assert decode_error('```Json\n{"score":1,"reason":"r"}\n```').startswith(
        "unmarshal response json: "
    )


def test_text_before_the_fence_is_not_handled() -> None:
    assert decode_error('Here you go:\n```json\n{"score":1,"reason":"r"}\n```').startswith(
        "unmarshal response json: "
    )


def test_nil_and_empty_replies() -> None:
    with pytest.raises(OperatorError, match=r"^response is nil$"):
        unmarshal_reply(None, SINGLE)
    assert decode_error("   \n") == "empty response text"


@pytest.mark.parametrize(
    "text",
    [
        '{"score":"1","reason":"r"}',
        '{"score":true,"reason":"r"}',
        '{"score":1,"reason":5}',
        '{"score":[1],"reason":"r"}',
        '{"score":NaN,"reason":"r"}',
        '{"score":Infinity,"reason":"r"}',
        '{"score":1e400,"reason":"r"}',
        "[1, 2]",
        '"text"',
        "3",
        '{"score":1,"reason":"r"} trailing',
        '{"score":1,"reason":"r"}{"score":0}',
        "{'score': 1}",
    ],
)
def test_strict_go_typing(text: str) -> None:
    assert decode_error(text).startswith("unmarshal response json: ")


def test_type_error_names_the_field() -> None:
    assert decode_error('{"score":"1","reason":"r"}') == (
        "unmarshal response json: cannot unmarshal string into field score of type number"
    )


def test_null_means_absent_and_unknown_keys_are_ignored() -> None:
    assert decode("null") == {"score": None, "reason": None}
    assert decode('{"score":null,"extra":{"x":[1]},"reason":"r"}') == {"score": None, "reason": "r"}


def test_last_case_insensitive_key_wins() -> None:
    assert decode('{"score":0.1,"SCORE":0.9,"Reason":"a","reason":"b"}') == {
        "score": 0.9,
        "reason": "b",
    }
    assert decode('{"Score":0.3,"score":null,"reason":"r"}')["score"] is None


def test_integers_become_floats() -> None:
    assert decode('{"score":1,"reason":"r"}')["score"] == 1.0


# --- §4.1–§4.3 rubrics --------------------------------------------------------------------


def test_rubric_block_renders_untrimmed_ids_and_skips_content_less() -> None:
    m = with_rubrics(rubric(" r1 ", "First."), {"id": "hidden"}, rubric("r2", "Second."))
    assert rubric_block(m) == " r1 : First.\nr2: Second.\n"
    assert rubric_block(NO_RUBRICS) == ""
    assert [r.id for r in visible_rubrics(m)] == [" r1 ", "r2"]


@pytest.mark.parametrize(
    ("m", "message"),
    [
        (None, "eval metric is nil"),
        (NO_RUBRICS, "llm judge criterion is required"),
        (with_rubrics(), "llm judge rubrics are required"),
        (with_rubrics({"id": "x"}), "llm judge rubrics are required"),
        (with_rubrics(rubric("  ")), "llm judge rubric id is required for structured output"),
        (with_rubrics(rubric("same"), rubric(" same ")), 'duplicate llm judge rubric id "same"'),
    ],
)
def test_validate_structured(m: EvalMetric | None, message: str) -> None:
    with pytest.raises(OperatorError) as info:
        validate_structured(m)
    assert str(info.value) == message


def test_rubric_scores_schema() -> None:
    m = with_rubrics(rubric(" a "), {"id": "skip"}, rubric("b"))
    out = rubric_scores_schema(m, "rubric_response_scores", "Per-rubric scores.")
    assert (out.name, out.strict, out.description) == (
        "rubric_response_scores",
        True,
        "Per-rubric scores.",
    )
    schema = out.schema
    array = schema["properties"]["rubricScores"]
    assert (array["minItems"], array["maxItems"]) == (2, 2)
    assert array["items"]["properties"]["id"]["enum"] == ["a", "b"]
    assert array["items"]["properties"]["score"] == {"type": "number", "enum": [0, 1]}
    assert array["items"]["required"] == ["id", "score", "reason"]
    assert array["items"]["additionalProperties"] is False
    assert schema["required"] == ["rubricScores"] and schema["additionalProperties"] is False


# --- malformed replies through the pipeline, over HTTP (issue 4 acceptance 3) ---------------


class RubricPrompt(PromptConstructor):
    """A minimal rubric judge input with the rubric-scores schema."""

    def prompt(self, turn: TurnPrefix) -> str:
        return f"Score each rubric:\n{rubric_block(turn.metric)}"

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        return rubric_scores_schema(turn.metric, "rubric_probe_scores", "Probe.")


RUBRIC_JUDGE = FinalResponseJudge().with_operators(constructor=RubricPrompt(), scorer=SCORER)


def rubric_metric(server: JudgeServer) -> EvalMetric:
    block = {"judgeModel": judge_model(server), "rubrics": [rubric("r1"), rubric("r2")]}
    return metric(server, llm_judge=block)


def test_well_formed_rubric_reply_over_http(judge_server: JudgeServer) -> None:
    judge_server.default = Reply(
        content='{"rubricScores":[{"id":"r1","score":1,"reason":"a"},{"id":"r2","score":0,"reason":"b"}]}'
    )
    result = ok(run(RUBRIC_JUDGE, rubric_metric(judge_server), [turn()], [turn()]))
    assert (result.turns[0].score, result.turns[0].status) == (0.5, EvalStatus.PASSED)
    scores = result.turns[0].details.rubric_scores or []
    assert [(s.id, s.score) for s in scores] == [("r1", 1.0), ("r2", 0.0)]
    body = judge_server.bodies()[0]
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "rubric_probe_scores"
    assert schema["schema"]["properties"]["rubricScores"]["items"]["properties"]["id"]["enum"] == [
        "r1",
        "r2",
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("The answer is fine.", "unmarshal response json: "),
        ('{"rubricScores":[{"id":"r1","score":1,"reason":"a"}]}', 'missing rubric score id "r2"'),
        (
            '{"rubricScores":[{"id":"r1","score":1,"reason":"a"},{"id":"r9","score":1,"reason":"b"}]}',
            'unexpected rubric score id "r9"',
        ),
        (
            '{"rubricScores":[{"id":"r1","score":"1","reason":"a"},{"id":"r2","score":1,"reason":"b"}]}',
            "unmarshal response json: cannot unmarshal string into field rubricScores[0].score",
        ),
        ("null", "rubricScores is empty"),
        (
            'Sure!\n```json\n{"rubricScores":[{"id":"r1","score":1,"reason":"a"},'
            '{"id":"r2","score":1,"reason":"b"}]}\n```',
            "unmarshal response json: ",
        ),
    ],
)
def test_malformed_rubric_replies_fail_the_case_with_the_reason(
    judge_server: JudgeServer, content: str, reason: str
) -> None:
    judge_server.default = Reply(content=content)
    message = error(run(RUBRIC_JUDGE, rubric_metric(judge_server), [turn()], [turn()]))
    assert message.startswith("score based on response: " + reason), message
    assert message.endswith("(turn 1)")
