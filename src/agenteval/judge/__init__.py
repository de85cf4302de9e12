"""Judge calls: provider backends, SQLite cache, retries, limits and usage.

Generic modules here (``client``, ``backend``, ``wire``, ``provider``, ``limits``,
``cache``, ...) import no provider; the built-in providers are one module each in
:mod:`agenteval.judge.providers`, loaded (and so registered) at the end of this
package's import.  ``judgeModel.providerName`` picks a backend through
:data:`agenteval.judge.provider.judge_providers`.

How an evaluator uses it: the runner opens one ``JudgeClient(JudgeOptions(...))``
per run (``async with``) and hands it to every LLM evaluator.  For a metric,
the evaluator resolves the judge once with
``settings = resolve_settings(metric.criterion.llm_judge.judge_model)`` (the
loader has already ``${ENV}``-expanded the five fields with
:func:`agenteval.inputs.env_expansion.expand_judge_model`; ``JudgeConfigError`` means a bad
``generationConfig``), validates ``settings.num_samples >= 1`` itself, then for
each turn builds ``JudgeRequest.user_prompt(settings, prompt, schema)`` and
awaits ``client.complete(request, metric_name=metric.metric_name,
sample_index=k)`` for ``k`` in ``range(num_samples)`` (``asyncio.gather`` is
fine: the client bounds concurrency globally).  The ``JudgeReply`` gives
``text`` (``choices[0].message.content``), ``logprobs`` and ``usage``.  Any
``JudgeError`` raised there is final for that turn: turn it into a
``not_evaluated`` turn whose reason is ``str(exc)`` — ``JudgeCacheMiss``
(offline), ``JudgeBudgetExhausted``, ``JudgeUnavailable`` (retries ran out),
``JudgeRejected`` (400/401/403/404), ``JudgeReplyError`` (error body, bad
JSON, no choices) or ``JudgeRequestError`` (refused before sending, e.g.
``top_logprobs`` without ``logprobs``) — and the runner exits 3 at the end.
``client.usage`` holds calls and tokens per metric and for the run.

The names above load on first use (a run without a judge metric never imports the HTTP
stack), and the built-in providers just before the provider table is first read or
written.  Tested in tests/judge/test_provider.py (and tests/cli/test_startup_imports.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agenteval.judge.provider import (
    LOGPROBS,
    STRUCTURED_OUTPUT,
    ProviderSpec,
    judge_providers,
    register_judge_provider,
)

if TYPE_CHECKING:
    from agenteval.judge.backend import (
        ChatMessage,
        JudgeBackend,
        JudgeReply,
        JudgeRequest,
        PreparedCall,
        StructuredOutput,
        TokenLogprob,
        TokenUsage,
        TopLogprob,
    )
    from agenteval.judge.cache import DEFAULT_CACHE_PATH, JudgeCache
    from agenteval.judge.client import JudgeClient, JudgeOptions
    from agenteval.judge.config import GenerationConfig, JudgeSettings, Secret, resolve_settings
    from agenteval.judge.errors import (
        JudgeBudgetExhausted,
        JudgeCacheMiss,
        JudgeConfigError,
        JudgeInterrupted,
        JudgeRejected,
        JudgeReplyError,
        JudgeRequestError,
        JudgeTransientError,
        JudgeUnavailable,
    )
    from agenteval.judge.providers.openai import OpenAIBackend
    from agenteval.judge.usage import Usage, UsageLedger


# Where each public name lives: a deterministic run imports agenteval.judge.provider (the
# plugin front registers providers) but never calls a judge, and the client's HTTP stack
# (httpx, aiohttp, ~40 % of the CLI's start-up) loads only when a name below is first used.
_LAZY = {
    "ChatMessage": "agenteval.judge.backend",
    "JudgeBackend": "agenteval.judge.backend",
    "JudgeReply": "agenteval.judge.backend",
    "JudgeRequest": "agenteval.judge.backend",
    "PreparedCall": "agenteval.judge.backend",
    "StructuredOutput": "agenteval.judge.backend",
    "TokenLogprob": "agenteval.judge.backend",
    "TokenUsage": "agenteval.judge.backend",
    "TopLogprob": "agenteval.judge.backend",
    "DEFAULT_CACHE_PATH": "agenteval.judge.cache",
    "JudgeCache": "agenteval.judge.cache",
    "JudgeClient": "agenteval.judge.client",
    "JudgeOptions": "agenteval.judge.client",
    "GenerationConfig": "agenteval.judge.config",
    "JudgeSettings": "agenteval.judge.config",
    "Secret": "agenteval.judge.config",
    "resolve_settings": "agenteval.judge.config",
    "JudgeBudgetExhausted": "agenteval.judge.errors",
    "JudgeCacheMiss": "agenteval.judge.errors",
    "JudgeConfigError": "agenteval.judge.errors",
    "JudgeInterrupted": "agenteval.judge.errors",
    "JudgeRejected": "agenteval.judge.errors",
    "JudgeReplyError": "agenteval.judge.errors",
    "JudgeRequestError": "agenteval.judge.errors",
    "JudgeTransientError": "agenteval.judge.errors",
    "JudgeUnavailable": "agenteval.judge.errors",
    "OpenAIBackend": "agenteval.judge.providers.openai",
    "Usage": "agenteval.judge.usage",
    "UsageLedger": "agenteval.judge.usage",
}


def __getattr__(name: str) -> Any:
    """A public name of the package, its module imported on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def _load_built_in_providers() -> None:
    # Importing the providers package registers every built-in provider; no other judge
    # module imports it.  It runs before the registry is first read or written, so a
    # plugin's provider registered later still replaces a built-in one.
    importlib.import_module("agenteval.judge.providers")


judge_providers.load_first(_load_built_in_providers)

__all__ = [
    "DEFAULT_CACHE_PATH",
    "LOGPROBS",
    "STRUCTURED_OUTPUT",
    "ChatMessage",
    "GenerationConfig",
    "JudgeBackend",
    "JudgeBudgetExhausted",
    "JudgeCache",
    "JudgeCacheMiss",
    "JudgeClient",
    "JudgeConfigError",
    "JudgeInterrupted",
    "JudgeOptions",
    "JudgeRejected",
    "JudgeReply",
    "JudgeReplyError",
    "JudgeRequest",
    "JudgeRequestError",
    "JudgeSettings",
    "JudgeTransientError",
    "JudgeUnavailable",
    "OpenAIBackend",
    "PreparedCall",
    "ProviderSpec",
    "Secret",
    "StructuredOutput",
    "TokenLogprob",
    "TokenUsage",
    "TopLogprob",
    "Usage",
    "UsageLedger",
    "judge_providers",
    "register_judge_provider",
    "resolve_settings",
]
