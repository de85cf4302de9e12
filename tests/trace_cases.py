"""Trace-mode eval cases for the end-to-end tests: the recorded turns are both the reference
and what the agent did, so no agent runs and only the metrics under test decide."""

from __future__ import annotations

from typing import Any


def trace_case(eval_id: str, *turns: dict[str, Any]) -> dict[str, Any]:
    """A trace-mode case whose ``conversation`` and ``actualConversation`` are ``turns``."""
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "sessionInput": {"appName": "app", "userId": "u"},
        "conversation": list(turns),
        "actualConversation": list(turns),
    }


def usage_turn(iid: str, usage: bool) -> dict[str, Any]:
    """A turn ``q`` → ``a``; with ``usage``, 10 input + 5 output tokens in one model call."""
    data: dict[str, Any] = {
        "invocationId": iid,
        "userContent": {"role": "user", "content": "q"},
        "finalResponse": {"role": "assistant", "content": "a"},
    }
    if usage:
        data["usage"] = {"inputTokens": 10, "outputTokens": 5, "inferenceCalls": 1}
    return data


def usage_eval_set(usage_on_turn_2: bool) -> dict[str, Any]:
    """Eval set ``u``: one trace-mode case ``c1`` of two turns whose first reports its usage
    (the second only with ``usage_on_turn_2``); the reference turns report none."""
    return {
        "evalSetId": "u",
        "evalCases": [
            {
                "evalId": "c1",
                "evalMode": "trace",
                "sessionInput": {"appName": "a", "userId": "u"},
                "actualConversation": [usage_turn("i1", True), usage_turn("i2", usage_on_turn_2)],
                "conversation": [usage_turn("i1", False), usage_turn("i2", False)],
            }
        ],
    }
