"""``llm_rubric_knowledge_recall`` (llm-evaluators.md §5.6; §11 41): retrieval evidence and prompt."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_support import error, judge_model, metric, ok, run, turn

from agenteval.evaluators.llm.knowledge_recall import (
    NO_RESULTS,
    KnowledgeRecallJudge,
    KnowledgeRecallPrompt,
    retrieved_knowledge,
)
from agenteval.evaluators.llm.operators.constructors import TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.schema import EvalMetric, Invocation
from agenteval.schema.evalset import Tool
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = KnowledgeRecallJudge()


def recall_metric(server: JudgeServer | None, *rubrics: dict[str, Any]) -> EvalMetric:
    block = {
        "judgeModel": judge_model(server),
        "rubrics": list(rubrics)
        or [{"id": "r1", "content": {"text": "Retrieval names the author."}}],
    }
    return metric(server, name="llm_rubric_knowledge_recall", threshold=1, llm_judge=block)


def asked(user: str, *tools: dict[str, Any]) -> Invocation:
    return Invocation.model_validate(
        {
            "userContent": {"role": "user", "content": user},
            "finalResponse": {"role": "assistant", "content": "FINAL ANSWER TEXT"},
            "tools": list(tools),
        }
    )


def evidence(*tools: dict[str, Any]) -> str:
    return retrieved_knowledge([Tool.model_validate(t) for t in tools])


def prompt(invocation: Invocation, m: EvalMetric | None = None) -> str:
    return KnowledgeRecallPrompt().prompt(TurnPrefix([invocation], [], m or recall_metric(None)))


def test_s41_search_results_rubrics_and_question_in_the_prompt(judge_server: JudgeServer) -> None:
    judge_server.default = Reply(
        content=json.dumps({"rubricScores": [{"id": "r1", "score": 1, "reason": "Doc 1 says so."}]})
    )
    search = {
        "id": "call-1",
        "name": "knowledge_search",
        "arguments": {"query": "who?"},
        "result": {"documents": [{"text": "result", "score": 0.9}]},
    }
    result = ok(run(JUDGE, recall_metric(judge_server), [asked("who?", search)], [Invocation()]))
    assert (result.score, result.status) == (1.0, EvalStatus.PASSED)
    text = judge_server.bodies()[0]["messages"][0]["content"]
    assert (
        '<retrieved_knowledge>\n{"documents":[{"text":"result","score":0.9}]}\n\n</retrieved_knowledge>'
        in text
    )
    assert "<main_prompt>\nwho?\n</main_prompt>" in text
    assert "<rubric>\nr1: Retrieval names the author.\n</rubric>" in text
    # The agent's answer is not evidence and is not shown.
    assert "FINAL ANSWER TEXT" not in text
    at = [text.index(t) for t in ("<user_prompt>\n", "<retrieved_knowledge>\n", "<rubric>\n")]
    assert at == sorted(at)
    spec = judge_server.bodies()[0]["response_format"]["json_schema"]
    assert spec["name"] == "rubric_knowledge_recall_scores"


def test_s41_no_tools_gives_the_placeholder() -> None:
    text = prompt(asked("who?"))
    assert f"<retrieved_knowledge>\n{NO_RESULTS}\n</retrieved_knowledge>" in text
    assert NO_RESULTS == "No knowledge search results were found."


def test_s41_other_tools_are_ignored() -> None:
    other = {"name": "other_tool", "result": {"documents": [{"text": "secret", "score": 1}]}}
    assert evidence(other) == ""
    # Names are matched exactly.
    assert evidence({**other, "name": "Knowledge_Search"}) == ""
    assert "secret" not in prompt(asked("who?", other))


def test_s41_empty_result_of_the_agentic_filter_tool() -> None:
    tool = {"name": "knowledge_search_with_agentic_filter", "result": {}}
    assert evidence(tool) == '{"documents":null}\n'
    assert evidence({**tool, "result": None}) == '{"documents":null}\n'
    assert evidence({**tool, "result": {"documents": []}}) == '{"documents":[]}\n'


def test_s41_bad_documents_fail_the_case(judge_server: JudgeServer) -> None:
    bad = {"name": "knowledge_search", "result": {"documents": "bad"}}
    message = error(run(JUDGE, recall_metric(judge_server), [asked("who?", bad)], [Invocation()]))
    assert message.startswith(
        "construct messages: extract knowledge recall: parse tool knowledge_search response: "
        "unmarshal tool knowledge_search result: json: cannot unmarshal string into Go struct field "
        "KnowledgeSearchResponse.documents"
    ), message
    assert judge_server.count == 0


@pytest.mark.parametrize(
    "result",
    [
        "not json at all",
        '{"documents": []}',
        3,
        [1],
        {"documents": [{"text": 5}]},
        {"documents": [{"score": "0.9"}]},
        {"documents": [{"score": True}]},
        {"documents": [{"metadata": [1]}]},
        {"message": 1},
        {"documents": [7]},
    ],
)
def test_type_mismatches_are_errors(result: Any) -> None:
    with pytest.raises(
        OperatorError,
        match=r"^parse tool knowledge_search response: unmarshal tool "
        "knowledge_search result: json: cannot unmarshal ",
    ):
        evidence({"name": "knowledge_search", "result": result})


def test_go_struct_decoding_and_encoding() -> None:
    result = {
        "Message": "Found 2 document(s)",
        "DOCUMENTS": [
            {
                "Score": 1,
                "metadata": {"z": 1, "a": [True, None], "url": "https://x?a=1&b=<2>"},
                "TEXT": "Go & <gRPC>",
                "id": "doc-7",
                "extra": "dropped",
            },
            None,
            {"text": "", "id": "", "metadata": {}, "score": 1e-7},
        ],
        "unknown": 1,
    }
    assert evidence({"name": "knowledge_search", "result": result}) == (
        '{"documents":[{"id":"doc-7","text":"Go \\u0026 \\u003cgRPC\\u003e",'
        '"metadata":{"a":[true,null],"url":"https://x?a=1\\u0026b=\\u003c2\\u003e","z":1},'
        '"score":1},null,{"text":"","score":1e-7}],"message":"Found 2 document(s)"}\n'
    )


def test_every_retrieval_call_is_one_line_in_call_order() -> None:
    first = {"name": "knowledge_search", "result": {"documents": [{"text": "one", "score": 0.5}]}}
    second = {
        "name": "knowledge_search_with_agentic_filter",
        "result": {"documents": [{"text": "two", "score": 0.25}], "message": "m"},
    }
    assert evidence(first, {"name": "calculator", "result": 4}, second) == (
        '{"documents":[{"text":"one","score":0.5}]}\n'
        '{"documents":[{"text":"two","score":0.25}],"message":"m"}\n'
    )


def test_the_stored_fixture_result_renders_in_go_field_order() -> None:
    stored = {
        "documents": [
            {
                "metadata": {"trpc_agent_go_chunk_index": 1},
                "score": 0.9089502126782587,
                "text": "tRPC-Agent-Go is a powerful Go framework.",
            }
        ],
        "message": "Found 1 relevant document(s)",
    }
    assert evidence({"name": "knowledge_search", "result": stored}) == (
        '{"documents":[{"text":"tRPC-Agent-Go is a powerful Go framework.",'
        '"metadata":{"trpc_agent_go_chunk_index":1},"score":0.9089502126782587}],'
        '"message":"Found 1 relevant document(s)"}\n'
    )


def test_required_inputs_in_go_order() -> None:
    c = KnowledgeRecallPrompt()
    duplicate = recall_metric(
        None, {"id": "r1", "content": {"text": "a"}}, {"id": "r1", "content": {"text": "b"}}
    )

    def fails(prefix: TurnPrefix) -> str:
        with pytest.raises(OperatorError) as info:
            c.prompt(prefix)
        return str(info.value)

    assert fails(TurnPrefix([], [], recall_metric(None))) == "actuals is empty"
    no_rubrics = EvalMetric.model_validate({"metricName": "k", "criterion": {"llmJudge": {}}})
    assert fails(TurnPrefix([turn()], [], no_rubrics)) == "llm judge rubrics are required"
    # Rubric checks come before the evidence.
    bad = asked("q", {"name": "knowledge_search", "result": "x"})
    assert fails(TurnPrefix([bad], [], no_rubrics)) == "llm judge rubrics are required"
    with pytest.raises(OperatorError, match=r'^duplicate llm judge rubric id "r1"$'):
        c.structured_output(TurnPrefix([turn()], [], duplicate))
