"""Reference answers a judge evaluator needs and a case lacks, per case layout."""

from __future__ import annotations

from typing import Any

from agenteval.evaluators.checks.reference_answers import expected_layout, missing_reference_answers
from agenteval.schema.evalset import EvalCase

ASKED = {"userContent": {"role": "user", "content": "q"}}
ANSWERED = {**ASKED, "finalResponse": {"role": "assistant", "content": "a"}}


def case(**fields: Any) -> EvalCase:
    return EvalCase.model_validate({"evalId": "c", **fields})


def test_turns_without_final_response_are_located() -> None:
    found = missing_reference_answers(
        case(conversation=[ANSWERED, ASKED]), "expected answer missing", "the judge compares"
    )
    assert [(i.path, i.message, i.hint) for i in found] == [
        (
            "conversation[1].finalResponse",
            "expected answer missing",
            "the judge compares; add the reference answer",
        )
    ]


def test_trace_mode_layouts() -> None:
    legacy = case(evalMode="trace", conversation=[ANSWERED])
    (issue,) = missing_reference_answers(legacy, "m", "why")
    assert issue.path == "conversation"
    assert "conversation is the recorded trace" in issue.hint
    no_reference = case(evalMode="trace", actualConversation=[ANSWERED])
    (issue,) = missing_reference_answers(no_reference, "m", "why")
    assert "without conversation has no reference answers" in issue.hint
    full = case(evalMode="trace", actualConversation=[ANSWERED], conversation=[ANSWERED])
    assert missing_reference_answers(full, "m", "why") == []


def test_layouts_the_runner_rejects_are_left_to_it() -> None:
    assert expected_layout(case(evalMode="trace")) is None
    assert missing_reference_answers(case(), "m", "why") == []
