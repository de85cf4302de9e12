"""``llm_hallucinations`` (llm-evaluators.md §5.2; §11 7–16) over the loopback judge.

The server answers the segmentation prompt and the validation prompt by rule
(each prompt has its own fixed wording), so one run exercises the extra
segmentation call, the grounding context taken from the trace and the block
scorer together.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

import pytest
from llm_support import error, judge_model, metric, ok, options, run, turn

from agenteval.evaluators.llm.grounding import NO_CONTEXT, grounding_context, turn_context
from agenteval.evaluators.llm.hallucinations import (
    HallucinationPrompt,
    HallucinationScorer,
    HallucinationsJudge,
    segmented_sentences,
)
from agenteval.evaluators.llm.operators.constructors import TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.registry import evaluators
from agenteval.judge import ChatMessage, JudgeReply, StructuredOutput
from agenteval.schema import EvalMetric, Invocation
from agenteval.schema.evalset import Message, Tool
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = HallucinationsJudge()
SCORER = HallucinationScorer()
SEGMENT = "Split the answer below into its individual claims"
VALIDATE = "<segmented_sentences>"

THREE_BLOCKS = (
    "ID: 1\nReason: The tool output states Cloudy.\nLabel: supported\nVerdict: yes\n\n"
    "ID: 2\nReason: The tool output says 18C.\nLabel: contradictory\nVerdict: no\n\n"
    "ID: 3\nReason: This is a greeting.\nLabel: not_applicable\nVerdict: yes"
)


def hallucination_metric(
    server: JudgeServer | None, threshold: float = 0.5, **model: Any
) -> EvalMetric:
    return metric(
        server,
        name="llm_hallucinations",
        threshold=threshold,
        llm_judge={"judgeModel": judge_model(server, **model)},
    )


def weather_turn() -> Invocation:
    return Invocation.model_validate(
        {
            "contextMessages": [{"role": "system", "content": "Cite tool outputs only."}],
            "intermediateResponses": [
                {"role": "assistant", "content": "Let me check the live weather feed."}
            ],
            "userContent": {"role": "user", "content": "What is the weather in Paris?"},
            "finalResponse": {"role": "assistant", "content": "Paris is cloudy and 18C."},
            "tools": [
                {
                    "id": "tool-1",
                    "name": "weather_lookup",
                    "arguments": {"location": "Paris"},
                    "result": {"temperatureC": 18, "condition": "Cloudy"},
                }
            ],
        }
    )


def score(text: str) -> Any:
    return SCORER.score(JudgeReply(text=text), hallucination_metric(None))


def test_registered_under_go_name() -> None:
    judge = evaluators.get("llm_hallucinations")
    assert isinstance(judge, HallucinationsJudge)
    assert judge.description == "LLM hallucination evaluator"


# --- scorer (§11 7–12) --------------------------------------------------------------------


def test_s7_three_blocks() -> None:
    result = score(THREE_BLOCKS)
    assert result.score == pytest.approx(2 / 3, abs=1e-9)
    assert result.value is not None and result.value.numeric == pytest.approx(2 / 3)
    assert [(s.id, s.score) for s in result.rubric_scores] == [("1", 1.0), ("2", 0.0), ("3", 1.0)]
    assert result.rubric_scores[0].reason == "[supported] The tool output states Cloudy."
    for label in ("[supported]", "[contradictory]", "[not_applicable]"):
        assert label in result.reason
    assert result.reason.count("\n") == 2


def test_s8_empty_label_uses_the_verdict() -> None:
    result = score("ID: 1\nReason: fine\nLabel:\nVerdict: yes")
    assert result.score == 1.0 and len(result.rubric_scores) == 1
    assert result.rubric_scores[0].reason == "fine"


def test_s9_empty_id_and_label() -> None:
    result = score("ID:\nReason: unclear\nLabel:\nVerdict: no")
    assert [(s.id, s.score) for s in result.rubric_scores] == [("1", 0.0)]
    assert result.score == 0.0


def test_s10_unknown_label_is_an_error() -> None:
    with pytest.raises(OperatorError, match=r'^score sentence 4: unexpected label "maybe"$'):
        score("ID: 4\nReason: hmm\nLabel: maybe\nVerdict: yes")


def test_s11_no_blocks_nil_reply() -> None:
    with pytest.raises(OperatorError, match=r"^no sentence blocks found in response$"):
        score("no structured output")
    with pytest.raises(OperatorError, match=r"^response is nil$"):
        SCORER.score(None, hallucination_metric(None))


def test_s12_label_is_normalised() -> None:
    result = score("ID: 1\nReason: filler\nLabel: Not Applicable\nVerdict: no")
    assert result.score == 1.0
    assert result.rubric_scores[0].reason == "[not_applicable] filler"


def test_blocks_without_blank_lines_merge_like_go() -> None:
    # The verdict runs to a blank line or the end, so a missing separator swallows block 2.
    result = score(
        "ID: 1\nReason: a\nLabel: supported\nVerdict: yes\nID: 2\nReason: b\nLabel: unsupported\nVerdict: no"
    )
    assert [s.id for s in result.rubric_scores] == ["1"]


# --- segmentation -------------------------------------------------------------------------


def test_segmentation_ids_count_empty_matches() -> None:
    text = "<sentence>A.</sentence>\n<sentence>  </sentence>\n<sentence>\nB.\n</sentence>"
    assert segmented_sentences(text) == (
        '<sentence id="1">\nA.\n</sentence>\n<sentence id="3">\nB.\n</sentence>'
    )


# --- constructor and pipeline over HTTP (§11 13–15) -----------------------------------------


def script(server: JudgeServer, segmentation: str, validation: str = THREE_BLOCKS) -> None:
    server.when(SEGMENT, Reply(content=segmentation))
    server.when(VALIDATE, Reply(content=validation))


def test_s13_segmentation_call_and_validation_prompt(judge_server: JudgeServer) -> None:
    script(judge_server, "<sentence>Paris is cloudy.</sentence>\n<sentence>It is 18C.</sentence>")
    m = hallucination_metric(judge_server)
    result = ok(run(JUDGE, m, [weather_turn()], [Invocation()]))
    assert result.turns[0].score == pytest.approx(2 / 3)
    prompts = [body["messages"][0]["content"] for body in judge_server.bodies()]
    segmentation = [p for p in prompts if SEGMENT in p]
    assert len(segmentation) == 1
    assert "<final_answer>\nParis is cloudy and 18C.\n</final_answer>" in segmentation[0]
    (validation,) = [p for p in prompts if VALIDATE in p]
    for needle in (
        "<context>",
        "User prompt:",
        "What is the weather in Paris?",
        "- [system] Cite tool outputs only.",
        "tool_calls:",
        '"id": "tool-1"',
        '"temperatureC": 18',
        "tool_outputs:",
        '<sentence id="1">',
        "Paris is cloudy.",
        '<sentence id="2">',
        "It is 18C.",
        "supported|unsupported|contradictory|disputed|not_applicable",
    ):
        assert needle in validation, needle
    assert "Let me check the live weather feed." not in validation
    assert validation.index("</context>") < validation.index("<segmented_sentences>")
    # Neither call asks for structured output.
    assert all("response_format" not in body for body in judge_server.bodies())


def test_s13_grounding_sections_are_go_marshal_indent() -> None:
    assert turn_context(weather_turn()) == (
        "User prompt:\nWhat is the weather in Paris?\n\n"
        "Context messages:\n- [system] Cite tool outputs only.\n\n"
        "tool_calls:\n"
        '[\n  {\n    "id": "tool-1",\n    "name": "weather_lookup",\n'
        '    "args": {\n      "location": "Paris"\n    }\n  }\n]\n\n'
        "tool_outputs:\n"
        '[\n  {\n    "id": "tool-1",\n    "name": "weather_lookup",\n'
        '    "output": {\n      "condition": "Cloudy",\n      "temperatureC": 18\n    }\n  }\n]'
    )


def test_grounding_escapes_html_and_keeps_empty_objects() -> None:
    tool = {"name": "t", "arguments": {}, "result": {"note": "a < b & c > d", "xs": [], "n": 0.5}}
    text = turn_context(Invocation.model_validate({"tools": [tool]}))
    assert '"args": {}' in text
    assert '"note": "a \\u003c b \\u0026 c \\u003e d"' in text
    assert '"xs": []' in text and '"n": 0.5' in text
    # An id and a name that are empty are left out; a null result is left out too.
    bare = turn_context(Invocation.model_validate({"tools": [{"arguments": "x"}]}))
    assert bare == 'tool_calls:\n[\n  {\n    "args": "x"\n  }\n]\n\ntool_outputs:\n[\n  {}\n]'


def test_s14_earlier_turns_ground_the_current_one(judge_server: JudgeServer) -> None:
    first = Invocation.model_validate(
        {
            "userContent": {"role": "user", "content": "Look up AuroraPad X2."},
            "finalResponse": {"role": "assistant", "content": "Found it."},
            "tools": [{"id": "t1", "name": "product_lookup", "result": {"releaseYear": 2024}}],
        }
    )
    second = turn("Summarize the result.", "AuroraPad X2 was released in 2024.")
    script(
        judge_server,
        "<sentence>AuroraPad X2 was released in 2024.</sentence>",
        "ID: 1\nReason: Tool output releaseYear 2024.\nLabel: supported\nVerdict: yes",
    )
    m = hallucination_metric(judge_server)
    result = ok(
        run(
            JUDGE,
            m,
            [first, second],
            [Invocation(), Invocation()],
            judge_options=options(concurrency=1),
        )
    )
    assert [t.score for t in result.turns] == [1.0, 1.0]
    prompts = [body["messages"][0]["content"] for body in judge_server.bodies()]
    assert [SEGMENT in p for p in prompts] == [True, False, True, False]
    validation = prompts[3]
    for needle in ("Look up AuroraPad X2.", '"releaseYear": 2024', "Summarize the result."):
        assert needle in validation
    # The earlier final answer is the agent's own words, never evidence.
    assert "Found it." not in validation.split("<segmented_sentences>")[0]
    assert "Found it." in prompts[0]


def test_samples_plus_one_calls_per_turn(judge_server: JudgeServer) -> None:
    script(
        judge_server,
        "<sentence>Paris is cloudy.</sentence>",
        "ID: 1\nReason: r\nLabel: supported\nVerdict: yes",
    )
    m = hallucination_metric(judge_server, numSamples=3)
    result = ok(run(JUDGE, m, [weather_turn()], [Invocation()]))
    assert judge_server.count == 4
    assert (result.turns[0].details.model_extra or {})["agreement"] == 1.0


@pytest.mark.parametrize(
    ("segmentation", "message"),
    [
        ("Paris is cloudy.", "no segmented sentences found in response"),
        ("<sentence>   </sentence>", "no non-empty segmented sentences found in response"),
    ],
)
def test_s15_bad_segmentation_fails_the_evaluation(
    judge_server: JudgeServer, segmentation: str, message: str
) -> None:
    script(judge_server, segmentation)
    outcome = run(JUDGE, hallucination_metric(judge_server), [weather_turn()], [Invocation()])
    assert error(outcome) == f"construct messages: build segmented sentences: {message} (turn 1)"
    assert judge_server.count == 1


def test_s15_segmentation_judge_error_leaves_the_turn_not_evaluated(
    judge_server: JudgeServer,
) -> None:
    judge_server.when(SEGMENT, Reply.error_body("model overloaded"))
    outcome = run(JUDGE, hallucination_metric(judge_server), [weather_turn()], [Invocation()])
    result = ok(outcome)
    only = result.turns[0]
    assert only.status is EvalStatus.NOT_EVALUATED
    assert only.details.reason.startswith("build segmented sentences: execute segmentation judge: ")
    assert "model overloaded" in only.details.reason
    assert result.status is EvalStatus.NOT_EVALUATED
    (failure,) = outcome.session.failures
    assert "execute segmentation judge" in failure and "turn 1" in failure
    # No validation call follows a failed segmentation.
    assert all(SEGMENT in b["messages"][0]["content"] for b in judge_server.bodies())


async def _scripted_ask(
    messages: Sequence[ChatMessage], schema: StructuredOutput | None = None
) -> JudgeReply:
    assert schema is None
    return JudgeReply(text="<sentence>x</sentence>")


def test_s15_no_actuals() -> None:
    prefix = TurnPrefix([], [], hallucination_metric(None))
    with pytest.raises(OperatorError, match=r"^actuals is empty$"):
        asyncio.run(HallucinationPrompt().construct(prefix, _scripted_ask))


def test_empty_answer_reaches_the_segmenter_empty() -> None:
    prefix = TurnPrefix([turn("q", None)], [Invocation()], hallucination_metric(None))
    (message,) = asyncio.run(HallucinationPrompt().construct(prefix, _scripted_ask))
    assert "[EMPTY_RESPONSE]" in message.content  # the fixed instruction for empty answers
    assert HallucinationPrompt().structured_output(prefix) is None


# --- grounding (§11 16) -------------------------------------------------------------------


def test_s16_nothing_to_ground_on() -> None:
    assert turn_context(Invocation()) == NO_CONTEXT == "No validation context was captured."
    hollow = Invocation.model_construct(
        context_messages=[Message(role="system", content="   ")],
        intermediate_responses=[Message(role="assistant", content="")],
        tools=[None],  # type: ignore[list-item]
        user_content=None,
    )
    assert turn_context(hollow) == NO_CONTEXT
    assert grounding_context([hollow, Invocation()]) == NO_CONTEXT
    # Turns without context are dropped; the others are joined by a blank line.
    assert grounding_context([Invocation(), turn("only this", "x")]) == "User prompt:\nonly this"
    assert (
        grounding_context([turn("a", "x"), turn("b", "y")]) == "User prompt:\na\n\nUser prompt:\nb"
    )


def test_s16_unserialisable_tool_arguments() -> None:
    bad = Invocation.model_construct(tools=[Tool(name="bad_tool", arguments=math.nan)])
    with pytest.raises(OperatorError) as info:
        grounding_context([turn("q", "a"), bad])
    assert str(info.value) == (
        "extract grounding context: actual 1: format tool calls and outputs: "
        "marshal tool bad_tool arguments: json: unsupported value: NaN"
    )


def test_s16_unserialisable_tool_result_fails_the_case(judge_server: JudgeServer) -> None:
    bad = Invocation.model_construct(
        final_response=turn().final_response, tools=[Tool(name="bad_tool", result=math.inf)]
    )
    message = error(run(JUDGE, hallucination_metric(judge_server), [bad], [Invocation()]))
    assert "marshal tool bad_tool result" in message
    assert message.startswith("construct messages: extract grounding context: actual 0: ")
    assert judge_server.count == 0


def test_unknown_label_over_http_fails_with_the_reason(judge_server: JudgeServer) -> None:
    script(judge_server, "<sentence>x</sentence>", "ID: 1\nReason: r\nLabel: partly\nVerdict: yes")
    message = error(
        run(JUDGE, hallucination_metric(judge_server), [weather_turn()], [Invocation()])
    )
    assert (
        message == 'score based on response: score sentence 1: unexpected label "partly" (turn 1)'
    )


def test_check_needs_only_the_judge_model() -> None:
    assert list(JUDGE.check(hallucination_metric(None))) == []
    (problem,) = JUDGE.check(EvalMetric.model_validate({"metricName": "llm_hallucinations"}))
    assert problem.message == "missing required fields in eval metric"
