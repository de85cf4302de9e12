"""The pre-commit hook: its entry run on the changed files the way pre-commit runs it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agenteval.integrations.pre_commit import check_files

ROOT = Path(__file__).resolve().parents[2]
(HOOK,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def run_hook(project: Path, changed: list[str]) -> subprocess.CompletedProcess[str]:
    """pre-commit's way: the files matching ``files`` (and ``types: [json]``), one process."""
    pattern = re.compile(HOOK["files"])
    assert HOOK["types"] == ["json"] and HOOK["require_serial"] is True
    files = [f for f in changed if pattern.search(f) and f.endswith(".json")]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTEVAL_", "PYTEST_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        [*shlex.split(HOOK["entry"]), *files],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=project,
        env=env,
    )


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for name in ("evalsets", "metrics"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "agenteval.toml").write_text('evalset = ["evalsets/"]\nmetrics = "metrics/"\n')
    return tmp_path


def test_changed_eval_sets_and_metric_files_are_validated_with_the_project_settings(
    project: Path,
) -> None:
    proc = run_hook(
        project,
        ["README.md", "evalsets/help-center.evalset.json", "metrics/order-api.metrics.json"],
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The eval set with its metric file from the project file; the metric file with its eval set.
    assert proc.stdout.splitlines() == [
        "OK: 1 eval set(s), 3 case(s), 2 metric(s) valid.",
        "OK: 1 eval set(s), 3 case(s), 2 metric(s) valid.",
    ]
    assert proc.stderr == ""


def test_a_misspelt_key_fails_the_commit_with_its_location(project: Path) -> None:
    metrics = project / "metrics" / "order-api.metrics.json"
    metrics.write_text(metrics.read_text().replace('"threshold"', '"threshhold"', 1))
    proc = run_hook(project, ["metrics/order-api.metrics.json", "notes.txt"])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "error: metrics/order-api.metrics.json: [0].threshhold: 'threshhold' is not a field of "
        "EvalMetric (did you mean 'threshold'?)",
        "warning: metrics/order-api.metrics.json: [0].threshold: no threshold, so this metric "
        "always passes (a missing threshold is 0) (set one within 0 to 1)",
        "1 problem found · 1 warning.",
    ]


def test_a_metric_file_no_eval_set_uses_is_checked_on_its_own(project: Path) -> None:
    lone = project / "metrics" / "spare.metrics.json"
    lone.write_text('[{"metricName": "tool_trajectory_avg_scor", "threshold": 1}]')
    proc = run_hook(project, ["metrics/spare.metrics.json"])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error: metrics/spare.metrics.json: [0].metricName: unknown evaluator" in proc.stderr
    assert "did you mean 'tool_trajectory_avg_score'?" in proc.stderr
    lone.write_text('[{"metricName": "tool_trajectory_avg_score", "threshold": 1}]')
    proc = run_hook(project, ["metrics/spare.metrics.json"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "OK: metrics/spare.metrics.json valid (no eval set uses it).\n"


def test_a_bad_project_file_is_reported(project: Path) -> None:
    (project / "agenteval.toml").write_text('metrcs = "metrics/"\nevalset = ["evalsets/"]\n')
    proc = run_hook(project, ["metrics/order-api.metrics.json"])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"error: {project / 'agenteval.toml'}: metrcs: 'metrcs' is not a setting of agenteval "
        "run (did you mean 'metrics'?)\n"
    )


def test_a_value_the_option_refuses_is_a_located_problem_not_a_traceback(
    project: Path,
) -> None:
    # The hook crashed with click's BadParameter traceback (exit 1) on `judge-timeout = inf`.
    with (project / "agenteval.toml").open("a") as handle:
        handle.write("judge-timeout = inf\n")
    proc = run_hook(project, ["metrics/order-api.metrics.json"])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"error: {project / 'agenteval.toml'}: judge-timeout: must be a finite number, got inf\n"
    )


def test_check_files_in_process(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert check_files(["evalsets/order-api.evalset.json"], project) == 0
    bad = project / "evalsets" / "order-api.evalset.json"
    bad.write_text(bad.read_text().replace('"evalId"', '"evalid"', 1))
    assert check_files(["evalsets/order-api.evalset.json"], project) == 2
