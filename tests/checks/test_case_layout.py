"""Case layouts the runner would refuse, found up front at the case's location."""

from __future__ import annotations

from typing import Any

from agenteval.checks.case_layout import check_case_layouts
from agenteval.schema.evalset import EvalSet, Invocation

TURN = {"userContent": {"role": "user", "content": "q"}}


def evalset(*cases: dict[str, Any]) -> EvalSet:
    return EvalSet.model_validate({"evalSetId": "s", "evalCases": list(cases)})


def test_layout_problems_are_located_with_hints() -> None:
    found = check_case_layouts(
        evalset(
            {"evalId": "ok", "evalMode": "trace", "sessionInput": {}, "actualConversation": [TURN]},
            {"evalId": "nosession", "evalMode": "trace", "actualConversation": [TURN]},
            {
                "evalId": "mode",
                "sessionInput": {},
                "conversation": [TURN],
                "actualConversation": [TURN],
            },
            {"evalId": "empty", "evalMode": "trace", "sessionInput": {}},
        ),
        "s.evalset.json",
        None,
    )
    assert [str(p) for p in found] == [
        's.evalset.json: evalCases[1]: session input is nil (add "sessionInput": '
        '{"appName": ..., "userId": ...})',
        "s.evalset.json: evalCases[2]: actualConversation is only supported in trace mode "
        '(set "evalMode": "trace")',
        "s.evalset.json: evalCases[3]: invocations are empty (record the turns in "
        "conversation (or actualConversation))",
    ]


def test_cases_that_need_an_agent_run_are_left_to_the_run() -> None:
    default_mode = {"evalId": "live", "sessionInput": {}, "conversation": [TURN]}
    assert check_case_layouts(evalset(default_mode), "s.evalset.json", None) == []
    traces = {"live": [Invocation.model_validate(TURN), Invocation.model_validate(TURN)]}
    (problem,) = check_case_layouts(evalset(default_mode), "s.evalset.json", traces)
    assert problem.message == "inference count 2 does not match expected conversation length 1"


def test_context_messages_are_not_attached_by_the_check() -> None:
    case = {
        "evalId": "ctx",
        "evalMode": "trace",
        "sessionInput": {},
        "contextMessages": [{"role": "system", "content": "be brief"}],
        "actualConversation": [TURN],
    }
    loaded = evalset(case)
    assert check_case_layouts(loaded, "s.evalset.json", None) == []
    turns = loaded.cases()[0].actual_conversation
    assert turns is not None and turns[0] is not None
    assert turns[0].context_messages is None
