"""A plugin ``JudgeBackend`` gets the client's retries, cache, budgets and key redaction."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from judge_support import fast_options, settings_for

from agenteval.judge import (
    JudgeBackend,
    JudgeClient,
    JudgeRejected,
    JudgeReply,
    JudgeRequest,
    JudgeTransientError,
    OpenAIBackend,
    PreparedCall,
    TokenUsage,
)
from judge_server import JudgeServer

KEY = "sk-test-plugin-5f3a9c2e"


class EchoBackend:
    """Answers with the prompt reversed; fails transiently on the first attempt of each call."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    def prepare(self, request: JudgeRequest, sample_index: int) -> PreparedCall:
        prompt = request.messages[-1].content
        return PreparedCall("plugin:echo", "echo", {"prompt": prompt}, sample_index)

    async def send(self, call: PreparedCall) -> JudgeReply:
        prompt = str(call.body["prompt"])
        self.attempts.append(prompt)
        if prompt == "refuse":
            raise JudgeRejected(f"echo refuses; your key {KEY} is fine", 400)
        if self.attempts.count(prompt) == 1:
            raise JudgeTransientError("echo warming up")
        return JudgeReply(prompt[::-1], usage=TokenUsage(3, 2))


def test_protocol_is_satisfied(judge_server: JudgeServer) -> None:
    assert isinstance(EchoBackend(), JudgeBackend)
    assert isinstance(OpenAIBackend(settings_for(judge_server), None), JudgeBackend)


def test_plugin_backend_runs_through_the_client(judge_server: JudgeServer, tmp_path: Path) -> None:
    backend = EchoBackend()
    settings = settings_for(judge_server, api_key=KEY)
    options = fast_options(cache_path=tmp_path / "c.sqlite")

    async def go() -> tuple[list[str], str, JudgeClient]:
        async with JudgeClient(options, backend=backend) as client:
            texts = []
            for prompt in ["abc", "xyz", "abc"]:
                reply = await client.complete(
                    JudgeRequest.user_prompt(settings, prompt), metric_name="echo"
                )
                texts.append(reply.text)
            with pytest.raises(JudgeRejected) as caught:
                await client.complete(
                    JudgeRequest.user_prompt(settings, "refuse"), metric_name="echo"
                )
            return texts, str(caught.value), client

    texts, refusal, client = asyncio.run(go())
    assert texts == ["cba", "zyx", "cba"]
    # Two attempts each for abc and xyz, none for the cached abc, one for refuse.
    assert backend.attempts == ["abc", "abc", "xyz", "xyz", "refuse"]
    assert judge_server.count == 0
    usage = client.usage.total
    assert (usage.calls, usage.cache_hits, usage.retries, usage.failed_calls) == (3, 1, 2, 1)
    assert (usage.prompt_tokens, usage.completion_tokens) == (6, 4)
    assert KEY not in refusal and "echo refuses" in refusal


@pytest.mark.parametrize(
    ("usage", "usable"),
    [
        (TokenUsage(11, 7), True),
        (TokenUsage(11, 7, cached_prompt_tokens=5, cache_write_tokens=6), True),
        (TokenUsage(-5000, 7), False),
        (TokenUsage(11, -1), False),
        (TokenUsage(11, 7, cached_prompt_tokens=-2), False),
        (TokenUsage(11, 7, cache_write_tokens=-2), False),
        (TokenUsage(11, 7, cached_prompt_tokens=6, cache_write_tokens=6), False),
        (TokenUsage(11.5, 7), False),  # type: ignore[arg-type]  # a plugin's float
        (TokenUsage(True, 7), False),  # type: ignore[arg-type]
    ],
)
def test_token_counts_that_cannot_be_true_are_not_usable(usage: TokenUsage, usable: bool) -> None:
    assert usage.usable is usable
