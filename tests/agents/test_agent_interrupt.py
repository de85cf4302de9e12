"""Ctrl-C while the agent is driven: no new sessions, finished cases kept; --resume drives the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_cli import EXACT_FINAL, FAULT_AGENT, REPO, echo_case, write_evalset

from agenteval.loading import load_result

CASES = 12


def _command(evalset: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset),
        "--agent", f"cmd:{FAULT_AGENT}", "--agent-concurrency", "2", "--no-cache",
        "--output", str(out), "--quiet", *extra,
    ]  # fmt: skip


def test_interrupt_then_resume_drives_only_the_rest(tmp_path: Path) -> None:
    cases = [echo_case(f"case_{i:02d}", f"slow {i}") for i in range(CASES)]
    evalset = write_evalset(tmp_path, "slow", cases, EXACT_FINAL)
    first_log, part_out = tmp_path / "first.log", tmp_path / "part"
    env = {**os.environ, "FAULT_AGENT_LOG": str(first_log), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        _command(evalset, part_out), cwd=REPO, env=env, text=True,
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

    resumed_log, resumed_out = tmp_path / "resumed.log", tmp_path / "resumed"
    env["FAULT_AGENT_LOG"] = str(resumed_log)
    done = subprocess.run(
        _command(evalset, resumed_out, "--resume", str(partial_file)),
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
