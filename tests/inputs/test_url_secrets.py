"""Secrets in a judge base URL: found once, shown and written as ***, credentials refused."""

from __future__ import annotations

import json

import pytest

from agenteval.inputs.loading import parse_metrics
from agenteval.inputs.url_secrets import (
    credentials_issue,
    expand_base_url,
    shown_base_url,
)
from agenteval.judge import resolve_settings
from agenteval.schema.base import dump
from agenteval.schema.metric import JudgeModel

ENV = {"KEY": "k3y-value-1234", "TOKEN": "t0ken/with space", "HOST": "judge.example", "V": "v1"}


@pytest.mark.parametrize(
    ("template", "shown", "secrets"),
    [
        # Expanded into the query or the path: secret; into the host: not.
        ("https://h/v1?key=${KEY}", "https://h/v1?key=***", ("k3y-value-1234",)),
        ("https://h/${V}/${KEY}/x", "https://h/***/***/x", ("k3y-value-1234", "v1")),
        ("https://${HOST}/v1", "https://judge.example/v1", ()),
        # A credential-named query value is secret even when written literally.
        ("https://h/v1?api-version=2&x-api-key=abc&sig=s", "https://h/v1?api-version=2&x-api-key=***&sig=***", ("s", "abc")),
        ("https://h/v1?access_token=${KEY}#frag", "https://h/v1?access_token=***#frag", ("k3y-value-1234",)),
        ("https://h/v1", "https://h/v1", ()),
        ("", "", ()),
    ],
)  # fmt: skip
def test_secrets_are_found_past_the_host(template: str, shown: str, secrets: tuple[str]) -> None:
    url = expand_base_url(template, ENV)
    assert (url.shown, url.secrets) == (shown, secrets)


def test_a_percent_encoded_secret_is_hidden_decoded_too() -> None:
    url = expand_base_url("https://h/v1?token=${T}", {"T": "a%2Fb"})
    assert url.shown == "https://h/v1?token=***"
    assert url.secrets == ("a%2Fb", "a/b")


def test_a_whole_url_from_one_variable_keeps_its_host_and_hides_its_query_key() -> None:
    url = expand_base_url("${BASE}", {"BASE": "https://h/v1beta?key=AIzaSy0123"})
    assert (url.shown, url.secrets) == ("https://h/v1beta?key=***", ("AIzaSy0123",))


def test_known_secrets_are_hidden_only_past_the_host() -> None:
    assert shown_base_url("http://10.0.0.1:10/1/x", ["1"]).shown == "http://10.0.0.1:10/***/x"


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("https://user:pw@h/v1", True),
        ("https://token@h/v1", True),
        ("https://h/v1?user=a@b", False),
        ("https://h/v1", False),
    ],
)
def test_credentials_in_the_authority_are_refused(url: str, refused: bool) -> None:
    assert bool(credentials_issue(url)) is refused


def test_a_metric_file_writes_and_names_its_base_url_with_the_secrets_hidden() -> None:
    judge = {"providerName": "openai", "modelName": "m", "baseURL": "https://h/${V}?key=${KEY}"}
    text = json.dumps([{"metricName": "x", "criterion": {"llmJudge": {"judgeModel": judge}}}])
    (metric,), problems = parse_metrics(text, "m.json", ENV)
    assert problems == []
    assert metric.criterion is not None and metric.criterion.llm_judge is not None
    model = metric.criterion.llm_judge.judge_model
    assert model is not None
    assert model.base_url == "https://h/v1?key=k3y-value-1234"  # what a call uses
    assert dump(metric)["criterion"]["llmJudge"]["judgeModel"]["baseURL"] == "https://h/***?key=***"
    settings = resolve_settings(model, {})
    assert settings.endpoint == "https://h/v1?key=k3y-value-1234/chat/completions"
    assert settings.describe() == "openai judge model 'm' at https://h/***?key=***/chat/completions"
    assert sorted(settings.secrets()) == ["k3y-value-1234", "v1"]
    assert "k3y" not in repr(settings)


def test_a_base_url_from_the_environment_has_its_query_key_hidden_too() -> None:
    model = JudgeModel(provider_name="openai", model_name="m")
    settings = resolve_settings(model, {"OPENAI_BASE_URL": "https://h/v1?key=from-env-0001"})
    assert settings.describe() == "openai judge model 'm' at https://h/v1?key=***/chat/completions"
    assert settings.secrets() == ["from-env-0001"]


def test_a_base_url_changed_after_reading_is_written_as_it_now_is() -> None:
    model = JudgeModel(base_url="https://h/v1?key=abc")
    model.hide_url_secrets(("abc",), "https://h/v1?key=***")
    assert dump(model)["baseURL"] == "https://h/v1?key=***"
    model.base_url = "https://other/v1"
    assert dump(model)["baseURL"] == "https://other/v1"
