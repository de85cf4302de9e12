"""Acceptance: `validate` and `run` report every problem of broken files, exit 2, no traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_process import run_cli

GOOD_CASE = {
    "evalId": "ok",
    "evalMode": "trace",
    "actualConversation": [
        {
            "userContent": {"role": "user", "content": "hi"},
            "finalResponse": {"role": "assistant", "content": "hello"},
        }
    ],
    "conversation": [
        {
            "userContent": {"role": "user", "content": "hi"},
            "finalResponse": {"role": "assistant", "content": "hel(lo"},
        }
    ],
    "sessionInput": {"userId": "u"},
}


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


@pytest.fixture()
def broken_dir(tmp_path: Path) -> Path:
    """A directory with one file per kind of breakage."""
    d = tmp_path / "broken"
    d.mkdir()
    # truncated JSON
    _write(d / "truncated.evalset.json", '{"evalSetId": "truncated", "evalCases": [{"evalId": "a"')
    _write(d / "truncated.metrics.json", "[]")
    # wrong types, unknown evalMode, duplicate evalId
    _write(
        d / "types.evalset.json",
        {
            "evalSetId": "types",
            "evalCases": [
                {"evalId": 7, "sessionInput": {}},
                {"evalId": "dup", "evalMode": "replay", "sessionInput": {}},
                {"evalId": "dup", "sessionInput": {}},
            ],
        },
    )
    _write(
        d / "types.metrics.json", [{"metricName": "tool_trajectory_avg_score", "threshold": "high"}]
    )
    # unknown metric name, unknown matchStrategy, bad regex
    _write(d / "metrics.evalset.json", {"evalSetId": "metrics", "evalCases": [GOOD_CASE]})
    _write(
        d / "metrics.metrics.json",
        [
            {"metricName": "tool_trajectory_avg_scor", "threshold": 1},
            {
                "metricName": "strategy",
                "evaluatorName": "final_response_avg_score",
                "criterion": {"finalResponse": {"text": {"matchStrategy": "fuzzy"}}},
            },
            {
                "metricName": "pattern",
                "evaluatorName": "final_response_avg_score",
                "criterion": {"finalResponse": {"text": {"matchStrategy": "regex"}}},
            },
        ],
    )
    # eval set whose metric file is missing on purpose is handled by --metrics below
    return d


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120)


EXPECTED = [
    ("truncated.evalset.json", "invalid JSON"),
    ("types.evalset.json: evalCases[0].evalId", "expected a string, got a number"),
    ("types.evalset.json: evalCases[1].evalMode", "unknown evalMode 'replay'"),
    ("types.evalset.json: evalCases[2].evalId", "duplicate evalId 'dup'"),
    ("types.metrics.json: [0].threshold", "expected a number, got a string"),
    ("metrics.metrics.json: [0].metricName", "unknown evaluator 'tool_trajectory_avg_scor'"),
    (
        "metrics.metrics.json: [1].criterion.finalResponse.text.matchStrategy",
        "unknown matchStrategy 'fuzzy'",
    ),
    ("metrics.evalset.json: evalCases[0].conversation[0].finalResponse.content", "invalid regex"),
]


@pytest.mark.parametrize("command", ["validate", "run"])
def test_every_problem_is_reported(broken_dir: Path, command: str) -> None:
    """Both commands print each problem once with file and JSON path, exit 2, no traceback."""
    result = _run(
        command, "--evalset", str(broken_dir), "--evalset", str(broken_dir / "missing.evalset.json")
    )
    assert result.returncode == 2, result.stdout + result.stderr
    err = result.stderr
    assert "Traceback" not in err and "Traceback" not in result.stdout
    for where, what in EXPECTED:
        lines = [line for line in err.splitlines() if where in line and what in line]
        assert lines, f"missing problem {where!r} / {what!r} in:\n{err}"
    assert any(
        "missing.evalset.json" in line and "file not found" in line for line in err.splitlines()
    )
    assert "did you mean 'tool_trajectory_avg_score'" in err
    assert "problems found" in err


def test_missing_metrics_file_is_an_error_when_named(tmp_path: Path) -> None:
    """An explicit --metrics path that does not exist is a problem (not silently zero metrics)."""
    evalset = _write(tmp_path / "x.evalset.json", {"evalSetId": "x", "evalCases": [GOOD_CASE]})
    result = _run(
        "validate", "--evalset", str(evalset), "--metrics", str(tmp_path / "nope.metrics.json")
    )
    assert result.returncode == 2
    assert "nope.metrics.json: file not found" in result.stderr


def test_valid_files_pass_validation(tmp_path: Path) -> None:
    """A correct eval set and metric file validate with exit 0."""
    evalset = _write(tmp_path / "x.evalset.json", {"evalSetId": "x", "evalCases": [GOOD_CASE]})
    _write(
        tmp_path / "x.metrics.json", [{"metricName": "tool_trajectory_avg_score", "threshold": 1}]
    )
    result = _run("validate", "--evalset", str(evalset))
    assert result.returncode == 0, result.stderr
    assert "1 case(s)" in result.stdout
