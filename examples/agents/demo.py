#!/usr/bin/env python3
"""`make demo`'s agent part: drive the example agent through evalsets/agent/ without network.

The simulated user and the rubric metric need an LLM; here the loopback fake judge of the
tests (tests/judge_server.py) plays it with scripted replies, exactly as the README shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from judge_server import JudgeServer, Reply  # noqa: E402

RUBRICS = (
    '{"rubricScores": [{"id": "answers_question", "score": 1, "reason": "It answers."}, '
    '{"id": "states_units", "score": 1, "reason": "Plain numbers."}]}'
)


def main() -> int:
    """Run the demo; the exit code is agenteval's."""
    with JudgeServer() as judge:
        judge.when("You are the grader of an AI agent", Reply(content=RUBRICS))
        # The simulated user: ask for the sum, then stop once the agent gave it.
        judge.when("calc result: 5", Reply(content="</finished>"))
        judge.when("You play a human user", Reply(content="calc add 2 3"))
        env = {
            **os.environ,
            "JUDGE_MODEL_NAME": "fake-judge",
            "JUDGE_MODEL_API_KEY": "sk-anything",
            "JUDGE_MODEL_BASE_URL": judge.base_url,
        }
        command = [
            sys.executable, "-m", "agenteval", "run",
            "--evalset", "evalsets/agent/",
            "--agent", "cmd:examples/agents/calculator_agent.py",
            "--output", "output/", "--app", "demo-agent", "--no-cache",
        ]  # fmt: skip
        return subprocess.run(command, cwd=REPO, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
