"""The hallucination judge's grounding context, taken from the trace (llm-evaluators.md §5.2 step A).

Every turn of the prefix (earlier turns and the current one) contributes what
the agent could legitimately rely on: the user prompt, the context messages,
and the tool calls with their outputs, each as a section joined by a blank
line.  Intermediate responses and earlier final answers never count as
evidence: they are the agent's own words.  Tool calls and outputs are written
as Go's ``MarshalIndent`` writes them (2-space indent, HTML-escaped, map keys
sorted), with ``id``/``name`` left out when empty and ``args``/``output`` left
out only when null.

Tested in tests/evaluators/llm/test_hallucinations.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenteval.evaluators.llm.operators.constructors import message_text
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.schema.evalset import Invocation, Message, Tool
from agenteval.schema.gojson import GoJSONError, Struct, marshal, marshal_indent

NO_CONTEXT = "No validation context was captured."


def turn_context(actual: Invocation | None) -> str:
    """One turn's grounding sections, or :data:`NO_CONTEXT` when it has none."""
    if actual is None:
        return NO_CONTEXT
    sections: list[str] = []
    user = message_text(actual.user_content).strip()
    if user:
        sections.append("User prompt:\n" + user)
    messages = _context_messages(actual.context_messages or ())
    if messages:
        sections.append("Context messages:\n" + messages)
    calls, outputs = _tool_sections(actual.tools or ())
    if calls:
        sections.append("tool_calls:\n" + calls)
    if outputs:
        sections.append("tool_outputs:\n" + outputs)
    return "\n\n".join(sections) if sections else NO_CONTEXT


def grounding_context(actuals: Sequence[Invocation | None]) -> str:
    """The context of every turn that has one, joined by blank lines (``extract grounding context``)."""
    contexts: list[str] = []
    for index, actual in enumerate(actuals):
        try:
            context = turn_context(actual)
        except OperatorError as exc:
            raise OperatorError(f"extract grounding context: actual {index}: {exc}") from None
        if context != NO_CONTEXT:
            contexts.append(context)
    return "\n\n".join(contexts) if contexts else NO_CONTEXT


def _context_messages(messages: Sequence[Message | None]) -> str:
    lines = []
    for message in messages:
        text = message_text(message).strip()
        if text and message is not None:
            lines.append(f"- [{message.role}] {text}")
    return "\n".join(lines).strip()


def _tool_sections(tools: Sequence[Tool | None]) -> tuple[str, str]:
    calls: list[Struct] = []
    outputs: list[Struct] = []
    for tool in tools:
        if tool is None:
            continue
        for part, value in (("arguments", tool.arguments), ("result", tool.result)):
            try:
                marshal(value)
            except GoJSONError as exc:
                raise OperatorError(
                    f"format tool calls and outputs: marshal tool {tool.name} {part}: {exc}"
                ) from None
        named = [(key, text) for key, text in (("id", tool.id), ("name", tool.name)) if text]
        calls.append(Struct(named + _unless_null("args", tool.arguments)))
        outputs.append(Struct(named + _unless_null("output", tool.result)))
    return _section(calls), _section(outputs)


def _unless_null(key: str, value: object) -> list[tuple[str, object]]:
    # Go's omitempty drops a nil interface only: an empty object or "" stays.
    return [] if value is None else [(key, value)]


def _section(items: list[Struct]) -> str:
    text = marshal_indent(items).strip()
    return "" if text == "[]" else text
