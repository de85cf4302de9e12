"""Issue 21's acceptance for driven agents: SIGINT at 20 points of a 200-case ``--agent``
run with ``--record``, one signal and two (SIGINT twice; and SIGTERM then SIGINT, which the
same policy handles, at every other point): the record, the run document and the result
file hold the same finished cases every time, and ``--resume`` (appending to the same
record) completes all three.

Each trial runs 200 cases twice (~14 s on a loaded 2-core box): the 50 trials are
``slow`` (``make test-long``); the default suite has the 12-case version of each
promise in tests/agents/test_agent_interrupt.py.

Points are counted in cases the agent has answered (its log), from start-up (the first
point, before any case) through the run to the writing of the reports (the last).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "agents"))
from agent_cli import EXACT_FINAL, FAULT_AGENT, echo_case, write_evalset  # noqa: E402

CASES = 200
# Answered cases before the signal: "start" is 0.3 s after launch (start-up, loading),
# "writing" once the result file is being put in place.
POINTS: list[int | str] = ["start", 1, *range(10, 180, 10), "writing"]
SIGNALS = {
    "single": [signal.SIGINT],
    "double": [signal.SIGINT, signal.SIGINT],
    "term-int": [signal.SIGTERM, signal.SIGINT],
}
TRIALS = [
    *((point, "single") for point in POINTS),
    *((point, "double") for point in POINTS),
    *((point, "term-int") for point in POINTS[::2]),
]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agent_trials")
    cases = [echo_case(f"case_{i:03d}", "pause 0.01") for i in range(CASES)]
    return write_evalset(root, "trial", cases, EXACT_FINAL)


def command(evalset: Path, tmp: Path, out: str, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset),
        "--agent", f"cmd:{FAULT_AGENT}", "--agent-concurrency", "4", "--no-cache", "-q",
        "--record", str(tmp / "record.jsonl"), "--output", str(tmp / out),
        "--json", str(tmp / f"{out}.json"), *extra,
    ]  # fmt: skip


def held(tmp: Path, out: str) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """The case runs in the record, the run document and the result file (empty if absent)."""
    record = tmp / "record.jsonl"
    recorded = Counter(
        json.loads(line)["evalId"] for line in record.read_text().splitlines() if line
    ) if record.exists() else Counter()  # fmt: skip
    document = tmp / f"{out}.json"
    in_document: Counter[str] = Counter()
    if document.exists():
        for result in json.loads(document.read_text())["evalSetResults"]:
            in_document.update(c["evalId"] for c in result["evalCaseResults"] or [])
    in_file: Counter[str] = Counter()
    for path in (tmp / out).glob("*.evalset_result.json") if (tmp / out).exists() else []:
        in_file.update(c["evalId"] for c in json.loads(path.read_text())["evalCaseResults"] or [])
    return recorded, in_document, in_file


def interrupt(
    evalset: Path, tmp: Path, point: int | str, signals: list[signal.Signals]
) -> tuple[int, str, bool]:
    """Run, send ``signals`` (20 ms apart) at ``point``: (exit code, output, whether the run
    had already ended, every report written, before the point was seen)."""
    log = tmp / "agent.log"
    env = {**os.environ, "FAULT_AGENT_LOG": str(log), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        command(evalset, tmp, "out"), cwd=REPO, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 120

    def reached() -> bool:
        if point == "start":
            return True
        if point == "writing":
            return (tmp / "out").exists() and any((tmp / "out").iterdir())
        return log.exists() and len(log.read_bytes().splitlines()) >= int(point)

    if point == "start":
        time.sleep(0.3)
    while not reached() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    ended = proc.poll() is not None  # the reports were quicker than the poll: no signal
    for sig in [] if ended else signals:
        proc.send_signal(sig)
        time.sleep(0.02)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return proc.returncode, stdout + stderr, ended


def test_twenty_points_single_and_double() -> None:
    assert len(POINTS) == 20 and CASES == 200
    assert Counter(name for _, name in TRIALS) == {"single": 20, "double": 20, "term-int": 10}


@pytest.mark.slow
@pytest.mark.parametrize(("point", "signals"), TRIALS, ids=[f"{p}-{s}" for p, s in TRIALS])
def test_record_document_and_result_file_agree(
    suite: Path, tmp_path: Path, point: int | str, signals: str
) -> None:
    code, output, ended = interrupt(suite, tmp_path, point, SIGNALS[signals])
    where = f"{signals} at {point}: {output}"
    assert code == (0 if ended else 3), where
    assert "Traceback" not in output, where
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")], where
    recorded, in_document, in_file = held(tmp_path, "out")
    assert recorded == in_document == in_file, where
    assert all(count == 1 for count in recorded.values()), where
    assert len(recorded) < CASES or point == "writing", where

    partial = list((tmp_path / "out").glob("*.evalset_result.json"))
    resume = ["--resume", str(partial[0])] if partial else []
    done = subprocess.run(
        command(suite, tmp_path, "again", *resume), cwd=REPO, text=True,
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    recorded, in_document, in_file = held(tmp_path, "again")
    everything = Counter(f"case_{i:03d}" for i in range(CASES))
    assert recorded == in_document == in_file == everything, where
