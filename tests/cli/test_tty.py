"""The progress bar and tables in a real pseudo-terminal (pexpect, fixed width); absent without a TTY."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from judge_server import JudgeServer, Reply

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
WIDTH = 100


def suite(tmp_path: Path, server: JudgeServer, cases: int = 12) -> tuple[Path, Path]:
    items = []
    for i in range(cases):
        turn = {
            "userContent": {"role": "user", "content": f"q{i}"},
            "finalResponse": {"role": "assistant", "content": f"a{i}"},
        }
        items.append(
            {
                "evalId": f"c{i:02d}",
                "evalMode": "trace",
                "actualConversation": [turn],
                "conversation": [turn],
                "sessionInput": {},
            }
        )
    evalset = tmp_path / "tty.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "tty", "evalCases": items}))
    judge = {
        "providerName": "openai",
        "modelName": "m",
        "baseURL": server.base_url,
        "apiKey": "sk-test-tty",
    }
    metrics = tmp_path / "tty.metrics.json"
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


@pytest.fixture()
def scripted(judge_server: JudgeServer) -> JudgeServer:
    judge_server.when(
        "Reference response", Reply(content="reasoning: ok\nis_the_agent_response_valid: valid")
    )
    judge_server.latency = 0.15
    return judge_server


def test_progress_and_tables_in_a_terminal(scripted: JudgeServer, tmp_path: Path) -> None:
    evalset, metrics = suite(tmp_path, scripted)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CI", "COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "agenteval",
            "run",
            "--evalset",
            str(evalset),
            "--metrics",
            str(metrics),
            "--no-cache",
            "--concurrency",
            "2",
        ],
        env=env,
        dimensions=(40, WIDTH),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = ANSI.sub("", child.before.replace("\r", "\n"))
    assert re.search(r"scoring .*\d+/12 cases", screen), screen[-2000:]
    assert "judge " in screen and "calls" in screen
    lines = screen.splitlines()
    assert any(line.strip().startswith("metric") and "threshold" in line for line in lines)
    assert max(len(line) for line in lines if line.strip()) <= WIDTH
    assert "PASSED: 12 of 12 cases passed" in screen


def test_no_progress_without_a_terminal(scripted: JudgeServer, tmp_path: Path) -> None:
    evalset, metrics = suite(tmp_path, scripted, cases=4)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agenteval",
            "run",
            "--evalset",
            str(evalset),
            "--metrics",
            str(metrics),
            "--no-cache",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "scoring" not in proc.stdout and "\x1b[" not in proc.stdout
    assert "PASSED: 4 of 4 cases passed" in proc.stdout


def test_no_progress_flag_in_a_terminal(scripted: JudgeServer, tmp_path: Path) -> None:
    evalset, metrics = suite(tmp_path, scripted, cases=4)
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "agenteval",
            "run",
            "--evalset",
            str(evalset),
            "--metrics",
            str(metrics),
            "--no-cache",
            "--no-progress",
        ],
        dimensions=(40, WIDTH),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "scoring" not in ANSI.sub("", child.before)
