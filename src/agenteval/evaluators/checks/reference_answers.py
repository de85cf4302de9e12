"""Up-front per-case checks shared by judge evaluators: reference answers a case lacks.

The expected turns are found as the runner will build them (formats.md §2.10)
without needing the recorded traces: ``conversation`` in default mode, and in
trace mode ``conversation`` beside ``actualConversation``.  A trace-mode case
without reference turns gets user-input-only placeholders, which never carry a
final response.  Layouts the runner rejects are left to the runner.
"""

from __future__ import annotations

from agenteval.evaluators.base import ConfigIssue
from agenteval.schema.evalset import EvalCase, Invocation

_NO_CONVERSATION = "a trace-mode case without conversation has no reference answers"
_LEGACY_TRACE = (
    "without actualConversation, conversation is the recorded trace and the expected "
    "turns hold only the user input"
)


def expected_layout(case: EvalCase) -> tuple[list[Invocation | None], str] | None:
    """The expected turns, or ``([], why)`` when they are placeholders, or None (runner's job)."""
    conversation = case.conversation or None
    if case.eval_mode == "trace":
        if case.actual_conversation:
            if conversation is not None:
                return list(conversation), ""
            return [], _NO_CONVERSATION
        if conversation is not None:
            return [], _LEGACY_TRACE
        return None
    return (list(conversation), "") if conversation is not None else None


def missing_reference_answers(case: EvalCase, message: str, why: str) -> list[ConfigIssue]:
    """One issue per expected turn without ``finalResponse`` (paths relative to the case).

    ``why`` says who needs the reference answer; it starts every hint.
    """
    layout = expected_layout(case)
    if layout is None:
        return []
    turns, placeholders = layout
    if placeholders:
        return [
            ConfigIssue(
                "conversation",
                message,
                f"{why}, but {placeholders}; add the reference turns in conversation",
            )
        ]
    return [
        ConfigIssue(f"conversation[{k}].finalResponse", message, f"{why}; add the reference answer")
        for k, turn in enumerate(turns)
        if turn is not None and turn.final_response is None
    ]
