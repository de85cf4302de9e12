"""The built-in judge providers, one module each: importing this package registers them.

trpc-agent-go's ``model/provider`` registry: ``openai`` (OpenAI-compatible chat
completions and its variants), ``anthropic`` (Messages API), ``gemini``
(``generateContent``), ``ollama`` (``/api/chat``) and ``hunyuan`` (Tencent
Cloud API 3.0, signed by :mod:`~agenteval.judge.providers.tc3`).  Each module
holds the backend and its registry entry (:func:`agenteval.judge.provider.register_judge_provider`),
as a plugin's provider would; nothing outside this package imports them but
``agenteval.judge``'s ``__init__``, which loads them.

Tested in tests/judge/test_providers.py (every provider through the client, over HTTP).
"""

from __future__ import annotations

from agenteval.judge.providers import anthropic, gemini, hunyuan, ollama, openai

__all__ = ["anthropic", "gemini", "hunyuan", "ollama", "openai"]
