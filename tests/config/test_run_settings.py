"""run's keys read off the command: unknown keys with the likely key, types, paths, the schema."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import typer.main
from jsonschema import Draft202012Validator

from agenteval.cli import app
from agenteval.config.run_settings import (
    config_json_schema,
    config_json_schema_text,
    project_defaults,
    run_settings,
)
from agenteval.errors import ConfigError
from agenteval.inputs.unknown_keys import UnknownKey

ROOT = Path(__file__).resolve().parents[2]


def run_command() -> Any:
    return typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]


def test_keys_are_the_long_option_names_with_their_kinds() -> None:
    settings = run_settings(run_command())
    assert {"evalset", "metrics", "output", "concurrency", "traces-match", "store"} <= set(settings)
    assert "show-config" not in settings and "watch" not in settings
    assert "e" not in settings and "app-name" not in settings and "app" in settings
    assert settings["evalset"].multiple and settings["evalset"].path
    assert settings["output"].path and not settings["concurrency"].path
    assert settings["concurrency"].minimum == 1
    assert settings["json"].name == "json_file"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.agenteval]\n" + text)
    return path


def test_unknown_keys_name_the_key_meant_and_wrong_values_are_located(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'concurency = 4\ntraces_match = "session"\nfrobnicate = 1\nevalset = "x"\n'
        "num-runs = 0\nstrict = 1\n",
    )
    with pytest.raises(ConfigError) as caught:
        project_defaults(run_command(), tmp_path)
    lines = [str(p) for p in caught.value.problems]
    assert lines == [
        f"{path}: tool.agenteval.concurency: 'concurency' is not a setting of agenteval run "
        "(did you mean 'concurrency'?)",
        f"{path}: tool.agenteval.traces_match: 'traces_match' is not a setting of agenteval run "
        "(did you mean 'traces-match'?)",
        f"{path}: tool.agenteval.frobnicate: 'frobnicate' is not a setting of agenteval run "
        "(see `agenteval run --show-config`)",
        f"{path}: tool.agenteval.evalset: input should be a valid list "
        '(a repeatable option takes a list: ["…"])',
        f"{path}: tool.agenteval.num-runs: input should be greater than or equal to 1",
        f"{path}: tool.agenteval.strict: input should be a valid boolean",
    ]
    near = [p for p in caught.value.problems if isinstance(p, UnknownKey)]
    assert [p.meant for p in near] == ["concurrency", "traces-match", ""]


def test_a_number_setting_takes_a_number_not_a_boolean_or_a_string(tmp_path: Path) -> None:
    # `judge-timeout = true` ran with a 1-second judge timeout, and "30" was read as 30.
    for value in ("true", '"30"'):
        path = write(tmp_path, f"judge-timeout = {value}\n")
        with pytest.raises(ConfigError) as caught:
            project_defaults(run_command(), tmp_path)
        wrong = {str(p) for p in caught.value.problems}
        assert f"{path}: tool.agenteval.judge-timeout: input should be a valid number" in wrong
    write(tmp_path, "judge-timeout = 30\nrate-limit = 2.5\n")
    values = project_defaults(run_command(), tmp_path).values
    assert (values["judge_timeout"], values["rate_limit"]) == (30, 2.5)


def test_paths_are_relative_to_the_file_and_store_is_left_to_its_resolver(tmp_path: Path) -> None:
    write(
        tmp_path,
        'evalset = ["evalsets/", "/abs/x.evalset.json"]\nmetrics = "metrics"\n'
        'plugin = ["my_plugins", "plugins/extra.py"]\nresume = ["@latest"]\n'
        'output = "out"\nstore = "h.sqlite"\nconcurrency = 2\ntraces-match = "evalId"\n',
    )
    sub = tmp_path / "sub"
    sub.mkdir()
    defaults = project_defaults(run_command(), sub)
    assert defaults.values == {
        "evalset": ["../evalsets", "/abs/x.evalset.json"],
        "metrics": "../metrics",
        "plugin": ["my_plugins", "../plugins/extra.py"],
        "resume": ["@latest"],
        "output": "../out",
        "concurrency": 2,
        "traces_match": "evalId",
    }
    assert defaults.origin("output") == f"{tmp_path / 'pyproject.toml'}: tool.agenteval.output"


def test_no_project_file_no_defaults(tmp_path: Path) -> None:
    assert project_defaults(run_command(), tmp_path).values == {}


def test_the_schema_is_published_and_agrees_with_the_checks(tmp_path: Path) -> None:
    schema = config_json_schema(run_command())
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    good = {"evalset": ["e/"], "concurrency": 3, "strict": True, "rate-limit": 1.5}
    assert list(validator.iter_errors(good)) == []
    for bad in ({"concurency": 3}, {"evalset": "e/"}, {"concurrency": 0}, {"strict": 1}):
        assert list(validator.iter_errors(bad)), bad
    text = config_json_schema_text(run_command())
    assert json.loads(text) == schema
    assert (ROOT / "schemas" / "config.schema.json").read_text(encoding="utf-8") == text
    shipped = resources.files("agenteval").joinpath("data", "config.schema.json")
    assert shipped.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("value", "resolved"), [("base/r.json", "../base/r.json"), ("@latest", "@latest")])  # fmt: skip
def test_a_baseline_result_file_is_relative_to_the_file(
    tmp_path: Path, value: str, resolved: str
) -> None:
    """``--baseline`` takes a result file too: it was read from the working directory."""
    write(tmp_path, f'baseline = "{value}"\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    assert project_defaults(run_command(), sub).values == {"baseline": resolved}
