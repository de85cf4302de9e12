"""One home per setting: the CLI, api.Options and the judge read their defaults from settings."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from agenteval import api, settings
from agenteval.cli import app
from agenteval.judge import DEFAULT_CACHE_PATH, JudgeOptions
from agenteval.judge.limits import RetryPolicy


def run_option_defaults() -> dict[str, object]:
    """The default of every option of ``agenteval run``, by parameter name."""
    command = typer.main.get_command(app)
    run = command.commands["run"]  # type: ignore[attr-defined]
    return {param.name: param.default for param in run.params if param.name}


def test_judge_defaults_have_the_documented_values() -> None:
    assert (settings.JUDGE_CONCURRENCY, settings.JUDGE_RETRIES) == (16, 4)
    assert settings.JUDGE_TIMEOUT_SECONDS == 60.0
    assert (settings.JUDGE_BACKOFF_BASE_SECONDS, settings.JUDGE_BACKOFF_MAX_SECONDS) == (0.5, 8.0)


def test_cli_options_read_the_settings() -> None:
    defaults = run_option_defaults()
    assert defaults["concurrency"] == settings.JUDGE_CONCURRENCY
    assert defaults["judge_retries"] == settings.JUDGE_RETRIES
    assert defaults["judge_timeout"] == settings.JUDGE_TIMEOUT_SECONDS
    assert defaults["cache"] == settings.JUDGE_CACHE_PATH


def test_api_options_and_judge_options_read_the_settings() -> None:
    options = api.Options()
    assert options.concurrency == settings.JUDGE_CONCURRENCY
    assert options.judge_retries == settings.JUDGE_RETRIES
    assert options.judge_timeout == settings.JUDGE_TIMEOUT_SECONDS
    judge = JudgeOptions()
    assert (judge.concurrency, judge.retries, judge.timeout) == (16, 4, 60.0)
    assert (judge.backoff_base, judge.backoff_max) == (0.5, 8.0)
    assert RetryPolicy() == judge.retry_policy
    assert RetryPolicy().retry_after_max == settings.JUDGE_RETRY_AFTER_MAX_SECONDS
    assert Path(settings.JUDGE_CACHE_PATH) == DEFAULT_CACHE_PATH


def test_the_cache_variable_moves_the_api_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.JUDGE_CACHE_ENV, "/tmp/elsewhere.sqlite")
    assert api.Options().cache == "/tmp/elsewhere.sqlite"
    monkeypatch.delenv(settings.JUDGE_CACHE_ENV)
    assert api.Options().cache == settings.JUDGE_CACHE_PATH
