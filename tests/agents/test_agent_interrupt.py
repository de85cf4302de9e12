"""Ctrl-C while the agent is driven: no new sessions, finished cases kept; --resume drives the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_cli import EXACT_FINAL, FAULT_AGENT, REPO, echo_case, write_evalset

from agenteval.inputs.loading import load_result

CASES = 12


def _command(evalset: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset),
        "--agent", f"cmd:{FAULT_AGENT}", "--agent-concurrency", "2", "--no-cache",
        "--output", str(out), "--quiet", *extra,
    ]  # fmt: skip


def recorded_ids(record: Path) -> list[str]:
    """The evalIds of a --record file's lines, sorted (a case twice is there twice)."""
    return sorted(json.loads(line)["evalId"] for line in record.read_text().splitlines())


def test_interrupt_then_resume_drives_only_the_rest(tmp_path: Path) -> None:
    """Ctrl-C keeps the finished cases (the record holds exactly them); ``--resume`` drives
    only the rest and, given the same ``--record``, appends them to it (issue 21 item 7:
    it never filled the gap)."""
    cases = [echo_case(f"case_{i:02d}", f"slow {i}") for i in range(CASES)]
    evalset = write_evalset(tmp_path, "slow", cases, EXACT_FINAL)
    first_log, part_out = tmp_path / "first.log", tmp_path / "part"
    record = ["--record", str(tmp_path / "record.jsonl")]
    env = {**os.environ, "FAULT_AGENT_LOG": str(first_log), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        _command(evalset, part_out, *record), cwd=REPO, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if first_log.exists() and len(first_log.read_text().splitlines()) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 3, stdout + stderr
    assert "Traceback" not in stderr
    # One verdict line, the last: INCOMPLETE, saying why (issue 21 item 12).
    verdict = stdout.strip().splitlines()[-1]
    assert verdict.startswith("INCOMPLETE: ") and " · interrupted" in verdict, stdout
    assert not any(line.startswith(("PASSED:", "FAILED:")) for line in stdout.splitlines())
    (partial_file,) = part_out.glob("*.evalset_result.json")
    partial = load_result(partial_file)
    kept = {c.eval_id for c in partial.case_results()}
    assert 0 < len(kept) < CASES
    assert all(c.final_eval_status.value == "passed" for c in partial.case_results())
    driven_first = len(first_log.read_text().splitlines())
    assert driven_first < CASES  # no new sessions after the stop
    assert recorded_ids(tmp_path / "record.jsonl") == sorted(kept)

    resumed_log, resumed_out = tmp_path / "resumed.log", tmp_path / "resumed"
    env["FAULT_AGENT_LOG"] = str(resumed_log)
    done = subprocess.run(
        _command(evalset, resumed_out, "--resume", str(partial_file), *record),
        cwd=REPO, env=env, text=True, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    resumed_inputs = set(resumed_log.read_text().splitlines())
    expected_inputs = {f"slow {i}" for i in range(CASES) if f"case_{i:02d}" not in kept}
    assert resumed_inputs == expected_inputs  # only the rest was driven
    (final_file,) = resumed_out.glob("*.evalset_result.json")
    final = load_result(final_file)
    assert len(final.case_results()) == CASES
    assert all(c.final_eval_status.value == "passed" for c in final.case_results())
    assert recorded_ids(tmp_path / "record.jsonl") == [f"case_{i:02d}" for i in range(CASES)]


def held_cases(tmp_path: Path) -> tuple[list[str], list[str], list[str]]:
    """evalIds in the record, the --json run document and the result file, each sorted."""
    record = tmp_path / "record.jsonl"
    recorded = [json.loads(line)["evalId"] for line in record.read_text().splitlines()]
    document = json.loads((tmp_path / "run.json").read_text())
    in_document = [c["evalId"] for r in document["evalSetResults"] for c in r["evalCaseResults"]]
    (result_file,) = (tmp_path / "out").glob("*.evalset_result.json")
    in_file = [c.eval_id for c in load_result(result_file).case_results()]
    return sorted(recorded), sorted(in_document), sorted(in_file)


def _hung_run(tmp_path: Path, signals: int) -> tuple[int, str, str, float]:
    """Two quick cases, two that hang for 60 s, one more quick one; ``signals`` SIGINTs once
    the quick ones are answered.  Returns the exit code, output and seconds after the first."""
    cases = [echo_case("q1", "hi"), echo_case("q2", "ho")]
    cases += [echo_case("h1", "hang"), echo_case("h2", "hang"), echo_case("q3", "hu")]
    evalset = write_evalset(tmp_path, "hung", cases, EXACT_FINAL)
    log = tmp_path / "agent.log"
    env = {**os.environ, "FAULT_AGENT_LOG": str(log), "NO_COLOR": "1"}
    command = _command(evalset, tmp_path / "out", "--agent-timeout", "300", "--agent-concurrency",
                       "4", "--record", str(tmp_path / "record.jsonl"), "--json",
                       str(tmp_path / "run.json"))  # fmt: skip
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= 3:
            break
        time.sleep(0.02)
    time.sleep(0.2)  # the hanging turns are on the wire
    began = time.monotonic()
    for _ in range(signals):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
    try:
        stdout, stderr = proc.communicate(timeout=45)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return proc.returncode, stdout, stderr, time.monotonic() - began


def test_first_signal_cancels_hung_agent_turns(tmp_path: Path) -> None:
    """The hanging turns are cancelled, not awaited; the three places hold the same cases."""
    code, stdout, stderr, _ = _hung_run(tmp_path, 1)
    assert code == 3, stdout + stderr
    assert "Traceback" not in stderr
    assert stdout.splitlines()[-1].startswith("INCOMPLETE:") and "· interrupted ·" in stdout
    recorded, in_document, in_file = held_cases(tmp_path)
    assert recorded == in_document == in_file == ["q1", "q2", "q3"]


def test_second_signal_still_writes_what_finished(tmp_path: Path) -> None:
    code, stdout, stderr, _ = _hung_run(tmp_path, 2)
    assert code == 3, stdout + stderr
    assert "Traceback" not in stderr
    recorded, in_document, in_file = held_cases(tmp_path)
    assert recorded == in_document == in_file == ["q1", "q2", "q3"]
