"""``providerName`` → the backend class that speaks that provider's API (openai aside).

Tested in tests/judge/test_providers.py (every provider through the client).
"""

from __future__ import annotations

from agenteval.judge.anthropic import AnthropicBackend
from agenteval.judge.gemini import GeminiBackend
from agenteval.judge.hunyuan import HunyuanBackend
from agenteval.judge.ollama import OllamaBackend
from agenteval.judge.wire import JsonJudgeBackend

BACKENDS: dict[str, type[JsonJudgeBackend]] = {
    "anthropic": AnthropicBackend,
    "gemini": GeminiBackend,
    "ollama": OllamaBackend,
    "hunyuan": HunyuanBackend,
}


def backend_class(provider: str) -> type[JsonJudgeBackend] | None:
    """The backend class of ``provider``, or ``None`` when it is not one of these four."""
    return BACKENDS.get(provider)
