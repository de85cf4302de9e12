"""SIGINT halfway through a judge run, then --resume: nothing lost, no judge call paid twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agenteval.inputs.loading import load_result
from judge_server import JudgeServer, Reply

CASES = 16


def write_suite(tmp_path: Path, server: JudgeServer) -> tuple[Path, Path]:
    cases = []
    for i in range(CASES):
        turn = {
            "userContent": {"role": "user", "content": f"question {i}"},
            "finalResponse": {"role": "assistant", "content": f"answer {i}"},
        }
        cases.append(
            {
                "evalId": f"case_{i:02d}",
                "evalMode": "trace",
                "actualConversation": [turn],
                "conversation": [turn],
                "sessionInput": {},
            }
        )
    evalset = tmp_path / "judged.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "judged", "evalCases": cases}))
    metrics = tmp_path / "judged.metrics.json"
    judge = {
        "providerName": "openai",
        "modelName": "m",
        "baseURL": server.base_url,
        "apiKey": "sk-test-resume",
    }
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "llm_final_response",
                    "threshold": 1,
                    "criterion": {"llmJudge": {"judgeModel": judge}},
                }
            ]
        )
    )
    return evalset, metrics


def command(evalset: Path, metrics: Path, cache: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset), "--metrics", str(metrics),
        "--cache", str(cache), "--output", str(out), "--concurrency", "2", *extra,
    ]  # fmt: skip


def comparable(path: Path) -> dict[str, Any]:
    """A result without ids, session ids and timestamps."""
    data = json.loads(path.read_text())
    cases = []
    for case in data["evalCaseResults"]:
        case = {k: v for k, v in case.items() if k != "sessionId"}
        cases.append(case)
    return {"cases": cases, "summary": data["summary"]}


def test_interrupt_then_resume(judge_server: JudgeServer, tmp_path: Path) -> None:
    judge_server.when(
        "Reference response", Reply(content="reasoning: same\nis_the_agent_response_valid: valid")
    )
    judge_server.latency = 0.25
    evalset, metrics = write_suite(tmp_path, judge_server)

    # The uninterrupted reference run, with its own cache.
    full_out = tmp_path / "full"
    done = subprocess.run(
        command(evalset, metrics, tmp_path / "full.sqlite", full_out),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    uninterrupted = judge_server.count
    assert uninterrupted == CASES

    # Interrupted run: SIGINT once a few judge calls have been answered.
    judge_server.reset()
    judge_server.when(
        "Reference response", Reply(content="reasoning: same\nis_the_agent_response_valid: valid")
    )
    cache, part_out = tmp_path / "cache.sqlite", tmp_path / "part"
    part_json = tmp_path / "part.json"
    proc = subprocess.Popen(
        command(evalset, metrics, cache, part_out, "--json", str(part_json)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while judge_server.count < 5 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 3, stdout + stderr
    assert "Traceback" not in stderr
    # One verdict line, the last: INCOMPLETE, saying why (issue 21 item 12).
    verdict = stdout.strip().splitlines()[-1]
    assert verdict.startswith("INCOMPLETE: ") and " · interrupted" in verdict, stdout
    assert not any(line.startswith(("PASSED:", "FAILED:")) for line in stdout.splitlines())
    # The run document's verdict is the console's, though every finished case passed.
    assert json.loads(part_json.read_text())["overallStatus"] == "incomplete"
    (partial_file,) = part_out.glob("*.evalset_result.json")
    partial = load_result(partial_file)
    assert partial.partial is True
    finished = len(partial.case_results())
    assert 0 < finished < CASES
    assert all(c.final_eval_status.value == "passed" for c in partial.case_results())
    first_requests = judge_server.count
    assert first_requests < CASES  # it stopped issuing calls

    # Resume: only the missing cases are scored; answers already paid for come from the cache.
    resumed_out = tmp_path / "resumed"
    resumed = subprocess.run(
        command(evalset, metrics, cache, resumed_out, "--resume", str(partial_file)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert judge_server.count == uninterrupted  # first + resumed requests: nothing paid twice
    (final_file,) = resumed_out.glob("*.evalset_result.json")
    assert "partial" not in json.loads(final_file.read_text())
    (full_file,) = full_out.glob("*.evalset_result.json")
    got, expected = comparable(final_file), comparable(full_file)
    assert got["summary"] == expected["summary"]
    assert [c["evalId"] for c in got["cases"]] == [c["evalId"] for c in expected["cases"]]
    for mine, theirs in zip(got["cases"], expected["cases"], strict=True):
        assert mine["finalEvalStatus"] == theirs["finalEvalStatus"]
        assert mine["overallEvalMetricResults"] == theirs["overallEvalMetricResults"]


def test_sigterm_on_a_deterministic_run_is_clean(tmp_path: Path) -> None:
    """SIGTERM before the run ends: exit 3 or a finished run, never a traceback."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agenteval",
            "run",
            "--evalset",
            str(root / "evalsets"),
            "--metrics",
            str(root / "metrics"),
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode in (1, 3, -signal.SIGTERM)
    assert "Traceback" not in stderr
