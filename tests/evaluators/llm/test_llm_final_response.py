"""``llm_final_response``: scorer and constructor scenarios of llm-evaluators.md §11 (1–6), checks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from llm_support import error, metric, ok, run, turn, verdict

from agenteval.evaluators.llm.llm_final_response import (
    FinalResponseJudge,
    FinalResponsePrompt,
    FinalResponseScorer,
)
from agenteval.evaluators.llm.operators.constructors import TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.registry import evaluators
from agenteval.judge import ChatMessage, JudgeReply, StructuredOutput
from agenteval.schema import EvalMetric
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = FinalResponseJudge()
SCORER = FinalResponseScorer()
M = metric(None)


def score(text: str) -> tuple[float, str, Any]:
    result = SCORER.score(JudgeReply(text=text), M)
    assert result.rubric_scores is None
    return result.score, result.reason, result.value


def test_registered_under_go_name() -> None:
    judge = evaluators.get("llm_final_response")
    assert isinstance(judge, FinalResponseJudge)
    assert judge.description == "LLM judge for final responses"
    assert judge.is_async and judge.needs_judge


# --- scorer (§11 1–5) ---------------------------------------------------------------------


def test_s1_uppercase_valid_label_scores_one() -> None:
    s, reason, value = score("reasoning: ok\nis_the_agent_response_valid: VALID")
    assert (s, reason) == (1.0, "ok")
    assert (value.kind, value.numeric) == ("numeric", 1.0)


def test_s2_invalid_scores_zero() -> None:
    s, reason, value = score("reasoning: bad\nis_the_agent_response_valid: invalid")
    assert (s, reason, value.numeric) == (0.0, "bad", 0.0)


def test_s3_surrounding_newlines() -> None:
    s, reason, _ = score("\nreasoning: something\nis_the_agent_response_valid: invalid\n")
    assert (s, reason) == (0.0, "something")


def test_s4_nil_and_empty_replies_are_errors() -> None:
    with pytest.raises(OperatorError, match=r"^response is nil$"):
        SCORER.score(None, M)
    with pytest.raises(OperatorError, match=r"^empty response text$"):
        SCORER.score(JudgeReply(text=""), M)


def test_s5_markers_are_case_sensitive() -> None:
    with pytest.raises(OperatorError) as info:
        SCORER.score(JudgeReply(text="Reasoning: x\nis_the_agent_response_valid: valid"), M)
    assert str(info.value) == (
        "extract reasoning and label: no final response blocks found in response"
    )


@pytest.mark.parametrize("label", ["**valid**", "valid.", "partially valid", "invalid", ""])
def test_s5_any_label_but_valid_scores_zero_without_error(label: str) -> None:
    assert score(f"reasoning: x\nis_the_agent_response_valid: {label}")[0] == 0.0


def test_whitespace_only_reply_is_not_trimmed_into_empty_text() -> None:
    with pytest.raises(OperatorError, match="no final response blocks found"):
        SCORER.score(JudgeReply(text="  \n "), M)


def test_multiline_reasoning_and_label_on_its_own_line_end() -> None:
    text = "preamble\nreasoning:\n  line one\n  line two\nis_the_agent_response_valid:  Valid \t\nextra"
    s, reason, _ = score(text)
    assert (s, reason) == (1.0, "line one\n  line two")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("reasoning: ok\nis_the_agent_response_valid: VALID", (1.0, EvalStatus.PASSED, "ok")),
        ("reasoning: bad\nis_the_agent_response_valid: invalid", (0.0, EvalStatus.FAILED, "bad")),
        (
            "\nreasoning: something\nis_the_agent_response_valid: invalid\n",
            (0.0, EvalStatus.FAILED, "something"),
        ),
        ("reasoning: x\nis_the_agent_response_valid: **valid**", (0.0, EvalStatus.FAILED, "x")),
    ],
)
def test_scorer_over_http(
    judge_server: JudgeServer, content: str, expected: tuple[float, EvalStatus, str]
) -> None:
    judge_server.default = Reply(content=content)
    result = ok(run(JUDGE, metric(judge_server), [turn()], [turn()]))
    only = result.turns[0]
    assert (only.score, only.status, only.details.reason) == expected
    assert only.details.value is not None and only.details.value.numeric == expected[0]
    assert (result.score, result.status) == (expected[0], expected[1])


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("", "empty response text"),
        (
            "Reasoning: x\nis_the_agent_response_valid: valid",
            "extract reasoning and label: no final response blocks found in response",
        ),
        (
            "The answer is valid.",
            "extract reasoning and label: no final response blocks found in response",
        ),
    ],
)
def test_malformed_verdict_fails_the_case_naming_the_turn(
    judge_server: JudgeServer, content: str, detail: str
) -> None:
    judge_server.enqueue(verdict("valid"), Reply(content=content))
    message = error(run(JUDGE, metric(judge_server), [turn(), turn()], [turn(), turn()]))
    assert message == f"score based on response: {detail} (turn 2)"


# --- constructor (§11 6) ------------------------------------------------------------------


def test_s6_one_user_message_with_the_three_texts(judge_server: JudgeServer) -> None:
    actual = turn("user prompt", "actual answer")
    expected = turn("ignored expected prompt", "expected answer")
    ok(run(JUDGE, metric(judge_server), [actual], [expected]))
    body = judge_server.bodies()[0]
    messages = body["messages"]
    assert len(messages) == 1 and messages[0]["role"] == "user"
    content = messages[0]["content"]
    for text in ("user prompt", "actual answer", "expected answer"):
        assert text in content
    assert "ignored expected prompt" not in content
    lines = content.splitlines()
    at = [
        lines.index("User prompt: user prompt"),
        lines.index("Agent response: actual answer"),
        lines.index("Reference response: expected answer"),
    ]
    assert at == sorted(at)
    # No structured output for this evaluator.
    assert "response_format" not in body


def test_prompt_states_the_output_contract() -> None:
    text = FinalResponsePrompt().prompt(TurnPrefix([turn()], [turn()], M))
    assert "reasoning: " in text and "is_the_agent_response_valid: " in text
    assert "valid or invalid" in text
    for rule in ("only ground truth", "clarification", "refuses", "unit conversions", "1,000,000"):
        assert rule in text


def test_missing_messages_render_empty() -> None:
    empty = turn("", None).model_copy(update={"user_content": None})
    text = FinalResponsePrompt().prompt(TurnPrefix([empty], [turn("x", None)], M))
    lines = text.splitlines()
    assert "User prompt: " in lines
    assert "Agent response: " in lines
    assert "Reference response: " in lines


async def _never(
    messages: Sequence[ChatMessage], schema: StructuredOutput | None = None
) -> JudgeReply:
    raise AssertionError("the final-response constructor makes no judge call of its own")


@pytest.mark.parametrize(
    ("actuals", "expecteds", "message"),
    [([], [turn()], "actuals is empty"), ([turn()], [], "expecteds is empty")],
)
def test_constructor_requires_turns(actuals: list[Any], expecteds: list[Any], message: str) -> None:
    prefix = TurnPrefix(actuals, expecteds, M)
    with pytest.raises(OperatorError, match=f"^{message}$"):
        asyncio.run(FinalResponsePrompt().construct(prefix, _never))


def test_only_the_current_turn_is_shown(judge_server: JudgeServer) -> None:
    first, second = turn("first question", "first answer"), turn("second question", "second")
    ok(run(JUDGE, metric(judge_server), [first, second], [turn(answer="r1"), turn(answer="r2")]))
    prompts = [b["messages"][0]["content"] for b in judge_server.bodies()]
    assert "first question" in prompts[0] and "second question" not in prompts[0]
    assert "second question" in prompts[1] and "first question" not in prompts[1]
    assert "Reference response: r2" in prompts[1] and "r1" not in prompts[1]


# --- check() ------------------------------------------------------------------------------


def issues(data: dict[str, Any]) -> list[tuple[str, str]]:
    m = EvalMetric.model_validate({"metricName": "llm_final_response", **data})
    return [(i.path, i.message) for i in JUDGE.check(m)]


def model(**fields: Any) -> dict[str, Any]:
    base = {"providerName": "openai", "modelName": "judge", "baseURL": "http://127.0.0.1:9/v1"}
    base.update(fields)
    return {"criterion": {"llmJudge": {"judgeModel": base}}}


def test_check_accepts_a_complete_config() -> None:
    assert issues(model(numSamples=3, generationConfig={"temperature": 0})) == []


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({}, [("criterion.llmJudge", "missing required fields in eval metric")]),
        (
            {"criterion": {"llmJudge": {}}},
            [("criterion.llmJudge.judgeModel", "missing required fields in eval metric")],
        ),
        (
            model(numSamples=0),
            [("criterion.llmJudge.judgeModel.numSamples", "num samples must be greater than 0")],
        ),
        (
            model(numSamples=-2),
            [("criterion.llmJudge.judgeModel.numSamples", "num samples must be greater than 0")],
        ),
        (
            model(providerName="mistral"),
            [("criterion.llmJudge.judgeModel.providerName", "unknown provider: mistral")],
        ),
        (
            model(providerName=""),
            [("criterion.llmJudge.judgeModel.providerName", "providerName is empty")],
        ),
        (model(modelName=""), [("criterion.llmJudge.judgeModel.modelName", "modelName is empty")]),
        (
            model(generationConfig={"max_tokens": "many"}),
            [
                (
                    "criterion.llmJudge.judgeModel.generationConfig.max_tokens",
                    "expected an integer, got a string",
                )
            ],
        ),
        (
            model(generationConfig={"top_logprobs": 5}),
            [
                (
                    "criterion.llmJudge.judgeModel.generationConfig.top_logprobs",
                    "top_logprobs requires logprobs to be true",
                )
            ],
        ),
    ],
)
def test_check_reports_each_problem_with_its_path(
    data: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert issues(data) == expected


def test_check_reports_negative_sample_parallelism() -> None:
    data = model()
    data["criterion"]["llmJudge"]["sampleParallelism"] = -1
    assert issues(data) == [
        ("criterion.llmJudge.sampleParallelism", "sample parallelism must be non-negative")
    ]
