"""agents/protocol.py: the ``cmd:`` protocol's reply lines, their ``usage`` in particular."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agenteval.agents.protocol import FinalReply, reply_adapter, usage_of


def test_a_final_lines_usage_is_one_model_call_with_its_cached_tokens() -> None:
    reply = reply_adapter.validate_json(
        '{"type": "final", "content": "ok", "usage": {"inputTokens": 100, "outputTokens": 20,'
        ' "cachedInputTokens": 40, "model": "openai:gpt-4o"}}'
    )
    assert isinstance(reply, FinalReply) and reply.usage is not None
    usage = usage_of(reply.usage)
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (100, 20, 40)
    assert (usage.inference_calls, usage.model) == (1, "openai:gpt-4o")


def test_cached_tokens_beyond_the_input_tokens_are_refused() -> None:
    line = (
        '{"type": "final", "content": "ok", "usage": {"inputTokens": 10, "cachedInputTokens": 40}}'
    )
    with pytest.raises(ValidationError, match="cachedInputTokens is part of inputTokens"):
        reply_adapter.validate_json(line)
