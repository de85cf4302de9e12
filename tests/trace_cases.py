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
