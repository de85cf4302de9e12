"""The template judge's JSON scorers and structured outputs (llm-evaluators.md §5.8.3–§5.8.4, §11 22–26, 54).

Each scorer is exercised directly (Go's error texts, field order) and through
``llm_judge_template`` over HTTP: the schema the loopback judge receives and
the score of the reply it sends back.
"""

from __future__ import annotations

from typing import Any

import pytest
from llm_support import error, judge_model, ok, run, turn

from agenteval.evaluators.llm.judge_template import TemplateJudge
from agenteval.evaluators.llm.operators.json_scorers import read_categories
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.scorers import ScoreResult, response_scorers
from agenteval.evaluators.llm.operators.structured import structured_outputs
from agenteval.judge import JudgeReply
from agenteval.plugins import register_response_scorer
from agenteval.schema import EvalMetric
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = TemplateJudge()
THREE = [
    {"label": "correct", "score": 1},
    {"label": "partially_correct", "score": 0.5},
    {"label": "incorrect", "score": 0},
]


def template_metric(
    server: JudgeServer | None,
    scorer: str,
    *,
    threshold: float = 0.5,
    **template: Any,
) -> EvalMetric:
    """A template metric asking ``Grade: {{answer}}`` of the loopback judge."""
    block = {
        "prompt": "Grade: {{answer}}",
        "responseScorerName": scorer,
        "variableBindings": [
            {"templateVariable": "answer", "source": {"scope": "actual", "field": "finalResponse"}}
        ],
        **template,
    }
    return EvalMetric.model_validate(
        {
            "metricName": f"template_{scorer}",
            "evaluatorName": "llm_judge_template",
            "threshold": threshold,
            "criterion": {"llmJudge": {"judgeModel": judge_model(server), "template": block}},
        }
    )


CATEGORICAL = template_metric(None, "categorical", responseScorerOptions={"categories": THREE})


def score(name: str, text: str | None, metric: EvalMetric | None = None) -> ScoreResult:
    reply = JudgeReply(text=text) if text is not None else None
    return response_scorers.resolve(name).score(reply, metric or template_metric(None, name))


def fails(name: str, text: str | None, metric: EvalMetric | None = None) -> str:
    with pytest.raises(OperatorError) as info:
        score(name, text, metric)
    return str(info.value)


# --- single_score (§11 22–23) -------------------------------------------------------------


def test_s22_fenced_single_score() -> None:
    result = score("single_score", '```json\n{"score":0.75,"reason":"Looks good."}\n```')
    assert (result.score, result.reason) == (0.75, "Looks good.")
    assert result.value is not None and (result.value.kind, result.value.numeric) == (
        "numeric",
        0.75,
    )
    assert result.rubric_scores is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"score":1.2,"reason":"too high"}', "score must be between 0 and 1"),
        ('{"score":-0.1,"reason":"too low"}', "score must be between 0 and 1"),
        ('{"reason":"missing score"}', "score is required"),
        ('{"score":0.2}', "reason is required"),
        ('{"score":null,"reason":"null is absent"}', "score is required"),
        # Go checks presence before the range.
        ('{"score":1.2}', "reason is required"),
    ],
)
def test_s23_single_score_errors(text: str, message: str) -> None:
    assert fails("single_score", text) == message


def test_s23_not_json_and_nil() -> None:
    assert fails("single_score", "definitely not json").startswith("unmarshal response json")
    assert fails("single_score", None) == "response is nil"
    assert fails("single_score", '{"score":"1","reason":"x"}').startswith("unmarshal response json")
    assert fails("single_score", '{"score":true,"reason":"x"}').startswith(
        "unmarshal response json"
    )


def test_single_score_keys_are_case_insensitive() -> None:
    assert score("single_score", '{"SCORE":0,"Reason":"no"}').score == 0.0


# --- boolean (§11 24) ---------------------------------------------------------------------


def test_s24_boolean() -> None:
    passed = score("boolean", '{"passed":true,"reason":"ok"}')
    assert (passed.score, passed.reason) == (1.0, "ok")
    assert passed.value is not None and (passed.value.kind, passed.value.boolean) == (
        "boolean",
        True,
    )
    failed = score("boolean", '{"passed":false,"reason":"bad"}')
    assert failed.score == 0.0
    assert failed.value is not None and failed.value.boolean is False
    assert fails("boolean", '{"reason":"missing passed"}') == "passed is required"
    assert fails("boolean", '{"passed":true}') == "reason is required"
    assert fails("boolean", '{"passed":1,"reason":"number"}').startswith("unmarshal response json")


# --- categorical (§11 25–26) --------------------------------------------------------------


def test_s25_categorical() -> None:
    close = score("categorical", '{"category":"partially_correct","reason":"close"}', CATEGORICAL)
    assert (close.score, close.reason) == (0.5, "close")
    assert close.value is not None and (close.value.kind, close.value.categorical) == (
        "categorical",
        "partially_correct",
    )
    other = score(
        "categorical", '{"category":"unknown","reason":"model chose another label"}', CATEGORICAL
    )
    assert other.score == 0.0
    assert other.value is not None and other.value.categorical == "unknown"
    assert other.reason == 'unknown categorical label "unknown": model chose another label'
    # Label lookup is exact: another casing is another label.
    assert score("categorical", '{"category":"Correct","reason":"r"}', CATEGORICAL).score == 0.0
    assert fails("categorical", '{"reason":"r"}', CATEGORICAL) == "category is required"
    assert fails("categorical", '{"category":"correct"}', CATEGORICAL) == "reason is required"


def categorical_with(**options: Any) -> EvalMetric:
    return template_metric(None, "categorical", **options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "responseScorerOptions is required"),
        ({"responseScorerOptions": {}}, "categorical response scorer categories are required"),
        (
            {"responseScorerOptions": {"categories": []}},
            "categorical response scorer categories are required",
        ),
        ({"responseScorerOptions": {"categories": [None]}}, "categorical category is nil"),
        (
            {"responseScorerOptions": {"categories": [{"label": "", "score": 1}]}},
            "categorical category label is empty",
        ),
        (
            {"responseScorerOptions": {"categories": [{"label": "bad", "score": 2}]}},
            'categorical category "bad" score must be between 0 and 1',
        ),
        (
            {
                "responseScorerOptions": {
                    "categories": [{"label": "same", "score": 1}, {"label": "same", "score": 0}]
                }
            },
            'duplicate categorical category label "same"',
        ),
    ],
)
def test_s26_categorical_config(options: dict[str, Any], message: str) -> None:
    metric = categorical_with(**options)
    # Categories are checked before the reply is read.
    assert fails("categorical", "not json", metric) == message
    with pytest.raises(OperatorError, match=message):
        structured_outputs.resolve("categorical").structured_output(metric)


def test_categorical_config_paths_for_validate() -> None:
    metric = categorical_with(
        responseScorerOptions={"categories": [{"label": "ok", "score": 1}, {"label": "bad"}, 3]}
    )
    with pytest.raises(OperatorError) as info:
        read_categories(metric)
    assert str(info.value) == "categorical category must be an object"
    assert getattr(info.value, "path", "") == (
        "criterion.llmJudge.template.responseScorerOptions.categories[2]"
    )
    # An absent score is Go's zero value, a valid score.
    assert [
        c.score
        for c in read_categories(
            categorical_with(responseScorerOptions={"categories": [{"label": "zero"}]})
        )
    ] == [0.0]


def test_s26_categorical_schema() -> None:
    schema = structured_outputs.resolve("categorical").structured_output(CATEGORICAL)
    assert schema is not None
    assert (schema.name, schema.strict) == ("categorical_result", True)
    assert schema.description == (
        "A categorical label and a concise reason for the evaluation result."
    )
    assert schema.schema == {
        "type": "object",
        "properties": {
            "category": {
                "type": "string",
                "enum": ["correct", "partially_correct", "incorrect"],
            },
            "reason": {"type": "string"},
        },
        "required": ["category", "reason"],
        "additionalProperties": False,
    }


# --- structured outputs over HTTP (§11 54) ------------------------------------------------

SINGLE_REPLY = '{"score":1,"reason":"matched"}'
RUBRIC_REPLY = (
    '{"rubricScores":[{"id":"1","score":1,"reason":"a"},{"id":"2","score":0,"reason":"b"}]}'
)


@pytest.mark.parametrize(
    ("scorer", "options", "reply", "schema_name", "score_"),
    [
        ("single_score", {}, SINGLE_REPLY, "single_score_result", 1.0),
        ("rubric_scores", {}, RUBRIC_REPLY, "rubric_scores_result", 0.5),
        (
            "categorical",
            {"responseScorerOptions": {"categories": THREE}},
            '{"category":"incorrect","reason":"wrong"}',
            "categorical_result",
            0.0,
        ),
        ("boolean", {}, '{"passed":true,"reason":"fine"}', "boolean_result", 1.0),
        (
            "single_score",
            {"structuredOutputName": "rubric_scores"},
            SINGLE_REPLY,
            "rubric_scores_result",
            1.0,
        ),
    ],
)
def test_s54_schema_sent_with_every_call(
    judge_server: JudgeServer,
    scorer: str,
    options: dict[str, Any],
    reply: str,
    schema_name: str,
    score_: float,
) -> None:
    judge_server.default = Reply(content=reply)
    m = template_metric(judge_server, scorer, **options)
    result = ok(run(JUDGE, m, [turn("q", "a1"), turn("q", "a2")], [turn(), turn()]))
    assert [t.score for t in result.turns] == [score_, score_]
    bodies = judge_server.bodies()
    assert len(bodies) == 2
    for body in bodies:
        sent = body["response_format"]
        assert sent["type"] == "json_schema"
        assert (sent["json_schema"]["name"], sent["json_schema"]["strict"]) == (schema_name, True)
    assert [b["messages"][0]["content"] for b in bodies] == ["Grade: a1", "Grade: a2"]


def test_s54_builtin_schemas_follow_the_spec_table() -> None:
    single = structured_outputs.resolve("single_score").structured_output(CATEGORICAL)
    rubric = structured_outputs.resolve("rubric_scores").structured_output(CATEGORICAL)
    boolean = structured_outputs.resolve("boolean").structured_output(CATEGORICAL)
    assert single is not None and rubric is not None and boolean is not None
    unit = {"type": "number", "minimum": 0, "maximum": 1}
    assert single.description == "A score and a concise reason for the evaluation result."
    assert single.schema == {
        "type": "object",
        "properties": {"score": unit, "reason": {"type": "string"}},
        "required": ["score", "reason"],
        "additionalProperties": False,
    }
    assert rubric.description == "Per-rubric scores and concise reasons for the evaluation result."
    assert rubric.schema == {
        "type": "object",
        "properties": {
            "rubricScores": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "score": unit,
                        "reason": {"type": "string"},
                    },
                    "required": ["id", "score", "reason"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["rubricScores"],
        "additionalProperties": False,
    }
    assert (
        boolean.description == "A pass/fail result and a concise reason for the evaluation result."
    )
    assert boolean.schema["properties"] == {
        "passed": {"type": "boolean"},
        "reason": {"type": "string"},
    }
    assert boolean.schema["required"] == ["passed", "reason"]


def test_s54_unknown_structured_output(judge_server: JudgeServer) -> None:
    m = template_metric(judge_server, "single_score", structuredOutputName="missing")
    message = error(run(JUDGE, m, [turn()], [turn()]))
    assert message == 'resolve structured output: unsupported structured output "missing" (turn 1)'
    assert judge_server.count == 0


def test_s54_custom_scorer_without_schema_runs_unconstrained(judge_server: JudgeServer) -> None:
    @register_response_scorer("yes_no_test")
    def yes_no(reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        text = reply.text.strip().lower() if reply is not None else ""
        return ScoreResult(score=1.0 if text == "yes" else 0.0, reason=text)

    try:
        judge_server.enqueue(Reply(content="yes"), Reply(content="no"))
        m = template_metric(judge_server, "yes_no_test")
        result = ok(run(JUDGE, m, [turn(), turn()], [turn(), turn()]))
        assert [(t.score, t.status) for t in result.turns] == [
            (1.0, EvalStatus.PASSED),
            (0.0, EvalStatus.FAILED),
        ]
        assert all("response_format" not in body for body in judge_server.bodies())
    finally:
        response_scorers.unregister("yes_no_test")


def test_scorer_errors_over_http_fail_the_case(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply(content='{"score":1.2,"reason":"too high"}'))
    message = error(run(JUDGE, template_metric(judge_server, "single_score"), [turn()], [turn()]))
    assert message == "score based on response: score must be between 0 and 1 (turn 1)"
