"""agents/protocol.py: the ``cmd:`` protocol's reply lines, their ``usage`` in particular."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agenteval.agents.protocol import (
    FinalReply,
    MessageReply,
    ReplyUsage,
    reply_adapter,
    usage_of,
)
from agenteval.schema.base import dump


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


def test_cache_writes_are_part_of_the_input_tokens_and_kept_only_when_some() -> None:
    reply = reply_adapter.validate_json(
        '{"type": "message", "content": "ok", "usage": {"inputTokens": 100, "outputTokens": 20,'
        ' "cachedInputTokens": 40, "cacheWriteInputTokens": 60, "model": "anthropic:claude"}}'
    )
    assert isinstance(reply, MessageReply) and reply.usage is not None
    usage = usage_of(reply.usage)
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_input_tokens) == (
        100,
        40,
        60,
    )
    assert dump(usage)["cacheWriteInputTokens"] == 60
    # None written (absent or 0): the turn's usage is written as it was before the key.
    for written in ("", ', "cacheWriteInputTokens": 0'):
        line = f'{{"inputTokens": 100, "cachedInputTokens": 40{written}}}'
        assert dump(usage_of(ReplyUsage.model_validate_json(line))) == {
            "inputTokens": 100,
            "outputTokens": 0,
            "cachedInputTokens": 40,
            "model": "",
            "inferenceCalls": 1,
        }


def test_cache_writes_beyond_the_uncached_input_tokens_are_refused() -> None:
    # 40 read + 61 written of a 100-token prompt: counted apart, as Anthropic's input_tokens.
    line = (
        '{"type": "final", "content": "ok", "usage": {"inputTokens": 100,'
        ' "cachedInputTokens": 40, "cacheWriteInputTokens": 61}}'
    )
    with pytest.raises(ValidationError, match="at most inputTokens - cachedInputTokens"):
        reply_adapter.validate_json(line)
