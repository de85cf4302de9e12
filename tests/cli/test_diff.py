"""``agenteval diff`` of real runs: a side cut short by Ctrl-C, and the ``--json`` keys.

The results are real files of real ``agenteval run`` processes: a whole run of 16 judged
cases, and a run of the same cases stopped by SIGINT while a slow loopback judge answers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_process import run_cli
from doc_tables import documented_keys
from judge_server import JudgeServer, Reply
from tests.cli.test_interrupt_resume import CASES, command, write_suite

SAME = Reply(content="reasoning: same\nis_the_agent_response_valid: valid")


@dataclass(frozen=True)
class Runs:
    full: Path  # every case scored
    partial: Path  # stopped by SIGINT: "partial": true, some cases never scored
    scored: int  # the cases the stopped run scored


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    tmp = tmp_path_factory.mktemp("diff_runs")
    with JudgeServer() as server:
        server.when("Reference response", SAME)
        evalset, metrics = write_suite(tmp, server)
        full = subprocess.run(
            command(evalset, metrics, tmp / "full.sqlite", tmp / "full"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert full.returncode == 0, full.stdout + full.stderr
        server.latency = 0.25
        answered = server.count
        proc = subprocess.Popen(
            command(evalset, metrics, tmp / "part.sqlite", tmp / "part"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while server.count < answered + 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 3, stdout + stderr
    (full_file,) = (tmp / "full").glob("*.evalset_result.json")
    (part_file,) = (tmp / "part").glob("*.evalset_result.json")
    part = json.loads(part_file.read_text())
    assert part["partial"] is True
    scored = len(part["evalCaseResults"])
    assert 0 < scored < CASES
    yield Runs(full_file, part_file, scored)


def diff(*args: str) -> subprocess.CompletedProcess[str]:
    # A wide terminal: a width another test leaves in the environment must not fold the table.
    return run_cli(("diff", *args), env=dict(os.environ, COLUMNS="200"), timeout=120)


def test_a_partial_new_says_its_cases_were_not_scored(runs: Runs) -> None:
    # Was: every case the stop left unscored "disappeared", counted as a regression
    # ("REGRESSED: 10 regressions, 10 disappeared", exit 1), without saying NEW was cut short.
    proc = diff(str(runs.full), str(runs.partial))
    missing = CASES - runs.scored
    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "disappeared" not in proc.stdout and "regressed" not in proc.stdout
    assert sum("not scored in NEW (interrupted)" in line for line in lines) == missing
    assert f"NEW is partial (interrupted): {missing} cases not scored" in lines
    assert lines[-1].startswith(f"INCOMPLETE: 0 regressions, {missing} unscored · "), lines[-1]


def test_a_partial_base_is_never_a_clean_verdict(runs: Runs) -> None:
    # Was: "NO REGRESSION: 0 regressions, 10 appeared", exit 0: nothing said BASE was cut short.
    proc = diff(str(runs.partial), str(runs.full))
    missing = CASES - runs.scored
    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "appeared" not in proc.stdout and "NO REGRESSION" not in proc.stdout
    assert sum("not scored in BASE (interrupted)" in line for line in lines) == missing
    assert f"BASE is partial (interrupted): {missing} cases not scored" in lines
    assert lines[-1].startswith(f"INCOMPLETE: 0 regressions, {missing} unscored · "), lines[-1]
    assert f"{runs.scored} cases and {runs.scored} metrics compared" in lines[-1]


def test_json_says_which_side_is_partial(runs: Runs) -> None:
    missing = CASES - runs.scored
    proc = diff(str(runs.partial), str(runs.full), "--json")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["regressed"] is False and data["incomplete"] is True
    assert data["partial"] == {"base": True, "new": False}
    assert data["notScored"] == {"base": missing, "new": 0}
    assert data["counts"]["unscored"] == missing and data["counts"]["appeared"] == 0
    unscored = [c for c in data["changes"] if c["kind"] == "unscored"]
    assert len(unscored) == missing and not any(c["regression"] for c in unscored)
    assert {c["base"] is None for c in unscored} == {True}


def test_the_json_keys_are_the_documented_ones_in_order(runs: Runs) -> None:
    # docs/commands/diff.md named regressed, counts and changes; tolerance, comparedCases
    # and comparedMetrics were printed too, documented nowhere.
    for pair in ((runs.full, runs.full), (runs.full, runs.partial)):
        proc = diff(str(pair[0]), str(pair[1]), "--json")
        data = json.loads(proc.stdout)
        assert list(data) == documented_keys("commands/diff.md", "`--json` prints one object")


def test_a_whole_run_against_itself_is_complete(runs: Runs) -> None:
    proc = diff(str(runs.full), str(runs.full))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "partial" not in proc.stdout
    assert proc.stdout.splitlines()[-1] == (
        f"NO REGRESSION: 0 regressions · {CASES} cases and {CASES} metrics compared · tolerance 0"
    )
