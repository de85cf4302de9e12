"""A ``--traces`` entry belongs to its case: its user messages are the case's reference turns'.

A trace is handed to the case whose evalId it names; if it was recorded for another question
(a renamed case, a stale recording, a session id reused), scoring it compares an answer to
the wrong question without a word.  Each turn's user text of the trace (every run's own
trace too) is compared with the reference turn's (``conversation``; for a simulated-user
case, the scenario's ``startingPrompt`` against the first turn), blanks collapsed; the first
turn that differs is named.  A warning, an error under ``--strict``; a reference turn
without user text is not compared.

Tested in tests/checks/test_trace_match.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from agenteval.errors import Problem
from agenteval.schema.evalset import EvalCase, Invocation, Message
from agenteval.schema.turns import run_trace_key

# How much of each text a message quotes.
_QUOTED = 60


def _text(message: Message | None) -> str:
    return " ".join(message.content.split()) if message is not None else ""


def _quoted(text: str) -> str:
    short = text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"
    return repr(short)


def _reference(case: EvalCase) -> tuple[list[str], str]:
    """The reference user texts by turn ("" = nothing to compare) and where the turns are."""
    if case.conversation:
        return [_text(t.user_content) if t is not None else "" for t in case.conversation], (
            "conversation[{}].userContent"
        )
    scenario = case.conversation_scenario
    if scenario is not None and scenario.starting_prompt.strip():
        return [" ".join(scenario.starting_prompt.split())], "conversationScenario.startingPrompt"
    return [], ""


def trace_mismatch_problem(
    index: int,
    case: EvalCase,
    file: str,
    traces: Mapping[str, list[Invocation]] | None,
    num_runs: int = 1,
) -> Problem | None:
    """The first turn whose ``--traces`` user message differs from ``evalCases[index]``'s, or None."""
    if not traces or case.eval_mode == "trace" or case.eval_id not in traces:
        return None
    reference, at = _reference(case)
    if not any(reference):
        return None
    for run in range(1, num_runs + 1):
        key = run_trace_key(case.eval_id, run)
        if run > 1 and key not in traces:
            continue  # later runs replay run 1's trace, already compared
        for turn, (expected, actual) in enumerate(zip(reference, traces[key], strict=False)):
            got = _text(actual.user_content)
            if not expected or got == expected:
                continue
            of_run = f"run {run}, " if run > 1 else ""
            return Problem(
                file,
                f"evalCases[{index}].{at.format(turn)}",
                f"case {case.eval_id!r}: the --traces user message of {of_run}"
                f"turn {turn + 1} differs from the reference: {_quoted(got)} vs "
                f"{_quoted(expected)}",
                "a trace of another question? check the evalId it was recorded under",
            )
    return None


__all__ = ["trace_mismatch_problem"]
