"""A project with an eval set, a metric file, per-run traces and a git history, for store CLI tests.

The eval set ``suite`` has three cases whose actual turns come from ``--traces``:

* ``steady`` — four turns, always right (its fourth answer ends with " Thanks!": the
  ``quality`` metric's ``contains`` match takes it, an ``exact`` match does not);
* ``broken`` — calls its tool with the wrong argument every run;
* ``flappy`` — right, except every third run (wrong argument).

Metrics: ``tool_trajectory_avg_score`` (threshold 1) and ``quality`` (final response
text, threshold 0.5; ``contains`` until :meth:`Workspace.tighten_quality` makes it
``exact``, which drops steady's quality from 1 to 0.75 while it still passes).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

from agenteval.cli import app
from cli_process import run_cli

REPO = Path(__file__).resolve().parents[2]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_SYSTEM": "/dev/null",
}
# CI variables of the machine running the tests must not leak into the recorded runs.
_CI_VARIABLES = (
    "GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL",
    "GITHUB_HEAD_REF", "GITHUB_REF_NAME", "GITHUB_REF_TYPE", "GITHUB_SHA", "CI_JOB_URL",
    "CI_COMMIT_SHA", "CI_COMMIT_BRANCH", "BUILD_URL", "BUILDKITE_BUILD_URL", "CIRCLE_BUILD_URL",
    "AGENTEVAL_STORE", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT",
)  # fmt: skip
QUESTIONS = ["Where is my order?", "When does it ship?", "Can I change it?", "Anything else?"]
ANSWERS = ["It is packed.", "It ships today.", "Yes, until noon.", "No, that is all."]


def clean_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test process's environment without CI variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in _CI_VARIABLES}
    env.update(GIT_ENV)
    env.update({"COLUMNS": "200", "NO_COLOR": "1"})  # whole lines, whatever the terminal
    env.update(extra or {})
    return env


def _turn(question: str, answer: str, arg: int | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "userContent": {"role": "user", "content": question},
        "finalResponse": {"role": "assistant", "content": answer},
    }
    if arg is not None:
        turn["tools"] = [{"name": "lookup", "arguments": {"order": arg}}]
    return turn


class Workspace:
    """The project directory (a git repository) and its files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.evalset = root / "suite.evalset.json"
        self.metrics = root / "suite.metrics.json"
        self.traces = root / "traces.jsonl"
        self._write_evalset()
        self._write_metrics("contains")
        self.git("init", "-q", "-b", "main")
        self.write_traces(1)
        self.commit("eval set and metrics")

    def git(self, *args: str) -> str:
        """Run git in the project."""
        return subprocess.run(
            ["git", *args],
            cwd=self.root,
            env=clean_environment(),
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    def commit(self, message: str) -> str:
        """Commit everything; returns the new commit's hash."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def _write_evalset(self) -> None:
        steady = [
            _turn(q, a, 1 if i == 0 else None)
            for i, (q, a) in enumerate(zip(QUESTIONS, ANSWERS, strict=True))
        ]
        cases = [
            {"evalId": "steady", "conversation": steady},
            {"evalId": "broken", "conversation": [_turn(QUESTIONS[0], ANSWERS[0], 2)]},
            {"evalId": "flappy", "conversation": [_turn(QUESTIONS[0], ANSWERS[0], 3)]},
        ]
        for case in cases:
            case["sessionInput"] = {"userId": "u"}
        self.evalset.write_text(json.dumps({"evalSetId": "suite", "evalCases": cases}))

    def _write_metrics(self, strategy: str) -> None:
        self.metrics.write_text(
            json.dumps(
                [
                    {"metricName": "tool_trajectory_avg_score", "threshold": 1},
                    {
                        "metricName": "quality",
                        "evaluatorName": "final_response_avg_score",
                        "threshold": 0.5,
                        "criterion": {"finalResponse": {"text": {"matchStrategy": strategy}}},
                    },
                ]
            )
        )

    def tighten_quality(self) -> None:
        """The config change: ``quality`` matches exactly from now on."""
        self._write_metrics("exact")

    def write_traces(self, run: int, *, flappy_fails: bool | None = None) -> None:
        """The agent's turns of run ``run`` (flappy fails every third run unless told)."""
        fails = run % 3 == 0 if flappy_fails is None else flappy_fails
        steady = [
            _turn(q, a + (" Thanks!" if i == 3 else ""), 1 if i == 0 else None)
            for i, (q, a) in enumerate(zip(QUESTIONS, ANSWERS, strict=True))
        ]
        rows = [
            {"evalId": "steady", "actualConversation": steady},
            {"evalId": "broken", "actualConversation": [_turn(QUESTIONS[0], ANSWERS[0], 99)]},
            {
                "evalId": "flappy",
                "actualConversation": [_turn(QUESTIONS[0], ANSWERS[0], 98 if fails else 3)],
            },
        ]
        self.traces.write_text("".join(json.dumps(row) + "\n" for row in rows))

    def run_args(self, *extra: str) -> list[str]:
        """``run`` over the project's files."""
        return [
            "run",
            "--evalset",
            str(self.evalset),
            "--traces",
            str(self.traces),
            "--no-progress",
            *extra,
        ]


def write_big_suite(root: Path, cases: int, eval_set_id: str = "big") -> Path:
    """An eval set of ``cases`` trace-mode cases (every fifth one fails) and its metric file."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{eval_set_id}.evalset.json"
    with path.open("w", encoding="utf-8") as out:
        out.write(f'{{"evalSetId": "{eval_set_id}", "evalCases": [')
        for index in range(cases):
            expected = [_turn(QUESTIONS[0], ANSWERS[0], index)]
            actual = [_turn(QUESTIONS[0], ANSWERS[0], index + (index % 5 == 0))]
            case = {
                "evalId": f"case-{index:06d}",
                "evalMode": "trace",
                "conversation": expected,
                "actualConversation": actual,
                "sessionInput": {"userId": "u"},
            }
            out.write(("," if index else "") + json.dumps(case))
        out.write("]}")
    (root / f"{eval_set_id}.metrics.json").write_text(
        json.dumps([{"metricName": "tool_trajectory_avg_score", "threshold": 1}])
    )
    return path


def write_judged_suite(root: Path, base_url: str) -> Path:
    """One case scored by a judge (``llm_final_response`` at ``base_url``, key from the env)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "judged.evalset.json"
    case = {
        "evalId": "judged",
        "evalMode": "trace",
        "conversation": [_turn(QUESTIONS[0], ANSWERS[0])],
        "actualConversation": [_turn(QUESTIONS[0], ANSWERS[0])],
        "sessionInput": {"userId": "u"},
    }
    path.write_text(json.dumps({"evalSetId": "judged", "evalCases": [case]}))
    judge = {
        "providerName": "openai",
        "modelName": "judge-1",
        "baseURL": base_url,
        "apiKey": "${JUDGE_MODEL_API_KEY}",
    }
    (root / "judged.metrics.json").write_text(
        json.dumps(
            [
                {
                    "metricName": "judged_answer",
                    "evaluatorName": "llm_final_response",
                    "threshold": 1,
                    "criterion": {"llmJudge": {"judgeModel": judge}},
                }
            ]
        )
    )
    return path


def invoke(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """``agenteval ARGS`` in this process (seconds faster than a child), run in ``root``.

    CI variables of the test machine are hidden; ``env`` adds variables.
    """
    hidden: dict[str, str | None] = dict.fromkeys(_CI_VARIABLES)
    # Wide and plain, whatever the worker's terminal: the tests read whole lines.
    hidden.update({"COLUMNS": "200", "NO_COLOR": "1"})
    hidden.update(env or {})
    before = Path.cwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(app, list(args), env=hidden, catch_exceptions=False)
    finally:
        os.chdir(before)


@dataclass(frozen=True, slots=True)
class Ran:
    """What a command did: exit code, standard output, standard error."""

    returncode: int
    stdout: str
    stderr: str


def in_process(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Ran:
    """:func:`invoke` with :func:`agenteval`'s signature and result shape."""
    result = invoke(cwd, *args, env=env)
    return Ran(result.exit_code, result.stdout, result.stderr)


def agenteval(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process, in ``cwd``, with a clean environment."""
    return run_cli(args, cwd=cwd, env=clean_environment(env), timeout=timeout)


__all__ = [
    "REPO",
    "Workspace",
    "agenteval",
    "clean_environment",
    "in_process",
    "invoke",
    "write_big_suite",
    "write_judged_suite",
]
