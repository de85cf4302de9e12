"""`run --watch` end to end: a threshold saved re-scores only its metric, 0 judge calls; bad saves wait; Ctrl-C exits 0."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge_server import JudgeServer
from trace_cases import usage_eval_set

ROOT = Path(__file__).resolve().parents[2]
# Generous: the machine may be busy; the test never asserts time.
WAIT = 120.0


class Watch:
    """A running `agenteval run --watch` whose output lines are read as they come."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agenteval", "run", "--watch", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=cwd,
            env=env,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, text: str) -> list[str]:
        """The lines up to and including the first new one containing ``text``."""
        seen: list[str] = []
        while True:
            try:
                line = self._queue.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no {text!r} after {self.lines + seen}") from None
            if line is None:
                raise AssertionError(f"exited before {text!r}: {self.lines + seen}")
            seen.append(line)
            if text in line:
                self.lines.extend(seen)
                return seen

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait(timeout=WAIT)


def metric_files() -> tuple[dict[str, Any], dict[str, Any]]:
    judges = json.loads((ROOT / "metrics" / "judges" / "travel-assistant.metrics.json").read_text())
    plain = json.loads((ROOT / "metrics" / "travel-assistant.metrics.json").read_text())
    judge = next(m for m in judges if m["metricName"] == "answer_matches_reference")
    trajectory = next(m for m in plain if m["metricName"] == "tool_trajectory_avg_score")
    return judge, trajectory


@pytest.fixture()
def watch(tmp_path: Path, judge_server: JudgeServer) -> Iterator[tuple[Watch, Path]]:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "evalsets" / "travel-assistant.evalset.json", project)
    judge, trajectory = metric_files()
    (project / "travel-assistant.metrics.json").write_text(json.dumps([judge, trajectory]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTEVAL_")}
    env.update(
        JUDGE_MODEL_BASE_URL=judge_server.base_url,
        JUDGE_MODEL_API_KEY="sk-test",
        JUDGE_MODEL_NAME="judge",
        COLUMNS="200",
    )
    args = ["-q", "--evalset", "travel-assistant.evalset.json"]
    args += ["--cache", str(tmp_path / "cache.sqlite")]
    running = Watch(args, project, env)
    try:
        yield running, project
    finally:
        running.stop()


def save(path: Path, text: str) -> None:
    path.write_text(text)


def test_a_saved_threshold_rescores_only_its_metric_from_the_cache_and_bad_saves_wait(
    watch: tuple[Watch, Path], judge_server: JudgeServer
) -> None:
    running, project = watch
    first = running.until("watching 2 files")
    assert (
        "re-scored 8 pairs (answer_matches_reference × 4, tool_trajectory_avg_score × 4); kept 0"
        in first
    )
    calls = judge_server.count
    assert calls == 15  # 5 turns (3 one-turn cases, a two-turn case) × 3 samples
    assert any(line.startswith("FAILED: 3 of 4 cases passed (1 failed)") for line in first)

    metrics = project / "travel-assistant.metrics.json"
    judge, trajectory = metric_files()
    trajectory["threshold"] = 0.0  # currency_wrong_amount's trajectory scores 0
    save(metrics, json.dumps([judge, trajectory]))
    second = running.until("watching 2 files")
    assert second[0].startswith("pass 2 · saved: travel-assistant.metrics.json")
    assert "newly passing: travel-assistant/currency_wrong_amount" in second
    assert "re-scored 4 pairs (tool_trajectory_avg_score × 4); kept 4" in second
    assert judge_server.count == calls

    judge["threshold"] = 0.5  # the judge metric's pairs again: every reply from the cache
    save(metrics, json.dumps([judge, trajectory]))
    third = running.until("watching 2 files")
    assert "re-scored 4 pairs (answer_matches_reference × 4); kept 4" in third
    assert "judge: 0 calls, 15 from cache" in third
    assert judge_server.count == calls

    save(metrics, '[{"metricName": "tool_trajectory_avg_score", "threshhold": 1}]')
    bad = running.until("waiting for the next save")
    assert (
        "error: travel-assistant.metrics.json: [0].threshhold: 'threshhold' is not a field of "
        "EvalMetric (did you mean 'threshold'?)"
    ) in bad
    assert "1 problem found; keeping the last good results; waiting for the next save" in bad
    running.until("watching 2 files")  # still watching
    assert running.proc.poll() is None

    trajectory["threshold"] = 1.0
    save(metrics, json.dumps([judge, trajectory]))
    fourth = running.until("watching 2 files")
    # Compared with the last good pass: the trajectory threshold is back, the judge unchanged.
    assert "newly failing: travel-assistant/currency_wrong_amount (failed)" in fourth
    assert "re-scored 4 pairs (tool_trajectory_avg_score × 4); kept 4" in fourth
    assert judge_server.count == calls


def test_ctrl_c_stops_the_watch_with_exit_0_and_nothing_left_behind(
    watch: tuple[Watch, Path],
) -> None:
    running, project = watch
    before = sorted(p.name for p in project.iterdir())
    running.until("watching 2 files")
    running.proc.send_signal(signal.SIGINT)
    assert running.proc.wait(timeout=WAIT) == 0
    rest = running.until("stopped watching")
    assert not any("interrupted" in line for line in running.lines + rest)
    assert sorted(p.name for p in project.iterdir()) == before


def test_a_metric_file_first_read_by_a_later_pass_is_watched(tmp_path: Path) -> None:
    # An eval set added to the watched folder: its pass names the metric file beside it,
    # missing. Once saved, that file started no pass: the watch filter still held the
    # files of the first pass.
    sets = tmp_path / "sets"
    sets.mkdir()
    shutil.copy(ROOT / "evalsets" / "order-api.evalset.json", sets)
    shutil.copy(ROOT / "metrics" / "order-api.metrics.json", sets)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTEVAL_")}
    running = Watch(["-q", "--no-cache", "--evalset", "sets"], tmp_path, env | {"COLUMNS": "200"})
    try:
        running.until("watching 2 files")
        (sets / "u.evalset.json").write_text(json.dumps(usage_eval_set(usage_on_turn_2=True)))
        added = running.until("watching")
        assert "newly failing: u/c1 (not evaluated)" in added
        metric = {"metricName": "token_usage", "threshold": 100}
        (sets / "u.metrics.json").write_text(json.dumps([metric]))
        saved = running.until("watching")
        assert saved[0].startswith("pass 3 · saved: sets/u.metrics.json")
        assert "newly passing: u/c1" in saved
    finally:
        running.stop()


def test_watch_refuses_reports(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "agenteval", "run", "--watch"),
            *("--evalset", str(ROOT / "evalsets"), "--output", str(tmp_path / "out")),
            *("--num-runs", "2"),
        ],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "error: --output: cannot be combined with --watch (a watch prints to the terminal)",
        "error: --num-runs: --watch scores one run per case",
        "2 problems found.",
    ]
