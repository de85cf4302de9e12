"""agenteval.api.option_numbers: float options are finite and at least their minimum."""

from __future__ import annotations

import math

import pytest
from pydantic_core import PydanticCustomError

from agenteval import api
from agenteval.api.option_numbers import finite_at_least, non_finite_options
from agenteval.errors import ConfigError


def test_finite_at_least_parses_and_refuses() -> None:
    parse = finite_at_least(0.001)
    assert parse("2.5") == 2.5
    assert parse(60.0) == 60.0  # typer hands the default over as a float
    refused = {
        "inf": "must be a finite number, got inf",
        "-Infinity": "must be a finite number, got -Infinity",
        "nan": "must be a finite number, got nan",
        "1e999": "must be a finite number, got 1e999",
        "0": "must be at least 0.001, got 0",
        "ten": "'ten' is not a number",
    }
    for text, message in refused.items():
        with pytest.raises(PydanticCustomError) as caught:
            parse(text)
        assert caught.value.message() == message


def test_api_options_that_are_not_finite_are_config_errors() -> None:
    assert non_finite_options(a=1.0, b=None) == []
    options = api.Options(judge_timeout=math.inf, rate_limit=math.nan)
    with pytest.raises(ConfigError) as caught:
        api.prepare([], options)
    assert str(caught.value).splitlines() == [
        "Options.judge_timeout: must be a finite number, got inf",
        "Options.rate_limit: must be a finite number, got nan",
    ]
