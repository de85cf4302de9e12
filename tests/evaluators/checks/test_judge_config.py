"""Judge settings that can never work are config issues, found without a judge call."""

from __future__ import annotations

from typing import Any

from agenteval.evaluators.checks.judge_config import JUDGE_MODEL, check_judge_config
from agenteval.schema.metric import EvalMetric


def metric(**model: Any) -> EvalMetric:
    judge = {"providerName": "openai", "modelName": "m", "baseURL": "http://127.0.0.1:9/v1"}
    judge.update(model)
    return EvalMetric.model_validate(
        {"metricName": "llm_final_response", "criterion": {"llmJudge": {"judgeModel": judge}}}
    )


def issues(**model: Any) -> list[tuple[str, str]]:
    return [(i.path, i.message) for i in check_judge_config(metric(**model))]


def test_a_working_config_has_no_issue() -> None:
    assert issues(apiKey="sk-fine", numSamples=100) == []
    assert issues(baseURL="https://api.example.com/v1") == []


def test_api_keys_no_header_can_carry() -> None:
    for key in ("sk-a\nb", "sk-a\rb", "sk-ключ", "sk-\x00"):
        found = check_judge_config(metric(apiKey=key))
        assert [i.path for i in found] == [f"{JUDGE_MODEL}.apiKey"]
        assert key not in f"{found[0].message} {found[0].hint}"


def test_base_urls_that_are_not_http_or_do_not_parse() -> None:
    assert issues(baseURL="ftp://host/v1") == [
        (f"{JUDGE_MODEL}.baseURL", "base URL 'ftp://host/v1' is not an http(s) URL with a host")
    ]
    assert issues(baseURL="http:///v1")[0][0] == f"{JUDGE_MODEL}.baseURL"
    ((path, message),) = issues(baseURL="http://h:70000/v1")
    assert (path, message.startswith("base URL does not parse")) == (f"{JUDGE_MODEL}.baseURL", True)


def test_num_samples_bounds() -> None:
    assert issues(numSamples=0) == [
        (f"{JUDGE_MODEL}.numSamples", "num samples must be greater than 0")
    ]
    assert issues(numSamples=10**12) == [
        (f"{JUDGE_MODEL}.numSamples", "num samples must be at most 100, got 1000000000000")
    ]


def test_an_api_key_the_provider_refuses_is_an_issue_before_any_call() -> None:
    # Found only when a case ran, it failed every case (exit 1) instead of a config error.
    secret = "only-one-part-of-the-key"
    assert issues(providerName="hunyuan", apiKey=secret) == [
        (
            JUDGE_MODEL,
            "the apiKey of hunyuan judge model 'm' at http://127.0.0.1:9/v1 must be "
            "'SecretId:SecretKey' (e.g. \"${HUNYUAN_SECRET_ID}:${HUNYUAN_SECRET_KEY}\")",
        )
    ]
    assert issues(providerName="hunyuan", apiKey="AKIDid:secret-key") == []
