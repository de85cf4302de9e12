"""action.yml: its shell steps run as GitHub runs them, with the GitHub files pointed at temp files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
# GitHub's `shell: bash` (docs: "Using a specific shell").
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(text: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    """``${{ inputs.X }}`` and ``${{ steps.ID.outputs.X }}``; any other expression fails the test."""

    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        assert step is not None, f"unexpected expression {expression!r}"
        return outputs.get(step.group(1), {}).get(step.group(2), "")

    return EXPRESSION.sub(one, text)


def read_outputs(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        key, _, value = line.partition("=")
        found[key] = value
    return found


def run_action(
    workspace: Path, **given: str
) -> tuple[list[subprocess.CompletedProcess[str]], Path]:
    """Every run-step of the action in order (``uses`` steps are GitHub's own actions)."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update(given)
    summary = workspace / "step_summary.md"
    summary.touch()
    outputs: dict[str, dict[str, str]] = {}
    done = []
    venv_bin = str(Path(sys.executable).parent)
    for index, step in enumerate(ACTION["runs"]["steps"]):
        if "run" not in step:
            continue
        output_file = workspace / f"output_{index}"
        output_file.touch()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTEVAL_", "PYTEST_"))}
        env.update(
            PATH=f"{venv_bin}{os.pathsep}{env['PATH']}",
            GITHUB_ACTIONS="true",
            GITHUB_WORKSPACE=str(workspace),
            GITHUB_ACTION_PATH=str(ROOT),
            GITHUB_OUTPUT=str(output_file),
            GITHUB_STEP_SUMMARY=str(summary),
            # pip stays offline: the package input names one already installed.
            PIP_NO_INDEX="1",
        )
        env.update({k: evaluate(str(v), inputs, outputs) for k, v in step.get("env", {}).items()})
        cwd = workspace / evaluate(step.get("working-directory", "."), inputs, outputs)
        proc = subprocess.run(
            [*BASH, "-c", evaluate(step["run"], inputs, outputs)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=cwd,
            env=env,
        )
        done.append(proc)
        if "id" in step:
            outputs[step["id"]] = read_outputs(output_file)
        if proc.returncode != 0:
            break
    return done, summary


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for name in ("evalsets", "metrics"):
        shutil.copytree(ROOT / name, project / name)
    return tmp_path


def test_the_action_scores_writes_the_report_and_summary_and_fails_with_the_run(
    workspace: Path,
) -> None:
    steps, summary = run_action(
        workspace,
        package="pytest",  # already installed: pip's step runs for real without a network
        evalset="evalsets/order-api.evalset.json\nevalsets/travel-assistant.evalset.json",
        metrics="metrics/",
        args="--strict --concurrency 2",
        **{"working-directory": "project"},
    )
    install, run, verdict = steps
    assert install.returncode == 0, install.stderr
    assert "Requirement already satisfied: pytest" in install.stdout
    assert run.returncode == 0, run.stderr  # the verdict is the last step's
    assert "FAILED: 4 of 7 cases passed (3 failed) · 2 eval sets" in run.stdout
    # Annotations for GitHub (GITHUB_ACTIONS=true).
    assert "::error " in run.stdout
    report = workspace / "project" / "agenteval-report.html"
    assert report.is_file() and report.read_text().lower().startswith("<!doctype html>")
    text = summary.read_text()
    assert text.startswith("## ❌ agenteval: FAILED\n\n**4 of 7 cases passed**")
    assert "value mismatch at $.amount: 100 vs 1000" in text
    assert verdict.returncode == 1
    assert "agenteval run exited with 1" in verdict.stdout


def test_the_upload_step_takes_the_report_the_run_step_names() -> None:
    (upload,) = [s for s in ACTION["runs"]["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["if"] == "always() && steps.run.outputs.html != ''"
    assert upload["with"]["path"] == "${{ steps.run.outputs.html }}"
    (setup,) = [s for s in ACTION["runs"]["steps"] if "setup-python" in s.get("uses", "")]
    assert setup["with"]["python-version"] == "${{ inputs.python-version }}"


def test_passing_eval_sets_from_the_project_file_pass(workspace: Path) -> None:
    (workspace / "project" / "pyproject.toml").write_text(
        '[tool.agenteval]\nevalset = ["evalsets/order-api.evalset.json"]\nmetrics = "metrics/"\n'
        'case = ["order_status_shipped"]\n'
    )
    steps, summary = run_action(
        workspace, package="pytest", html="out/r.html", **{"working-directory": "project"}
    )
    run, verdict = steps[1], steps[2]
    assert "PASSED: 1 of 1 cases passed" in run.stdout, run.stdout + run.stderr
    assert (workspace / "project" / "out" / "r.html").is_file()
    assert verdict.returncode == 0
    assert summary.read_text().startswith("## ✅ agenteval: PASSED")


def test_args_on_several_lines_are_all_passed(workspace: Path) -> None:
    # `args: |` over two lines ran with the first line only: `--case` was dropped without a
    # word and all three cases were scored (exit 1).
    steps, _ = run_action(
        workspace,
        package="pytest",
        evalset="evalsets/order-api.evalset.json",
        metrics="metrics/",
        args="--strict\n--case order_status_shipped\n",
        **{"working-directory": "project"},
    )
    run, verdict = steps[1], steps[2]
    assert "PASSED: 1 of 1 cases passed" in run.stdout, run.stdout + run.stderr
    assert verdict.returncode == 0


def test_the_exit_code_output_names_every_code_the_exit_codes_page_lists() -> None:
    # docs/exit-codes.md is the source of truth; the output's description left out 4.
    page = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| (\d) \| ([a-z ]+)", page, re.MULTILINE))
    described = ACTION["outputs"]["exit-code"]["description"]
    named = re.findall(r"\b(\d) [a-z]", described)
    assert named == sorted(listed), described
    assert f"4 {listed['4']}" in described  # "internal error", as the page words it
