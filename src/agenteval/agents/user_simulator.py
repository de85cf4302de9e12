"""The simulated user of a ``conversationScenario`` (formats.md §2.7).

The first user turn is ``startingPrompt`` when one is given; every later one is
written by an LLM (the judge client, so calls are cached, limited and counted)
from our prompt below, the scenario's plan and the conversation so far.  A
generated message containing ``stopSignal`` ends the conversation before
another agent turn; ``maxAllowedInvocations`` caps the user turns.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from agenteval.errors import CaseError
from agenteval.schema.evalset import ConversationScenario

# chat messages as (role, content) -> the model's reply text
ChatCall = Callable[[Sequence[tuple[str, str]]], Awaitable[str]]

DRIVERS = ("", "actual", "expected")

_SYSTEM_PROMPT = """\
You play a human user talking to an AI assistant, so that the assistant can be tested.
Stay in character: write only what this user would type next, as plain text, with no
labels, quotes or explanations. Never answer on the assistant's behalf.

The user's plan for this conversation:
{plan}

Follow the plan step by step, one request or answer per message, and react to what the
assistant actually said. {stop_rule}"""

_STOP_RULE = (
    'When the plan is complete, or the conversation cannot move on, reply with exactly "{signal}" '
    "and nothing else."
)


_OPENING = "(The conversation starts now. Write the user's first message.)"


class ScenarioError(CaseError):
    """The scenario cannot be simulated as configured."""


def check_scenario(scenario: ConversationScenario) -> None:
    """Raise ScenarioError for a scenario Go would refuse to start."""
    if scenario.driver not in DRIVERS:
        raise ScenarioError(
            f"conversationScenario.driver {scenario.driver!r} is unknown (use actual or expected)"
        )
    if not scenario.conversation_plan.strip():
        raise ScenarioError("conversationScenario.conversationPlan is empty")
    limit = scenario.max_allowed_invocations or 0
    if limit < 0:
        raise ScenarioError("conversationScenario.maxAllowedInvocations must be >= 0")
    if not scenario.stop_signal.strip() and limit == 0:
        raise ScenarioError(
            "conversationScenario: stopSignal and maxAllowedInvocations cannot both be disabled"
        )


class UserSimulator:
    """Writes the next user message of one simulated conversation."""

    def __init__(self, scenario: ConversationScenario, chat: ChatCall | None) -> None:
        check_scenario(scenario)
        self.scenario = scenario
        self.stop_signal = scenario.stop_signal.strip()
        self.limit = scenario.max_allowed_invocations or 0
        self._chat = chat
        # Chat models expect the first non-system message from the user side.
        self._history: list[tuple[str, str]] = [("user", _OPENING)]
        self._sent = 0

    def system_prompt(self) -> str:
        """The simulator's system prompt for this scenario."""
        stop = _STOP_RULE.format(signal=self.stop_signal) if self.stop_signal else ""
        return _SYSTEM_PROMPT.format(plan=self.scenario.conversation_plan.strip(), stop_rule=stop)

    async def next(self, agent_reply: str | None) -> str | None:
        """The next user message, or None when the conversation is over."""
        if agent_reply is not None:
            # To the simulator the agent is the other party: its replies are the "user" side.
            self._history.append(("user", agent_reply))
        if self.limit and self._sent >= self.limit:
            return None
        if self._sent == 0 and self.scenario.starting_prompt:
            return self._sent_message(self.scenario.starting_prompt)
        if self._chat is None:
            raise ScenarioError(
                "a simulated user needs a judge model: add criterion.llmJudge.judgeModel to a "
                "metric of the metric file"
            )
        messages = [("system", self.system_prompt())]
        messages += self._history or [
            ("user", "(The conversation starts now. Write your first message.)")
        ]
        text = (await self._chat(messages)).strip()
        if not text:
            raise ScenarioError("the user simulator wrote an empty message")
        if self.stop_signal and self.stop_signal in text:
            return None
        return self._sent_message(text)

    def _sent_message(self, text: str) -> str:
        self._sent += 1
        self._history.append(("assistant", text))
        return text
