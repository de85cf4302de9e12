"""Judge metrics through the CLI against the loopback judge: fixture verdicts, cache, offline, secrets."""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest

from agenteval.inputs.loading import load_result
from cli_process import run_cli as forked_cli
from judge_server import JudgeServer, Reply
from trpc_fixtures import replay_evalset


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return forked_cli(["run", *args], timeout=180, env=env)


@pytest.fixture()
def api_key() -> str:
    return f"sk-test-{secrets.token_hex(16)}"


def judge_env(server: JudgeServer, api_key: str) -> dict[str, str]:
    return dict(os.environ, JUDGE_MODEL_BASE_URL=server.base_url, JUDGE_MODEL_API_KEY=api_key)


def valid_verdict() -> Reply:
    return Reply(
        content=(
            "reasoning: The agent states the same profit of 16,449.40 dollars as the reference.\n"
            "is_the_agent_response_valid: valid"
        )
    )


def test_final_response_fixture_cache_offline_and_secrets(
    judge_server: JudgeServer, api_key: str, tmp_path: Path
) -> None:
    """llm/finalresponse reproduces the stored verdict; a rerun is free; --offline misses exit 3; no key leaks."""
    evalset, metrics, stored = replay_evalset("llm/finalresponse", tmp_path)
    judge_server.when("Reference response", valid_verdict())
    env = judge_env(judge_server, api_key)
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "out"
    base = [
        "--evalset",
        str(evalset),
        "--metrics",
        str(metrics),
        "--cache",
        str(cache),
        "--output",
        str(out),
    ]

    first = run_cli(*base, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert judge_server.count == 3  # numSamples 3
    body = judge_server.bodies()[0]
    assert body["model"] == "deepseek-chat" and body["temperature"] == 1.0
    headers = {k.lower(): v for k, v in judge_server.recorded()[0].headers.items()}
    assert headers["authorization"] == f"Bearer {api_key}"
    (result_file,) = out.glob("*.evalset_result.json")
    ours = load_result(result_file).case_results()[0]
    theirs = stored["evalCaseResults"][0]
    assert ours.final_eval_status.value == theirs["finalEvalStatus"] == "passed"
    overall = (ours.overall_eval_metric_results or [])[0]
    stored_overall = theirs["overallEvalMetricResults"][0]
    assert (overall.score, overall.eval_status.value) == (
        stored_overall["score"],
        stored_overall["evalStatus"],
    )
    turn = ((ours.eval_metric_result_per_invocation or [])[0].eval_metric_results or [])[0]
    stored_turn = theirs["evalMetricResultPerInvocation"][0]["evalMetricResults"][0]
    assert (turn.score, turn.eval_status.value) == (stored_turn["score"], stored_turn["evalStatus"])
    assert "judge: 3 calls" in first.stdout

    second = run_cli(*base, env=env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert judge_server.count == 3  # every reply came from the cache
    assert "0 calls, 3 from cache" in second.stdout

    offline = run_cli(
        *base[:4],
        "--cache",
        str(tmp_path / "empty.sqlite"),
        "--offline",
        "--output",
        str(out),
        env=env,
    )
    assert offline.returncode == 3, offline.stdout + offline.stderr
    assert judge_server.count == 3
    assert "not_evaluated" in offline.stdout or "NOT EVALUATED" in offline.stdout.upper()
    assert "offline: no cached judge reply" in offline.stdout
    assert "INCOMPLETE" in offline.stdout

    leaked = [
        name
        for name, text in (
            ("stdout", first.stdout + second.stdout + offline.stdout),
            ("stderr", first.stderr + second.stderr + offline.stderr),
        )
        if api_key in text
    ]
    for path in [*out.iterdir(), *tmp_path.glob("*.sqlite*")]:
        if api_key.encode() in path.read_bytes():
            leaked.append(str(path))
    assert not leaked


def test_unreachable_judge_exits_3_with_partial_results(api_key: str, tmp_path: Path) -> None:
    """A judge that cannot be reached after retries: turns not_evaluated, result still written, exit 3."""
    evalset, metrics, _ = replay_evalset("llm/finalresponse", tmp_path)
    env = dict(
        os.environ, JUDGE_MODEL_BASE_URL="http://127.0.0.1:9/v1", JUDGE_MODEL_API_KEY=api_key
    )
    out = tmp_path / "out"
    proc = run_cli(
        "--evalset",
        str(evalset),
        "--metrics",
        str(metrics),
        "--no-cache",
        "--judge-retries",
        "1",
        "--output",
        str(out),
        env=env,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (result_file,) = out.glob("*.evalset_result.json")
    case = load_result(result_file).case_results()[0]
    assert case.final_eval_status.value == "not_evaluated"
    # The reason says what happened (nothing listens there), never "timed out".
    assert "last error: connection refused" in proc.stdout, proc.stdout
    assert "timed out" not in proc.stdout + result_file.read_text()
    assert api_key not in proc.stdout + proc.stderr + result_file.read_text()
    assert "Traceback" not in proc.stderr
