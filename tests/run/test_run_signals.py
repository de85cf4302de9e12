"""Signal policy of a run: by phase, in process and end to end."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from enum import Enum
from pathlib import Path
from types import FrameType

import pytest
from pydantic import create_model
from pydantic_core import SchemaError

from agenteval.run.run_signals import Phase, RunSignals, run_signal_policy
from agenteval.run.runner import StopSignal
from judge_server import JudgeServer, Reply

ROOT = Path(__file__).resolve().parents[2]


def policy() -> tuple[RunSignals, list[str]]:
    said: list[str] = []
    return RunSignals(StopSignal(), said.append), said


def test_loading_phase_stops_at_once() -> None:
    signals, _ = policy()
    with run_signal_policy(signals), pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts the sleep
    assert signals.phase is Phase.LOADING


def test_scoring_phase_stops_then_halts_and_a_third_signal_aborts() -> None:
    signals, said = policy()
    halted: list[str] = []
    signals.stop.on_halt(lambda: halted.append("halt"))
    with run_signal_policy(signals):
        signals.stop.start()
        assert signals.phase is Phase.SCORING
        os.kill(os.getpid(), signal.SIGINT)
        assert signals.stop.event.is_set() and said and said[0].startswith("stopping")
        assert not signals.stop.halted.is_set() and halted == []
        os.kill(os.getpid(), signal.SIGINT)  # the second: cancel what is in flight, keep going
        assert signals.stop.halted.is_set() and halted == ["halt"]
        assert said[1].startswith("stopping now")
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)


def test_writing_phase_finishes_and_remembers() -> None:
    signals, said = policy()
    with run_signal_policy(signals):
        signals.stop.start()
        signals.writing()
        os.kill(os.getpid(), signal.SIGTERM)
    assert signals.during_writing and "finishing the reports" in said[0]


def test_a_swallowed_loading_interrupt_still_stops_before_scoring() -> None:
    """The handler's exception can vanish (raised inside a weakref callback); the count stays."""
    signals, _ = policy()
    signals.signals = 1  # as after a swallowed KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        signals.stop.start()


def test_an_interrupt_handed_back_as_another_error_is_still_the_interrupt() -> None:
    """pydantic-core reads an enum member's value through Python while it builds a validator;
    the handler's KeyboardInterrupt raised there comes back as its SchemaError."""
    signals, _ = policy()

    def send_inside_the_build(frame: FrameType, event: str, arg: object) -> None:
        caller = frame.f_back.f_code.co_name if frame.f_back else ""
        enum_read = event == "call" and frame.f_code.co_filename.endswith("enum.py")
        if enum_read and caller == "create_schema_validator":
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGINT)

    class Colour(Enum):
        RED = "red"

    with pytest.raises(KeyboardInterrupt) as raised, run_signal_policy(signals):
        sys.setprofile(send_inside_the_build)
        try:
            create_model("Paint", colour=(Colour, ...))
        finally:
            sys.setprofile(None)
    assert isinstance(raised.value.__cause__, SchemaError)
    assert "KeyboardInterrupt" in str(raised.value.__cause__)


def test_an_error_after_a_handled_signal_stays_that_error() -> None:
    signals, _ = policy()
    with pytest.raises(ValueError), run_signal_policy(signals):
        signals.stop.start()
        os.kill(os.getpid(), signal.SIGINT)  # scoring: a request to stop, nothing raised
        raise ValueError("a bug of ours, not the signal")


def test_handlers_restored_afterwards() -> None:
    before = signal.getsignal(signal.SIGTERM)
    signals, _ = policy()
    with run_signal_policy(signals):
        assert signal.getsignal(signal.SIGTERM) == signals.handle
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize("command", ["run", "validate"])
def test_sigterm_during_file_discovery(command: str) -> None:
    """A recursive glob over /usr takes minutes; SIGTERM ends it with exit 3 and one line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval", command, "--evalset", "/usr/**/*.evalset.json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 3, stderr
    assert stderr.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in stderr


def test_second_ctrl_c_while_writing_leaves_only_whole_files(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from deterministic import METRICS, make_case

    rng = random.Random(3)
    evalset = tmp_path / "w.evalset.json"
    cases = [make_case(i, rng) for i in range(1500)]
    evalset.write_text(json.dumps({"evalSetId": "w", "evalCases": cases}))
    (tmp_path / "w.metrics.json").write_text(json.dumps(METRICS))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset), "-q",
         "--output", str(out), "--json", str(tmp_path / "run.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not out.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode in (1, 3), stderr
    assert "Traceback" not in stderr
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    for path in [*out.glob("*"), *tmp_path.glob("run.json")]:
        json.loads(path.read_bytes())


def test_second_signal_cancels_a_hung_judge_call_and_writes_what_finished(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    """The first signal waits for judge calls in flight; one hangs for a minute.  The second
    cancels it, and the cases that finished are written (exit 3), not thrown away."""
    from tests.cli.test_interrupt_resume import CASES, write_suite

    valid = Reply(content="reasoning: same\nis_the_agent_response_valid: valid")
    judge_server.when("question 7", Reply.hang(60))
    judge_server.when("Reference response", valid)
    evalset, metrics = write_suite(tmp_path, judge_server)
    out, document = tmp_path / "out", tmp_path / "run.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset), "--metrics",
         str(metrics), "--no-cache", "--concurrency", "4", "--output", str(out),
         "--json", str(document)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while judge_server.count < CASES and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    assert proc.returncode == 3, stdout + stderr
    assert "stopping now" in stderr
    assert stdout.splitlines()[-1].startswith("INCOMPLETE:") and "· interrupted ·" in stdout
    (result,) = out.glob("*.evalset_result.json")
    in_file = sorted(c["evalId"] for c in json.loads(result.read_text())["evalCaseResults"])
    held = json.loads(document.read_text())["evalSetResults"][0]["evalCaseResults"]
    assert in_file == sorted(c["evalId"] for c in held)
    assert in_file == [f"case_{i:02d}" for i in range(CASES) if i != 7]
