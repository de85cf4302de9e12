"""Resolution of judgeModel defaults (llm-evaluators.md §3.1, §3.3)."""

from __future__ import annotations

from typing import Any

import pytest

from agenteval.judge import GenerationConfig, JudgeConfigError, Secret, resolve_settings
from agenteval.judge.config import DEFAULT_GENERATION
from agenteval.judge.providers.openai import infer_variant
from agenteval.schema.metric import JudgeModel


def resolve(environ: dict[str, str] | None = None, **fields: Any) -> Any:
    data = {"providerName": "openai", "modelName": "m", **fields}
    return resolve_settings(JudgeModel.model_validate(data), environ=environ or {})


@pytest.mark.parametrize(
    ("base_url", "variant"),
    [
        ("https://api.deepseek.com", "deepseek"),
        ("https://API.DeepSeek.com/v1", "deepseek"),
        ("https://api.minimax.io/v1", "minimax"),
        ("https://api.minimaxi.com/v1", "minimax"),
        ("https://api.moonshot.ai/v1", "kimi"),
        ("https://api.moonshot.cn/v1", "kimi"),
        ("https://api.deepseek.com.evil.example/v1", "openai"),
        ("https://dashscope.aliyuncs.com/compatible-mode/v1", "openai"),
        ("http://127.0.0.1:8080/v1", "openai"),
        ("", "openai"),
        ("not a url", "openai"),
    ],
)
def test_variant_is_inferred_from_base_url_host(base_url: str, variant: str) -> None:
    assert infer_variant(base_url) == variant
    assert resolve(baseURL=base_url).variant == variant


def test_explicit_variant_wins_over_host() -> None:
    assert resolve(baseURL="https://api.deepseek.com", variant="qwen").variant == "qwen"


@pytest.mark.parametrize(
    ("variant", "base_url"),
    [
        ("deepseek", "https://api.deepseek.com"),
        ("qwen", "https://dashscope.aliyuncs.com/compatible-mode/v1"),
        ("minimax", "https://api.minimax.io/v1"),
        ("kimi", "https://api.moonshot.ai/v1"),
        ("openai", "https://api.openai.com/v1/"),
        ("glm", "https://api.openai.com/v1/"),
        ("hunyuan", "https://api.openai.com/v1/"),
    ],
)
def test_empty_base_url_uses_the_variant_default(variant: str, base_url: str) -> None:
    assert resolve(variant=variant).base_url == base_url


def test_empty_base_url_falls_back_to_openai_base_url_env() -> None:
    env = {"OPENAI_BASE_URL": "https://proxy.example/v1"}
    assert resolve(env).base_url == "https://proxy.example/v1"
    # A variant default comes before the environment.
    assert resolve(env, variant="deepseek").base_url == "https://api.deepseek.com"
    assert resolve(env, baseURL="https://given/v1").base_url == "https://given/v1"


@pytest.mark.parametrize(
    ("variant", "key_env"),
    [
        ("deepseek", "DEEPSEEK_API_KEY"),
        ("qwen", "DASHSCOPE_API_KEY"),
        ("minimax", "MINIMAX_API_KEY"),
        ("kimi", "MOONSHOT_API_KEY"),
    ],
)
def test_empty_api_key_uses_variant_env_then_openai_env(variant: str, key_env: str) -> None:
    both = {key_env: "variant-key", "OPENAI_API_KEY": "openai-key"}
    assert resolve(both, variant=variant).api_key.reveal() == "variant-key"
    only_openai = {"OPENAI_API_KEY": "openai-key"}
    assert resolve(only_openai, variant=variant).api_key.reveal() == "openai-key"
    assert resolve({key_env: ""}, variant=variant).api_key.reveal() == ""
    assert resolve(both, variant=variant, apiKey="given").api_key.reveal() == "given"


def test_openai_variant_reads_only_openai_api_key() -> None:
    env = {"DEEPSEEK_API_KEY": "ds", "OPENAI_API_KEY": "oa"}
    assert resolve(env).api_key.reveal() == "oa"


def test_endpoint_appends_chat_completions_to_a_slash_terminated_base() -> None:
    assert resolve(baseURL="http://h/v1").endpoint == "http://h/v1/chat/completions"
    assert resolve(baseURL="http://h/v1/").endpoint == "http://h/v1/chat/completions"
    assert resolve().endpoint == "https://api.openai.com/v1/chat/completions"


def test_generation_defaults_only_when_the_whole_object_is_absent() -> None:
    assert resolve().generation == GenerationConfig(max_tokens=2000, temperature=0.8, stream=False)
    assert resolve(generationConfig=None).generation == DEFAULT_GENERATION
    assert resolve(generationConfig={}).generation == GenerationConfig()
    partial = resolve(generationConfig={"temperature": 0}).generation
    assert partial == GenerationConfig(temperature=0.0)
    assert partial.max_tokens is None


def test_generation_config_decodes_every_key() -> None:
    gen = resolve(
        generationConfig={
            "max_tokens": 512,
            "temperature": 1,
            "top_p": 0.5,
            "stream": True,
            "stop": ["END", None],
            "presence_penalty": -0.5,
            "frequency_penalty": 0.25,
            "logprobs": True,
            "top_logprobs": 20,
            "reasoning_effort": "low",
            "thinking_enabled": False,
            "thinking_tokens": 128,
            "thinking_level": "high",
            "unknown_key": "ignored",
            "top_k": None,
        }
    ).generation
    assert gen == GenerationConfig(
        max_tokens=512,
        temperature=1.0,
        top_p=0.5,
        stream=True,
        stop=("END", ""),
        presence_penalty=-0.5,
        frequency_penalty=0.25,
        logprobs=True,
        top_logprobs=20,
        reasoning_effort="low",
        thinking_enabled=False,
        thinking_tokens=128,
        thinking_level="high",
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("max_tokens", 1.5),
        ("max_tokens", True),
        ("max_tokens", "100"),
        ("temperature", "0.5"),
        ("temperature", False),
        ("logprobs", 1),
        ("stop", "END"),
        ("stop", [1]),
        ("reasoning_effort", 3),
    ],
)
def test_generation_config_type_errors(key: str, value: Any) -> None:
    with pytest.raises(JudgeConfigError, match=f"generationConfig.{key}"):
        resolve(generationConfig={key: value})


def test_num_samples_defaults_to_one() -> None:
    assert resolve().num_samples == 1
    assert resolve(numSamples=3).num_samples == 3


def test_settings_never_show_the_key() -> None:
    settings = resolve(apiKey="sk-test-hidden-123")
    assert "sk-test-hidden-123" not in repr(settings)
    assert "sk-test-hidden-123" not in str(settings)
    assert "sk-test-hidden-123" not in f"{settings.api_key}"
    assert "sk-test-hidden-123" not in settings.describe()
    assert settings.api_key == Secret("sk-test-hidden-123")
    assert settings.api_key.reveal() == "sk-test-hidden-123"


def test_unknown_providers_keep_fields_as_given() -> None:
    model = JudgeModel.model_validate({"providerName": "mistral", "modelName": "c"})
    settings = resolve_settings(model, environ={"OPENAI_API_KEY": "k"})
    assert settings.provider == "mistral"
    assert settings.base_url == ""
    assert not settings.api_key
