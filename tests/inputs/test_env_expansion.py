"""Go os.ExpandEnv semantics for the five judgeModel fields (formats.md §3.12, llm §3.2)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agenteval.inputs.env_expansion import JUDGE_ENV_FIELDS, expand_env, expand_judge_model
from agenteval.schema.base import dump
from agenteval.schema.metric import Criterion, JudgeModel

ENV = {"K": "secret", "NAME_1": "n1", "HOME": "/home/u", "1": "one", "*": "star"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("prefix-${K}-suffix", "prefix-secret-suffix"),
        ("$K", "secret"),
        ("${K}", "secret"),
        ("$NAME_1/x", "n1/x"),
        ("${NAME_1}x", "n1x"),
        # The name is the longest run of [A-Za-z0-9_]: "$Kx" looks up "Kx".
        ("$Kx", ""),
        ("${UNSET}", ""),
        ("a${UNSET}b", "ab"),
        ("$UNSET", ""),
        # A "$" that cannot start a name stays literal.
        ("$ x", "$ x"),
        ("cost: 5$", "cost: 5$"),
        ("$", "$"),
        ("$.path", "$.path"),
        ("$é", "$é"),
        # ${} vanishes; an unterminated ${ loses "${" only.
        ("a${}b", "ab"),
        ("${ABC", "ABC"),
        ("x${K", "xK"),
        # Single-character shell specials are variables too (usually unset).
        ("a$2b", "ab"),
        ("a$1b", "aoneb"),
        ("${1}", "one"),
        ("$*", "star"),
        ("${*}", "star"),
        ("$#$@$!$?$-$0", ""),
        ("$$", ""),
        ("$${K}", "{K}"),
        # Inside braces everything up to "}" is the name.
        ("${A B}", ""),
        ("${K}${K}", "secretsecret"),
        ("no dollars", "no dollars"),
        ("", ""),
    ],
)
def test_expand_env_matches_go_semantics(text: str, expected: str) -> None:
    assert expand_env(text, ENV) == expected


def test_expand_env_reads_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTEVAL_TEST_VAR", "from-env")
    monkeypatch.delenv("AGENTEVAL_TEST_UNSET", raising=False)
    assert expand_env("${AGENTEVAL_TEST_VAR}:$AGENTEVAL_TEST_UNSET:") == "from-env::"


def test_five_fields_are_expanded_and_nothing_else() -> None:
    # llm-evaluators.md §11 scenario 58.
    environ = {
        "TEST_JUDGE_PROVIDER_NAME": "env-provider",
        "TEST_JUDGE_MODEL_NAME": "env-model",
        "TEST_JUDGE_VARIANT": "deepseek",
        "TEST_JUDGE_API_KEY": "secret",
        "TEST_JUDGE_BASE_URL": "https://example.com",
        "TEST_JUDGE_API_KEY_PARTIAL": "secret",
    }
    model = JudgeModel.model_validate(
        {
            "providerName": "${TEST_JUDGE_PROVIDER_NAME}",
            "modelName": "${TEST_JUDGE_MODEL_NAME}",
            "variant": "${TEST_JUDGE_VARIANT}",
            "baseURL": "${TEST_JUDGE_BASE_URL}",
            "apiKey": "prefix-${TEST_JUDGE_API_KEY_PARTIAL}-suffix",
            "extraFields": {"user": "${TEST_JUDGE_MODEL_NAME}"},
        }
    )
    expanded = expand_judge_model(model, environ)
    assert expanded.provider_name == "env-provider"
    assert expanded.model_name == "env-model"
    assert expanded.variant == "deepseek"
    assert expanded.base_url == "https://example.com"
    assert expanded.api_key == "prefix-secret-suffix"
    assert expanded.extra_fields == {"user": "${TEST_JUDGE_MODEL_NAME}"}
    assert model.api_key == "prefix-${TEST_JUDGE_API_KEY_PARTIAL}-suffix"
    assert JUDGE_ENV_FIELDS == ("providerName", "modelName", "variant", "baseURL", "apiKey")


def test_api_key_is_never_serialised() -> None:
    criterion = Criterion.model_validate(
        {"llmJudge": {"judgeModel": {"providerName": "openai", "apiKey": "secret"}}}
    )
    text = json.dumps(dump(criterion))
    assert "apiKey" not in text
    assert "secret" not in text
    assert '"providerName": "openai"' in text


def test_non_string_provider_name_is_a_decode_error() -> None:
    with pytest.raises(ValidationError):
        JudgeModel.model_validate({"providerName": 123})
