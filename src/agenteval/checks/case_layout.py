"""Cases the runner cannot lay out as (actual, expected) turns, found before anything runs.

The runner's :func:`agenteval.schema.turns.case_turns` is asked for every case, so
``validate`` and ``run`` agree on each layout: a missing ``sessionInput``,
``actualConversation`` outside trace mode, turn counts that cannot be
aligned, null turns.  Cases that need an agent run (default mode without
``--traces``, ``conversationScenario``, ``expectedRunnerEnabled``) are not
errors: they end as failed case results that say what to supply
(ARCHITECTURE §5.5).
"""

from __future__ import annotations

from collections.abc import Mapping

from agenteval.errors import Problem
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation
from agenteval.schema.turns import CaseLayoutError, case_turns, recorded_failure

# Messages of layouts that only an agent run (or --traces) can complete.
_AGENT_RUN_WORDS = ("needs an agent run", "needs a live user simulator", "needs a second agent")

_HINTS = {
    "session input is nil": 'add "sessionInput": {"appName": ..., "userId": ...}',
    "actualConversation is only supported in trace mode": 'set "evalMode": "trace"',
    "invocations are empty": "record the turns in conversation (or actualConversation)",
    "actual conversation length": "give actualConversation and conversation one turn each "
    "per user message",
    "inference count": "the recorded trace needs as many turns as conversation",
    "actual invocation is nil": "remove the null turn",
    "actual invocation user content is nil": "every recorded turn needs its userContent",
    "expected invocation is nil": "remove the null turn",
    "conversation and conversationScenario": "keep one of them",
    "conversationScenario is not supported in trace mode": "drop it or leave evalMode empty",
}


def check_case_layouts(
    evalset: EvalSet, file: str, traces: Mapping[str, list[Invocation]] | None
) -> list[Problem]:
    """One problem per case whose turns the runner would refuse, at the case's location."""
    problems: list[Problem] = []
    for index, case in enumerate(evalset.eval_cases):
        if case is None:
            continue
        problem = case_layout_problem(index, case, file, traces)
        if problem is not None:
            problems.append(problem)
    return problems


def case_layout_problem(
    index: int, case: EvalCase, file: str, traces: Mapping[str, list[Invocation]] | None
) -> Problem | None:
    """The problem of ``evalCases[index]`` when the runner would refuse its turns, else None."""
    if recorded_failure(case, traces) is not None:
        return None  # a --record line of a failed agent run: the replay fails it again
    # Without context messages: case_turns would attach them to the shared turns.
    probe = case.model_copy(update={"context_messages": None}) if case.context_messages else case
    try:
        case_turns(probe, traces)
    except CaseLayoutError as exc:
        message = str(exc)
        if any(words in message for words in _AGENT_RUN_WORDS):
            return None
        hint = next((h for m, h in _HINTS.items() if message.startswith(m)), "")
        return Problem(file, f"evalCases[{index}]", message, hint)
    return None
