"""Which turns an evaluator sees as actual and expected, for every case layout (formats.md §2.10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agenteval.errors import CaseError
from agenteval.schema.evalset import EvalCase, Invocation, Message, execution_trace_usage

_NEEDS_TRACE = (
    "this case needs an agent run: drive the agent with --agent SPEC, supply its recorded turns "
    'with --traces FILE, or set evalMode "trace" and record them in actualConversation'
)


def run_trace_key(eval_id: str, run_id: int) -> str:
    """Where a trace of run ``run_id`` is kept: run 1 under the evalId (used by every run that
    has no trace of its own), later runs (``runId`` of ``--record``) under their own key."""
    return eval_id if run_id == 1 else f"{eval_id}\x00run {run_id}"


def split_trace_key(key: str) -> tuple[str, int]:
    """The evalId and run a :func:`run_trace_key` names."""
    eval_id, _, run = key.partition("\x00run ")
    return eval_id, int(run) if run else 1


class CaseLayoutError(CaseError):
    """The case cannot be scored; its message becomes the case's errorMessage."""


class RecordedIncomplete(CaseLayoutError):
    """A replayed case run that could not be driven through no fault of the agent (``--record``'s
    ``"incomplete": true``): the case is incomplete again, not failed."""


class RecordedRun(list[Invocation]):
    """A recorded case run's actual turns with the expected turns ``--expected-agent``
    produced for it (``--record``'s ``expectedConversation``): a replay scores against
    those, as the live run did."""

    def __init__(self, turns: Sequence[Invocation], expected: Sequence[Invocation]) -> None:
        super().__init__(turns)
        self.expected = list(expected)


def _recorded_expected(turns: Sequence[Invocation] | None) -> list[Invocation] | None:
    """The expected turns recorded with ``turns`` (None when none were: an empty list is
    no expected turns either, so expectedRunnerEnabled still asks for them)."""
    return (turns.expected or None) if isinstance(turns, RecordedRun) else None


class FailedRun(list[Invocation]):
    """A recorded case run whose agent failed (``--record``'s ``errorMessage``): the turns
    it finished, and the error that a replay fails the case with again (``incomplete``: the
    run was left incomplete, e.g. the agent could not be started)."""

    def __init__(self, turns: Sequence[Invocation], error: str, incomplete: bool = False) -> None:
        super().__init__(turns)
        self.error = error
        self.incomplete = incomplete


def recorded_failure(case: EvalCase, traces: Mapping[str, list[Invocation]] | None) -> str | None:
    """The recorded agent error a replay of this case fails with, if ``--traces`` holds one."""
    if case.eval_mode == "trace" or not traces:
        return None
    recorded = traces.get(case.eval_id)
    return recorded.error if isinstance(recorded, FailedRun) else None


def _recorded(
    case: EvalCase, traces: Mapping[str, list[Invocation]] | None
) -> list[Invocation] | None:
    """The case's turns from ``--traces``; CaseLayoutError replays a recorded failure."""
    error = recorded_failure(case, traces)
    if error is not None:
        assert traces is not None
        recorded = traces[case.eval_id]
        incomplete = isinstance(recorded, FailedRun) and recorded.incomplete
        raise (RecordedIncomplete if incomplete else CaseLayoutError)(error)
    return traces.get(case.eval_id) if traces else None


def placeholder(actual: Invocation) -> Invocation:
    """An expected turn with only the id and user input of the actual turn."""
    return Invocation(invocation_id=actual.invocation_id, user_content=actual.user_content)


def _checked_actuals(turns: Sequence[Invocation | None]) -> list[Invocation]:
    checked: list[Invocation] = []
    for index, turn in enumerate(turns):
        if turn is None:
            raise CaseLayoutError(f"actual invocation is nil at index {index}")
        if turn.user_content is None:
            raise CaseLayoutError(f"actual invocation user content is nil at index {index}")
        if turn.usage is None and turn.execution_trace is not None:
            # trpc-agent-go's own record of what the turn's model calls spent.
            turn.usage = execution_trace_usage(turn.execution_trace)
        checked.append(turn)
    return checked


def _expected_list(turns: Sequence[Invocation | None]) -> list[Invocation]:
    out: list[Invocation] = []
    for index, turn in enumerate(turns):
        if turn is None:
            raise CaseLayoutError(f"expected invocation is nil at index {index}")
        out.append(turn)
    return out


def case_turns(
    case: EvalCase,
    traces: Mapping[str, list[Invocation]] | None = None,
    *,
    driven: list[Invocation] | None = None,
    driven_expected: list[Invocation] | None = None,
) -> tuple[list[Invocation], list[Invocation]]:
    """The index-aligned (actual, expected) turns of a case, or CaseLayoutError.

    ``driven`` are the actual turns agenteval just captured from the agent (``--agent``);
    ``driven_expected`` the expected turns from ``--expected-agent`` (or, replayed, those
    recorded with the trace: :class:`RecordedRun`).
    """
    if case.session_input is None:
        raise CaseLayoutError("session input is nil")
    conversation = case.conversation or None
    actual_conversation = case.actual_conversation or None
    scenario = case.conversation_scenario
    if case.eval_mode == "trace":
        if scenario is not None:
            raise CaseLayoutError("conversationScenario is not supported in trace mode")
        if actual_conversation is not None:
            actuals = _checked_actuals(actual_conversation)
            if conversation is None:
                expecteds = [placeholder(a) for a in actuals]
            else:
                expecteds = _expected_list(conversation)
                if len(expecteds) != len(actuals):
                    raise CaseLayoutError(
                        f"actual conversation length {len(actuals)} does not match "
                        f"conversation length {len(expecteds)}"
                    )
        elif conversation is not None:
            # Legacy trace layout: the conversation itself is the recorded trace.
            actuals = _checked_actuals(conversation)
            expecteds = [placeholder(a) for a in actuals]
        else:
            raise CaseLayoutError("invocations are empty")
    else:
        if actual_conversation is not None:
            raise CaseLayoutError("actualConversation is only supported in trace mode")
        if conversation is not None and scenario is not None:
            raise CaseLayoutError("conversation and conversationScenario cannot both be configured")
        if scenario is not None:
            simulated = driven if driven is not None else _recorded(case, traces)
            driven_expected = driven_expected or _recorded_expected(simulated)
            if simulated is None:
                raise CaseLayoutError(
                    "conversationScenario needs a live user simulator and agent; " + _NEEDS_TRACE
                )
            actuals = _checked_actuals(simulated)
            expecteds = driven_expected or [placeholder(a) for a in actuals]
        else:
            if conversation is None:
                raise CaseLayoutError("invocations are empty")
            recorded = driven if driven is not None else _recorded(case, traces)
            driven_expected = driven_expected or _recorded_expected(recorded)
            if recorded is None:
                raise CaseLayoutError(_NEEDS_TRACE)
            actuals = _checked_actuals(recorded)
            expecteds = driven_expected or _expected_list(conversation)
    if case.expected_runner_enabled and driven_expected is None:
        raise CaseLayoutError(
            "expectedRunnerEnabled needs a second agent to produce the expected turns; "
            "record them in conversation and set expectedRunnerEnabled to false"
        )
    if len(actuals) != len(expecteds):
        raise CaseLayoutError(
            f"inference count {len(actuals)} does not match expected conversation length "
            f"{len(expecteds)}"
        )
    if case.context_messages:
        attach_context(actuals, case.context_messages)
        attach_context(expecteds, case.context_messages)
    return actuals, expecteds


def attach_context(turns: Sequence[Invocation], messages: list[Message]) -> None:
    """Give every turn without context messages the case-level ones (formats.md §4 step 5)."""
    for turn in turns:
        if not turn.context_messages:
            turn.context_messages = list(messages)
