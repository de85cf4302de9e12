"""Strict reading: misspelt keys are located errors with the key meant; --lenient makes them warnings.

The misspellings of issue 12: ``tool_calls`` for ``tools`` on both sides of a
case (the trajectory would compare 0 with 0 calls and pass), ``threshhold``
(a wrong answer would pass), ``numSamples``/``generationConfig`` one level too
high under ``llmJudge``, and ``evalSetID``.  Issue 21 item 1: such near misses
are errors by default (exit 2, also under ``--quiet``); ``--lenient`` reads
them as warnings; a key with no close match stays a warning unless ``--strict``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli_process import run_cli


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120, env=env)


def write_misspelt(tmp_path: Path) -> tuple[Path, Path]:
    turn = {
        "userContent": {"role": "user", "content": "book a flight"},
        "finalResponse": {"role": "assistant", "content": "booked"},
        "tool_calls": [{"name": "book", "arguments": {"to": "Oslo"}}],
    }
    evalset = tmp_path / "trip.evalset.json"
    evalset.write_text(
        json.dumps(
            {
                "evalSetID": "trip",
                "evalCases": [
                    {
                        "evalId": "book",
                        "evalMode": "trace",
                        "sessionInput": {"appName": "a", "userId": "u"},
                        "conversation": [turn],
                        "actualConversation": [turn],
                    }
                ],
            }
        )
    )
    metrics = tmp_path / "trip.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {"metricName": "tool_trajectory_avg_score", "threshhold": 1.0},
                {
                    "metricName": "final_response_avg_score",
                    "threshold": 1,
                    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
                },
            ]
        )
    )
    return evalset, metrics


EXPECTED = [
    "{evalset}: evalSetID: 'evalSetID' is not a field of EvalSet (did you mean 'evalSetId'?)",
    "{evalset}: evalCases[0].conversation[0].tool_calls: 'tool_calls' is not a field of "
    "Invocation (did you mean 'tools'?)",
    "{evalset}: evalCases[0].actualConversation[0].tool_calls: 'tool_calls' is not a field of "
    "Invocation (did you mean 'tools'?)",
    "{metrics}: [0].threshhold: 'threshhold' is not a field of EvalMetric "
    "(did you mean 'threshold'?)",
]


@pytest.mark.parametrize("command", ["run", "validate"])
def test_misspellings_are_located_errors_with_the_key_meant(tmp_path: Path, command: str) -> None:
    evalset, metrics = write_misspelt(tmp_path)
    extra = ["--quiet"] if command == "run" else []
    proc = cli(command, "--evalset", str(evalset), "--metrics", str(metrics), *extra)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for line in EXPECTED:
        assert f"error: {line.format(evalset=evalset, metrics=metrics)}" in proc.stderr
    assert "4 problems found · 1 warning." in proc.stderr  # threshhold: no threshold
    assert proc.stdout == ""  # nothing was scored


def write_wrong_answer(tmp_path: Path) -> Path:
    """An eval set of one case whose answer (Rome) is wrong (Paris)."""
    evalset = tmp_path / "qa.evalset.json"
    turn = {"userContent": {"role": "user", "content": "capital of France?"}}
    evalset.write_text(
        json.dumps(
            {
                "evalSetId": "qa",
                "evalCases": [
                    {
                        "evalId": "paris",
                        "evalMode": "trace",
                        "conversation": [
                            {**turn, "finalResponse": {"role": "assistant", "content": "Paris"}}
                        ],
                        "actualConversation": [
                            {**turn, "finalResponse": {"role": "assistant", "content": "Rome"}}
                        ],
                        "sessionInput": {"appName": "a", "userId": "u"},
                    }
                ],
            }
        )
    )
    return evalset


def test_a_misspelt_threshold_no_longer_passes_a_wrong_answer(tmp_path: Path) -> None:
    """Issue 21 item 1: ``threshhold`` on a wrong answer was PASSED, exit 0, silent under --quiet."""
    evalset = write_wrong_answer(tmp_path)
    metrics = tmp_path / "qa.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "response_match_score", "threshhold": 0.8}]))
    args = ["run", "--evalset", str(evalset), "--metrics", str(metrics), "--quiet"]
    proc = cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"error: {metrics}: [0].threshhold: 'threshhold' is not a field of EvalMetric "
        "(did you mean 'threshold'?)"
    ) in proc.stderr
    assert "PASSED" not in proc.stdout


@pytest.mark.parametrize("command", ["run", "validate"])
def test_lenient_reads_near_misses_as_warnings(tmp_path: Path, command: str) -> None:
    evalset, metrics = write_misspelt(tmp_path)
    proc = cli(command, "--evalset", str(evalset), "--metrics", str(metrics), "--lenient")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for line in EXPECTED:
        assert f"warning: {line.format(evalset=evalset, metrics=metrics)}" in proc.stderr
    assert "error:" not in proc.stderr


def write_far_key(tmp_path: Path) -> tuple[Path, Path]:
    """An eval set whose only unknown key (``owner``) is close to no key of the format."""
    evalset, metrics = write_misspelt(tmp_path)
    data = json.loads(evalset.read_text())
    data["evalSetId"] = data.pop("evalSetID")
    data["owner"] = "me"
    turn = data["evalCases"][0]["conversation"][0]
    turn["tools"] = turn.pop("tool_calls")
    data["evalCases"][0]["actualConversation"] = [turn]
    evalset.write_text(json.dumps(data))
    metrics.write_text(json.dumps([{"metricName": "tool_trajectory_avg_score", "threshold": 1}]))
    return evalset, metrics


def test_a_key_with_no_close_match_stays_a_warning_and_an_error_under_strict(
    tmp_path: Path,
) -> None:
    evalset, metrics = write_far_key(tmp_path)
    line = f"{evalset}: owner: 'owner' is not a field of EvalSet (known: evalSetId, name,"
    proc = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"warning: {line}" in proc.stderr
    proc = cli("validate", "--evalset", str(evalset), "--metrics", str(metrics), "--strict")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"error: {line}" in proc.stderr


def test_lenient_and_strict_contradict_each_other(tmp_path: Path) -> None:
    evalset, metrics = write_misspelt(tmp_path)
    args = ["validate", "--evalset", str(evalset), "--metrics", str(metrics)]
    proc = cli(*args, "--strict", "--lenient")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(
        "error: --lenient: cannot be combined with --strict (or $AGENTEVAL_STRICT)\n"
    )


@pytest.mark.parametrize("how", ["flag", "env"])
def test_strict_makes_them_errors_exit_2(tmp_path: Path, how: str) -> None:
    evalset, metrics = write_misspelt(tmp_path)
    args = ["run", "--evalset", str(evalset), "--metrics", str(metrics)]
    env = dict(os.environ)
    if how == "flag":
        args.append("--strict")
    else:
        env["AGENTEVAL_STRICT"] = "1"
    proc = cli(*args, env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for line in EXPECTED:
        assert f"error: {line.format(evalset=evalset, metrics=metrics)}" in proc.stderr
    assert "4 problems found · 1 warning." in proc.stderr  # threshhold: no threshold
    assert proc.stdout == ""  # nothing was scored


def test_judge_keys_one_level_too_high_point_to_judge_model(tmp_path: Path) -> None:
    evalset, _ = write_misspelt(tmp_path)
    metrics = tmp_path / "judge.metrics.json"
    judge = {"providerName": "openai", "modelName": "m", "baseURL": "http://127.0.0.1:9/v1"}
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "llm_final_response",
                    "threshold": 1,
                    "criterion": {
                        "llmJudge": {
                            "judgeModel": judge,
                            "numSamples": 3,
                            "generationConfig": {"temperature": 0},
                        }
                    },
                }
            ]
        )
    )
    proc = cli("validate", "--evalset", str(evalset), "--metrics", str(metrics), "--strict")
    assert proc.returncode == 2
    where = f"{metrics}: [0].criterion.llmJudge"
    assert (
        f"error: {where}.numSamples: 'numSamples' is not a field of llmJudge "
        "(did you mean 'judgeModel.numSamples'?)"
    ) in proc.stderr
    assert (
        f"error: {where}.generationConfig: 'generationConfig' is not a field of llmJudge "
        "(did you mean 'judgeModel.generationConfig'?)"
    ) in proc.stderr


def test_agenteval_extras_and_plugin_criteria_are_known_keys(tmp_path: Path) -> None:
    """``criterion.gate`` is agenteval's own; shipped examples validate strictly."""
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "JUDGE_MODEL_NAME": "m",
        "JUDGE_MODEL_BASE_URL": "http://127.0.0.1:9/v1",
        "JUDGE_MODEL_API_KEY": "sk-test",
    }
    proc = cli(
        "validate",
        "--evalset", str(root / "evalsets" / "travel-assistant.evalset.json"),
        "--metrics", str(root / "metrics" / "judges" / "travel-assistant.metrics.json"),
        "--strict",
        env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "is not a field" not in proc.stderr


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_threshold_outside_the_score_range_is_a_located_error(
    tmp_path: Path, command: str
) -> None:
    """``threshold: 80`` on a 0..1 score validated and then failed every case."""
    evalset = write_wrong_answer(tmp_path)
    metrics = tmp_path / "qa.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "exact_match", "threshold": 80}]))
    proc = cli(command, "--evalset", str(evalset), "--metrics", str(metrics))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"error: {metrics}: [0].threshold: 80 is outside the scores of exact_match (0 to 1) "
        "(no score reaches it: every case fails; for 80% write 0.8)\n1 problem found.\n"
    )
    assert proc.stdout == ""


def test_a_metric_without_threshold_warns_that_it_always_passes(tmp_path: Path) -> None:
    evalset = write_wrong_answer(tmp_path)
    metrics = tmp_path / "qa.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "exact_match"}]))
    proc = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), "--quiet")
    # A missing threshold is 0, as in trpc-agent-go: the wrong answer passes, but not silently.
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        f"warning: {metrics}: [0].threshold: no threshold, so this metric always passes "
        "(a missing threshold is 0) (set one within 0 to 1)"
    ) in proc.stderr


def write_threshold_twice(tmp_path: Path) -> tuple[Path, Path]:
    """The wrong answer's suite, its threshold given twice: 1, then 0 (which passes it)."""
    evalset = write_wrong_answer(tmp_path)
    metrics = tmp_path / "qa.metrics.json"
    metrics.write_text(
        '[{"metricName": "final_response_avg_score", "threshold": 1, "threshold": 0,'
        ' "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}}}]'
    )
    return evalset, metrics


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_key_given_twice_is_said_even_quiet_and_an_error_under_strict(
    tmp_path: Path, command: str
) -> None:
    evalset, metrics = write_threshold_twice(tmp_path)
    line = (
        f'{metrics}: [0].threshold: key "threshold" given twice; the last value (0) is used'
        " (Go's encoding/json reads the last one too; remove the other)"
    )
    quiet = ["--quiet", "--output", str(tmp_path / "out")] if command == "run" else []
    proc = cli(command, "--evalset", str(evalset), *quiet)
    assert proc.returncode == 0, proc.stderr  # Go reads 0 too: the wrong answer passes
    assert f"warning: {line}" in proc.stderr
    strict = cli(command, "--strict", "--evalset", str(evalset), *quiet)
    assert strict.returncode == 2, strict.stderr
    assert f"error: {line}" in strict.stderr
