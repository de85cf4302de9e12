"""`agenteval run` with only a project file: the shipped examples scored, sources shown, flags win."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]


def cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("AGENTEVAL_")}
    return run_cli(args, timeout=180, cwd=cwd, env={**environ, **(env or {})})


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for name in ("evalsets", "metrics"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.agenteval]\n'
        'evalset = ["evalsets/"]\nmetrics = "metrics/"\noutput = "out"\n'
        "concurrency = 4\nno-progress = true\n"
    )
    return tmp_path


def test_run_with_no_flags_scores_the_shipped_examples_from_a_subdirectory(project: Path) -> None:
    sub = project / "src"
    sub.mkdir()
    proc = cli("run", cwd=sub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED: 7 of 13 cases passed (6 failed) · 4 eval sets" in proc.stdout
    # --output from the file, relative to the file, not to where the command ran.
    assert len(list((project / "out").glob("*.evalset_result.json"))) == 4
    assert not (sub / "out").exists()


def test_a_report_from_the_file_is_written_relative_to_the_file(project: Path) -> None:
    with (project / "pyproject.toml").open("a") as file:
        file.write('report = ["junit=reports/run.xml"]\n')
    (project / "reports").mkdir()
    sub = project / "src"
    sub.mkdir()
    proc = cli("run", cwd=sub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # NAME=FILE: the reporter's name is kept, the file is the project's.
    assert 'tests="13" failures="6"' in (project / "reports" / "run.xml").read_text()
    assert not (sub / "reports").exists()


def test_show_config_names_each_source_and_flags_win(project: Path) -> None:
    proc = cli(
        "run",
        "--show-config",
        "--concurrency",
        "3",
        cwd=project,
        env={"AGENTEVAL_CACHE": str(project / "c.sqlite")},
    )
    assert proc.returncode == 0, proc.stderr
    rows = {line.split(" = ")[0]: line for line in proc.stdout.splitlines()}
    pyproject = project / "pyproject.toml"
    assert proc.stdout.splitlines()[0] == f"# project file: {pyproject}"
    assert rows["evalset"].startswith('evalset = ["evalsets"]')
    assert rows["evalset"].endswith(f"# {pyproject}: tool.agenteval.evalset")
    assert rows["metrics"].endswith(f"# {pyproject}: tool.agenteval.metrics")
    assert rows["concurrency"].startswith("concurrency = 3 ") and rows["concurrency"].endswith(
        "# flag"
    )
    assert rows["cache"].endswith("# $AGENTEVAL_CACHE")
    assert rows["judge-retries"].startswith("judge-retries = 4 ")
    assert rows["judge-retries"].endswith("# default")
    assert rows["store"].endswith("# default")
    assert not (project / "out").exists()  # nothing scored


def test_store_comes_through_the_same_file(project: Path) -> None:
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('store = "hist.sqlite"\n')
    proc = cli("run", "--show-config", cwd=project)
    store = next(line for line in proc.stdout.splitlines() if line.startswith("store = "))
    assert f'"sqlite:///{project / "hist.sqlite"}"' in store
    assert store.endswith(f"# {project / 'pyproject.toml'}: tool.agenteval.store")
    proc = cli("run", "--show-config", cwd=project, env={"AGENTEVAL_STORE": "o.sqlite"})
    store = next(line for line in proc.stdout.splitlines() if line.startswith("store = "))
    assert store.endswith("# $AGENTEVAL_STORE")


def test_an_unknown_key_is_an_error_with_the_key_meant(project: Path) -> None:
    with (project / "pyproject.toml").open("a") as handle:
        handle.write("judge_retries = 2\n")
    for command in ("run", "validate"):
        proc = cli(command, cwd=project)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr.splitlines() == [
            f"error: {project / 'pyproject.toml'}: tool.agenteval.judge_retries: 'judge_retries' "
            "is not a setting of agenteval run (did you mean 'judge-retries'?)",
            "1 problem found.",
        ]
        assert "Traceback" not in proc.stderr


def test_a_value_the_option_refuses_is_located_in_the_file_not_blamed_on_a_flag(
    project: Path,
) -> None:
    # `judge-timeout = inf` passed the table's type check and was refused as the option
    # parsed it: "--judge-timeout: must be a finite number", a flag nobody had typed.
    with (project / "pyproject.toml").open("a") as handle:
        handle.write("judge-timeout = inf\nrate-limit = -1.0\n")
    proc = cli("run", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: {project / 'pyproject.toml'}: tool.agenteval.rate-limit: must be at least "
        "0.001, got -1.0",
        "1 problem found.",
    ]
    proc = cli("run", "--rate-limit", "2", "--judge-timeout", "nan", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "error: --judge-timeout: must be a finite number, got nan",
        "1 problem found.",
    ]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('report = ["junit"]', "report: junit: expected NAME=FILE (e.g. --report junit=out.xml)"),
        ('agent = ""', "agent: unknown agent spec '': use cmd:COMMAND or agui:URL"),
        ('shard = "5/4"', "shard: shard index must be within 1..4 (shards count from 1), got 5"),
        ('case = ["typo"]', "case: 'typo' matches nothing in the given files"),
        ('resume = ["../nothere"]', "resume: ../nothere: file not found"),
    ],
)
def test_a_value_a_later_check_refuses_is_located_in_the_file_not_blamed_on_a_flag(
    project: Path, line: str, problem: str
) -> None:
    # Checks after the option's own (a report's NAME=FILE, the shard, the case ids, the
    # agent spec) said `--report: …`, `--shard: …` when the file gave the value, and a
    # missing file the file named was `../nothere: file not found` without the key.
    with (project / "pyproject.toml").open("a") as handle:
        handle.write(line + "\n")
    proc = cli("run", "--offline", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"error: {project / 'pyproject.toml'}: tool.agenteval.{problem}"), first


def test_a_later_check_still_names_the_flag_typed(project: Path) -> None:
    proc = cli("run", "--offline", "--shard", "5/4", "--case", "typo", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[0].startswith("error: --"), proc.stderr
    proc = cli("validate", "--metrics", "nothere", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == ["error: nothere: file not found", "1 problem found."]


def test_the_pyproject_table_an_agenteval_toml_overrides_is_a_warning(project: Path) -> None:
    # Its settings were ignored without a word; --quiet hides no warning.
    (project / "agenteval.toml").write_text(
        'evalset = ["evalsets/help-center.evalset.json"]\nmetrics = "metrics/"\n'
    )
    warning = (
        f"warning: {project / 'pyproject.toml'}: tool.agenteval: not read: "
        f"{project / 'agenteval.toml'} beside it gives the settings"
    )
    for args in (("run", "--quiet", "--offline", "--no-progress"), ("validate",)):
        proc = cli(*args, cwd=project)
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        assert warning in proc.stderr, proc.stderr
    assert "OK: 1 eval set(s)" in proc.stdout, proc.stdout  # agenteval.toml's settings


def test_validate_reads_the_keys_it_shares(project: Path) -> None:
    proc = cli("validate", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK: 4 eval set(s), 13 case(s)" in proc.stdout


def test_an_agent_command_from_the_file_runs_where_the_file_is(tmp_path: Path) -> None:
    """``agent = "cmd:… examples/agents/calculator_agent.py"`` names a path relative to the
    file, as every path in it is; run from a subdirectory the agent was not found and every
    case failed.  The three shipped cases: two pass, one fails on purpose (exit 1)."""
    shutil.copytree(ROOT / "evalsets" / "agent", tmp_path / "evalsets")
    shutil.copytree(ROOT / "examples" / "agents", tmp_path / "agents")
    python = shlex.quote(sys.executable)
    (tmp_path / "agenteval.toml").write_text(
        'evalset = ["evalsets/calculator-agent.evalset.json"]\nno-progress = true\n'
        f"agent = {json.dumps(f'cmd:{python} agents/calculator_agent.py')}\n"
    )
    sub = tmp_path / "sub"
    sub.mkdir()
    proc = cli("run", cwd=sub)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 passed, 1 failed" in proc.stdout, proc.stdout


def test_a_strictness_flag_overrides_the_files_other_choice(tmp_path: Path) -> None:
    """strict and lenient are one choice: ``--lenient`` against ``strict = true`` in the file
    (or $AGENTEVAL_STRICT against ``lenient = true``) was refused as a conflict, exit 2.
    The flag wins: the misspelt key (``nmae``) is a warning under --lenient, an error under
    --strict."""
    evalset = tmp_path / "e.evalset.json"
    case = {"evalId": "a", "evalMode": "trace", "sessionInput": {"appName": "x", "userId": "u"},
            "actualConversation": [{"userContent": {"role": "user", "content": "q"}, "nmae": 1}]}  # fmt: skip
    evalset.write_text(json.dumps({"evalSetId": "e", "evalCases": [case]}))
    (tmp_path / "e.metrics.json").write_text('[{"metricName": "tool_call_count"}]')
    toml = tmp_path / "agenteval.toml"
    toml.write_text('evalset = ["e.evalset.json"]\nstrict = true\n')
    lenient = cli("validate", "--lenient", cwd=tmp_path)
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    assert "'nmae' is not a field of Invocation" in lenient.stderr
    toml.write_text('evalset = ["e.evalset.json"]\nlenient = true\n')
    strict = cli("validate", cwd=tmp_path, env={"AGENTEVAL_STRICT": "1"})
    assert strict.returncode == 2, strict.stdout + strict.stderr
    assert "'nmae' is not a field of Invocation" in strict.stderr
    both = cli("validate", "--strict", "--lenient", cwd=tmp_path)  # one place: a conflict
    assert both.returncode == 2 and "cannot be combined with --strict" in both.stderr
