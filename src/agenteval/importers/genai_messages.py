"""Text out of the message shapes GenAI spans carry.

Span attributes hold messages in several shapes, all JSON text:

* OpenTelemetry GenAI conventions (``gen_ai.input.messages`` / ``gen_ai.output.messages``, and
  trpc-agent-go's ``*.otel`` copies): ``[{role, parts: [{type: "text", content}, …]}]``;
* trpc-agent-go's own ``gen_ai.input.messages``: ``[{role, content, …}]``, and its
  ``gen_ai.output.messages``: choices ``[{index, message: {role, content}}]``;
* Google ADK (``gcp.vertex.agent.llm_request`` / ``llm_response``) and ADK files: Gemini
  ``Content`` objects ``{role, parts: [{text}, {function_call}, …]}``, a request holding
  ``contents``, a response holding ``content``;
* the older per-message span events (``gen_ai.user.message``, ``gen_ai.choice``,
  ``gen_ai.content.prompt`` / ``gen_ai.content.completion``).
"""

from __future__ import annotations

from typing import Any

import pydantic_core

USER_ROLES = frozenset({"user", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "model", "ai"})


def parse_json(value: Any) -> Any:
    """A JSON text decoded; anything else (or text that is not JSON) as it is.

    pydantic_core's parser bounds nesting and numbers (an attribute of 5,000 nested ``[``
    was a RecursionError in the stdlib's): text it cannot read stays text, and so does
    text with NaN or Infinity (no JSON number; written out, it would become null).
    """
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return pydantic_core.from_json(value, allow_inf_nan=False)
        except ValueError:
            return value
    return value


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    kind = part.get("type")
    if kind is not None and kind != "text":
        return ""
    text = part.get("content") if kind == "text" else part.get("text")
    return text if isinstance(text, str) else ""


def message_text(message: Any) -> str:
    """The text of one message in any of the shapes above (parts joined by newlines, as ADK does)."""
    if not isinstance(message, dict):
        return _part_text(message)  # a string is its own text, anything else has none
    inner = message.get("message")
    if isinstance(inner, dict):
        return message_text(inner)
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return message_text(content)
    parts = message.get("parts")
    if isinstance(parts, list):
        return "\n".join(text for text in (_part_text(p) for p in parts) if text)
    return ""


def message_role(message: Any) -> str:
    """The role of a message (choices count as the assistant's)."""
    if not isinstance(message, dict):
        return ""
    inner = message.get("message")
    if isinstance(inner, dict):
        return str(inner.get("role") or "assistant")
    content = message.get("content")
    if isinstance(content, dict) and "role" in content:
        return str(content.get("role") or "")
    return str(message.get("role") or "")


def messages_of(value: Any) -> list[Any]:
    """The message list of an attribute value (a list, a request's ``contents``, one message)."""
    value = parse_json(value)
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in ("contents", "messages"):
            listed = value.get(key)
            if isinstance(listed, list):
                return listed
        return [value]
    if isinstance(value, str) and value:
        return [value]
    return []


def last_text(messages: list[Any], roles: frozenset[str] | None) -> str:
    """The text of the last message with text whose role is in ``roles`` (None: any role)."""
    for message in reversed(messages):
        role = message_role(message).lower()
        if roles is not None and role and role not in roles:
            continue
        text = message_text(message)
        if text:
            return text
    return ""
