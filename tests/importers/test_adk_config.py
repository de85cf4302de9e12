"""An ADK ``test_config.json`` is checked before its criteria become metrics.

Each of these used to be imported with exit 0: ``criterias`` and an empty ``criteria``
wrote an empty metric file, ``threshhold`` and a misspelt criterion name dropped that
metric with only a warning, ``"match_type": "IN_ORDR"`` became EXACT, ``ignore_arg``
compared the arguments after all, a threshold written as text (``"0.7"``, which ADK
reads as 0.7) dropped the metric, and a judge model of ``5`` or a rubric without text
was written into the metric file as it was.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.importers.adk_config import config_problems, threshold_of
from cli_process import run_cli


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def _import(tmp_path: Path, config: Any) -> tuple[subprocess.CompletedProcess[str], Path]:
    source = tmp_path / "s.json"
    turn = {"user_content": {"role": "user", "parts": [{"text": "hi"}]}}
    source.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [turn]}]}))  # fmt: skip
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    out = tmp_path / "out"
    return agenteval("import", "adk", str(source), "-o", str(out)), out


# (test_config.json, the error import adk prints about it)
# fmt: off
BAD_CONFIGS: list[tuple[Any, str]] = [
    ({"criterias": {"response_match_score": 0.7}}, "criterias: 'criterias' is not a key of test_config.json (did you mean 'criteria'?)"),
    ({"criteria": {}}, "criteria: no criteria: nothing would be scored (expected {criteria: {name: threshold}})"),
    ([1], "$: expected an object (expected {criteria: {name: threshold}})"),
    ({"criteria": {"tool_trajectory_avg_scor": 1.0}}, "criteria.tool_trajectory_avg_scor: 'tool_trajectory_avg_scor' is not an ADK criterion (did you mean 'tool_trajectory_avg_score'?)"),
    ({"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDR"}}}, "criteria.tool_trajectory_avg_score.match_type: unknown match_type 'IN_ORDR' (one of EXACT, IN_ORDER, ANY_ORDER)"),
    ({"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_arg": True}}}, "criteria.tool_trajectory_avg_score.ignore_arg: 'ignore_arg' is not a setting of tool_trajectory_avg_score (did you mean 'ignore_args'?)"),
    ({"criteria": {"response_match_score": "high"}}, "criteria.response_match_score: not a threshold number (give a number or {threshold: number, …})"),
    ({"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 0.5, "rubrics": [{"rubric_id": "a"}]}}}, "criteria.rubric_based_final_response_quality_v1.rubrics[0]: a rubric without text: the judge would be asked about nothing (expected {rubric_id, rubric_content: {text_property: TEXT}})"),
    ({"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"judge_model": 5}}}}, "criteria.final_response_match_v2.judge_model_options.judge_model: expected a model name"),
    ({"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 0}}}}, "criteria.final_response_match_v2.judge_model_options.num_samples: expected an integer >= 1"),
    ({"criteria": {"hallucinations_v1": {"threshold": 0.5, "judge_model_options": {"judge_modle": "x"}}}}, "criteria.hallucinations_v1.judge_model_options.judge_modle: 'judge_modle' is not a judge model option (did you mean 'judge_model'?)"),
]
# fmt: on


@pytest.mark.parametrize(("config", "error"), BAD_CONFIGS)
def test_a_bad_test_config_stops_the_import(tmp_path: Path, config: Any, error: str) -> None:
    done, out = _import(tmp_path, config)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {tmp_path / 'test_config.json'}: {error}" in done.stderr.splitlines()
    assert not out.exists()


def test_a_misspelt_threshold_names_the_key_meant(tmp_path: Path) -> None:
    done, _ = _import(tmp_path, {"criteria": {"response_match_score": {"threshhold": 0.7}}})
    config = tmp_path / "test_config.json"
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: {config}: criteria.response_match_score.threshhold: 'threshhold' is not a "
        "setting of response_match_score (did you mean 'threshold'?)",
        f"error: {config}: criteria.response_match_score.threshold: no threshold number "
        "(give a number or {threshold: number, …})",
        "2 problems found.",
    ]


def test_unknown_keys_and_unused_settings_are_warnings(tmp_path: Path) -> None:
    config = {
        # safety_v2: a later version of an ADK criterion, not a typo of safety_v1.
        "criteria": {"response_match_score": "0.7", "my_metric": 1, "safety_v2": 0.5},
        "user_simulator_config": {},
        "notes": "x",
    }
    done, out = _import(tmp_path, config)
    assert done.returncode == 0, done.stderr
    file = tmp_path / "test_config.json"
    assert done.stderr.splitlines() == [
        f"warning: {file}: user_simulator_config: ADK setting not imported",
        f"warning: {file}: notes: 'notes' is not a key of test_config.json; ignored",
        f"warning: {file}: criteria.my_metric: ADK criterion 'my_metric' has no agenteval "
        "equivalent; not imported",
        f"warning: {file}: criteria.safety_v2: ADK criterion 'safety_v2' has no agenteval "
        "equivalent; not imported",
    ]
    # "0.7" is read as ADK's pydantic reads it: the number 0.7.
    assert json.loads((out / "s.metrics.json").read_text()) == [
        {"metricName": "response_match_score", "threshold": 0.7}
    ]


def test_threshold_of_reads_what_adk_reads() -> None:
    assert threshold_of(0.5) == 0.5
    assert threshold_of(" 0.25 ") == 0.25
    assert threshold_of({"threshold": 1}) == 1.0
    assert threshold_of(True) is None
    assert threshold_of("nan") is None
    assert threshold_of({"threshhold": 1}) is None


def test_camel_case_keys_are_known() -> None:
    config = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "matchType": "IN_ORDER", "ignoreArgs": True}}}  # fmt: skip
    assert config_problems(config, "t.json") == ([], [])
