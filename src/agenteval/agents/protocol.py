"""The ``cmd:`` agent protocol: JSON lines over a worker process's stdin and stdout.

One JSON object per line, UTF-8, each with a ``type``.  A worker serves one
session at a time and is reused for the next one.

agenteval → agent (stdin)::

    {"type": "session_start", "sessionId": "…", "appName": "…", "userId": "…",
     "state": {…} | null, "contextMessages": [Message, …], "mockedTools": ["name", …]}
    {"type": "user_turn", "sessionId": "…", "turn": 1, "message": Message,
     "mockedTools": ["name", …]}
    {"type": "tool_result", "sessionId": "…", "id": "call id", "result": <any JSON>}
    {"type": "session_end", "sessionId": "…"}

agent → agenteval (stdout), while a turn runs::

    {"type": "tool_call", "id": "…", "name": "…", "arguments": <any JSON>}
    {"type": "tool_result", "id": "…", "result": <any JSON>}   # only for the agent's own tools
    {"type": "message", "content": "…", "usage": Usage?}       # an intermediate response
    {"type": "final", "content": "…", "usage": Usage?}         # ends the turn
    {"type": "error", "message": "…"}                          # ends the turn; the case fails

After a ``tool_call`` of a tool named in ``mockedTools`` the agent waits for
agenteval's ``tool_result`` line with the same ``id`` and must not run its own
tool: a ``tool_result`` line of its own for that call fails the turn (it would replace
the mock's result).  ``Usage`` (optional) is what the model call that produced the line spent:
``{"inputTokens": n, "outputTokens": n, "cachedInputTokens": n?,
"cacheWriteInputTokens": n?, "model": "provider:model"?}``, the last two the parts of
``inputTokens`` read from and written to the provider's prompt cache; each line
that carries one counts one inference call of the turn (the ``tool_call_count``,
``inference_call_count`` and ``token_usage`` evaluators read them).
``Message`` is formats.md §2.5 (``{"role": "user", "content": "…"}``).
Anything else on stdout is a protocol error, and so is anything written after
``final`` or ``error`` before the next ``user_turn``; stderr is free-form and
kept for the case's error message.  ``session_start`` arrives together with the
first ``user_turn``; ``session_end`` is sent as soon as the session's last turn
is answered, and agenteval waits until the agent has read it (cmd_agent.py says
why).

Tested in tests/agents/test_cmd_agent.py.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from agenteval.schema.evalset import Usage


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ToolCallReply(_Reply):
    """The agent calls a tool."""

    type: Literal["tool_call"]
    id: str
    name: str
    arguments: Any = None


class ToolResultReply(_Reply):
    """The result of one of the agent's own tools."""

    type: Literal["tool_result"]
    id: str
    result: Any = None


class ReplyUsage(BaseModel):
    """Tokens of the model call behind a message or final line."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    input_tokens: int = Field(default=0, ge=0, alias="inputTokens")
    output_tokens: int = Field(default=0, ge=0, alias="outputTokens")
    model: str = ""
    # Of inputTokens, those the provider's prompt cache served (priced at the cached rate).
    cached_input_tokens: int = Field(default=0, ge=0, alias="cachedInputTokens")
    # Of inputTokens, those written to the provider's prompt cache (AG-UI's name and
    # accounting): without a cacheWriteInputPerMillion price the turn's cost is unknown.
    cache_write_input_tokens: int = Field(default=0, ge=0, alias="cacheWriteInputTokens")

    @model_validator(mode="after")
    def _parts_within_input(self) -> ReplyUsage:
        if self.cached_input_tokens > self.input_tokens:
            raise ValueError("cachedInputTokens is part of inputTokens, so at most inputTokens")
        if self.cached_input_tokens + self.cache_write_input_tokens > self.input_tokens:
            # An agent that counts them apart (Anthropic's input_tokens) is told so, not
            # priced on a prompt smaller than the one it paid for.
            raise ValueError(
                "cacheWriteInputTokens is part of inputTokens, apart from cachedInputTokens,"
                " so at most inputTokens - cachedInputTokens"
            )
        return self


class MessageReply(_Reply):
    """An intermediate response of the turn."""

    type: Literal["message"]
    content: str
    usage: ReplyUsage | None = None


class FinalReply(_Reply):
    """The turn's final response; the turn is over."""

    type: Literal["final"]
    content: str
    usage: ReplyUsage | None = None


class ErrorReply(_Reply):
    """The agent failed the turn."""

    type: Literal["error"]
    message: str


def usage_of(usage: ReplyUsage) -> Usage:
    """What the model call behind a line spent, as a turn's ``usage`` counts it."""
    spent = Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        model=usage.model,
        inference_calls=1,
    )
    if usage.cache_write_input_tokens:
        # Set only when there are some: a turn without them is written as it was before.
        spent.cache_write_input_tokens = usage.cache_write_input_tokens
    return spent


AgentReply = Annotated[
    ToolCallReply | ToolResultReply | MessageReply | FinalReply | ErrorReply,
    Field(discriminator="type"),
]
reply_adapter: TypeAdapter[AgentReply] = TypeAdapter(AgentReply)
