"""Up-front checks of a judge metric's ``criterion.llmJudge`` (paths relative to the metric).

These are the problems §2 would only report when a case runs (missing
judgeModel, ``numSamples <= 0``, negative ``sampleParallelism``) and those the
judge client would hit on every call (unknown provider, a bad
``generationConfig``, ``top_logprobs`` without ``logprobs``, an API key with a
line break, a base URL that is not http(s) or holds ``user:password@``
credentials), found once by ``agenteval
validate`` / before a run starts: a configuration error, never a retried call.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from agenteval.evaluators.base import ConfigIssue
from agenteval.judge.provider import judge_providers, provider_spec, providers_with
from agenteval.schema.metric import EvalMetric, JudgeModel

LLM_JUDGE = "criterion.llmJudge"
JUDGE_MODEL = f"{LLM_JUDGE}.judgeModel"
_UNSET_VAR_HINT = "an unset ${VAR} expands to an empty string"

# An upper bound: each sample is a judge call per turn (cost, memory).
MAX_NUM_SAMPLES = 100


def check_judge_config(metric: EvalMetric) -> list[ConfigIssue]:
    """Every judge-config problem of ``metric`` that makes its judge calls impossible."""
    llm_judge = metric.criterion.llm_judge if metric.criterion else None
    if llm_judge is None:
        return [
            ConfigIssue(
                LLM_JUDGE,
                "missing required fields in eval metric",
                f"{metric.evaluator} needs criterion.llmJudge with a judgeModel",
            )
        ]
    issues: list[ConfigIssue] = []
    if llm_judge.sample_parallelism is not None and llm_judge.sample_parallelism < 0:
        issues.append(
            ConfigIssue(f"{LLM_JUDGE}.sampleParallelism", "sample parallelism must be non-negative")
        )
    model = llm_judge.judge_model
    if model is None:
        issues.append(
            ConfigIssue(
                JUDGE_MODEL,
                "missing required fields in eval metric",
                "set providerName, modelName and baseURL of the judge model",
            )
        )
        return issues
    if model.num_samples is not None and model.num_samples <= 0:
        issues.append(
            ConfigIssue(f"{JUDGE_MODEL}.numSamples", "num samples must be greater than 0")
        )
    elif model.num_samples is not None and model.num_samples > MAX_NUM_SAMPLES:
        issues.append(
            ConfigIssue(
                f"{JUDGE_MODEL}.numSamples",
                f"num samples must be at most {MAX_NUM_SAMPLES}, got {model.num_samples}",
                "each sample is one judge call per turn",
            )
        )
    if not model.provider_name:
        issues.append(
            ConfigIssue(f"{JUDGE_MODEL}.providerName", "providerName is empty", _UNSET_VAR_HINT)
        )
    elif provider_spec(model.provider_name) is None:
        known = ", ".join(repr(name) for name in judge_providers.names())
        issues.append(
            ConfigIssue(
                f"{JUDGE_MODEL}.providerName",
                f"unknown provider: {model.provider_name}",
                f"the judge providers are {known} (a plugin may add others)",
            )
        )
    if not model.model_name:
        issues.append(
            ConfigIssue(f"{JUDGE_MODEL}.modelName", "modelName is empty", _UNSET_VAR_HINT)
        )
    issues.extend(_generation_issues(model))
    issues.extend(_connection_issues(model))
    if not issues:
        issues.extend(_backend_issues(model))
    return issues


def _backend_issues(model: JudgeModel) -> list[ConfigIssue]:
    """What the provider's backend refuses on every call (hunyuan: an apiKey that is not
    ``SecretId:SecretKey``), found by making it as a run would, without a connection."""
    from agenteval.judge import JudgeConfigError, resolve_settings

    spec = provider_spec(model.provider_name)
    if spec is None:
        return []
    try:
        spec.backend(resolve_settings(model), None)
    except JudgeConfigError as exc:
        return [ConfigIssue(JUDGE_MODEL, str(exc))]
    except Exception:
        # A plugin's factory may need a connection to be made: the run reports what it raises.
        return []
    return []


def _connection_issues(model: JudgeModel) -> list[ConfigIssue]:
    """A base URL and API key the judge can never use: refused up front, never retried.

    Checked on the values a call would use (after ``${VAR}`` expansion and the
    provider's defaults); the key itself is never part of a message, nor are the
    base URL's secrets (``judge.url_secrets``).
    """
    from agenteval.inputs.url_secrets import credentials_issue, shown_base_url
    from agenteval.judge import JudgeConfigError, resolve_settings

    try:
        settings = resolve_settings(model)
    except JudgeConfigError:
        return []  # reported by the generationConfig check
    issues: list[ConfigIssue] = []
    key = settings.api_key.reveal()
    if any(ch in key for ch in "\r\n") or not key.isascii() or not key.isprintable():
        source = "apiKey" if model.api_key else "the API key variable"
        issues.append(
            ConfigIssue(
                f"{JUDGE_MODEL}.apiKey",
                "the API key holds a line break, a control or a non-ASCII character, "
                "which no HTTP header can carry",
                f"check {source} (a stray newline from a secret file is common)",
            )
        )
    url = settings.base_url
    if not url and settings.provider != "openai":
        return issues  # the provider's own default endpoint
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that does not parse
    except ValueError as exc:
        issues.append(ConfigIssue(f"{JUDGE_MODEL}.baseURL", f"base URL does not parse: {exc}"))
        return issues
    shown = shown_base_url(url, (s.reveal() for s in settings.url_secrets)).shown
    if parts.scheme not in ("http", "https") or not parts.hostname:
        issues.append(
            ConfigIssue(
                f"{JUDGE_MODEL}.baseURL",
                f"base URL {shown!r} is not an http(s) URL with a host",
                "e.g. https://api.openai.com/v1",
            )
        )
    credentials = credentials_issue(url)
    if credentials:
        source = "baseURL" if model.base_url else "the base URL variable"
        issues.append(
            ConfigIssue(
                f"{JUDGE_MODEL}.baseURL",
                credentials,
                f'remove them from {source}; the key goes in "apiKey" (e.g. '
                '"${JUDGE_MODEL_API_KEY}"), which is never written',
            )
        )
    return issues


def _generation_issues(model: JudgeModel) -> list[ConfigIssue]:
    from agenteval.judge import GenerationConfig, JudgeConfigError

    where = f"{JUDGE_MODEL}.generationConfig"
    try:
        generation = GenerationConfig.from_json(model.generation_config)
    except JudgeConfigError as exc:
        # The message starts with "generationConfig.<key>: ..."; point at that key.
        text = str(exc)
        head, sep, rest = text.partition(": ")
        if sep and head.startswith("generationConfig."):
            return [ConfigIssue(f"{JUDGE_MODEL}.{head}", rest)]
        return [ConfigIssue(where, text)]
    if generation.top_logprobs is not None and generation.logprobs is not True:
        return [
            ConfigIssue(
                f"{where}.top_logprobs",
                "top_logprobs requires logprobs to be true",
                'add "logprobs": true',
            )
        ]
    return []


def capability_issue(metric: EvalMetric, capability: str) -> ConfigIssue | None:
    """An issue when ``metric``'s judge provider cannot do ``capability``, else ``None``.

    Built-in and plugin providers alike: each declares its capabilities in its registry entry.
    """
    from agenteval.judge.provider import missing_capability

    llm_judge = metric.criterion.llm_judge if metric.criterion else None
    model = llm_judge.judge_model if llm_judge else None
    if model is None or not missing_capability(model.provider_name, capability):
        return None
    able = ", ".join(providers_with(capability))
    return ConfigIssue(
        f"{JUDGE_MODEL}.providerName",
        f"metric {metric.metric_name!r} ({metric.evaluator}) needs {capability}, "
        f"which judge provider {model.provider_name!r} cannot return",
        f"judge it with a provider that has {capability}: {able}",
    )
