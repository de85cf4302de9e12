"""A key in a judge's ``baseURL`` never reaches a file or the terminal (issue 21 item 9).

Some endpoints take the key in the query (``?key=${…}``), gateways in the path; before,
the expanded URL was copied into every result file and run document (only the console
hid it), and a URL with ``user:password@`` passed ``validate`` and ended in an internal
error.  Every written file (result files, run document, JUnit, Markdown, HTML, the judge
cache) and stdout/stderr are searched for the expanded secrets, the API key included.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path

import pytest

from cli_process import run_cli
from judge_server import JudgeServer, Reply


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180, env={**os.environ, "NO_COLOR": "1", **env})


def write_suite(tmp_path: Path, base_url: str) -> tuple[Path, Path]:
    turn = {
        "userContent": {"role": "user", "content": "What is 2 + 2?"},
        "finalResponse": {"role": "assistant", "content": "4"},
    }
    case = {
        "evalId": "sum",
        "evalMode": "trace",
        "conversation": [turn],
        "actualConversation": [turn],
        "sessionInput": {"appName": "a", "userId": "u"},
    }
    evalset = tmp_path / "qa.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "qa", "evalCases": [case]}))
    judge = {
        "providerName": "openai",
        "modelName": "loopback-judge",
        "baseURL": base_url,
        "apiKey": "${JUDGE_KEY}",
    }
    metrics = tmp_path / "qa.metrics.json"
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


def leaks(
    secret_values: list[str], root: Path, procs: list[subprocess.CompletedProcess[str]]
) -> list[str]:
    """Where any of ``secret_values`` occurs: written files (bytes) and the processes' output."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.name}: {s[:6]}…" for s in secret_values if s.encode() in data]
    for index, proc in enumerate(procs):
        for stream, text in (("stdout", proc.stdout), ("stderr", proc.stderr)):
            found += [f"run {index} {stream}: {s[:6]}…" for s in secret_values if s in text]
    return found


def reports(out: Path) -> list[str]:
    return [
        "-o", str(out / "results"), "--json", str(out / "run.json"),
        "--junit", str(out / "junit.xml"), "--markdown", str(out / "summary.md"),
        "--html", str(out / "report.html"), "--cache", str(out / "cache.sqlite"),
    ]  # fmt: skip


def test_a_key_in_the_query_or_path_of_base_url_is_in_no_file_and_no_output(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    url_key, path_key, api_key = (f"s3cr3t{secrets.token_hex(12)}" for _ in range(3))
    env = {"URL_KEY": url_key, "PATH_KEY": path_key, "JUDGE_KEY": api_key}
    out = tmp_path / "out"
    out.mkdir()
    # The judge answers (and is cached) with the key in the query; it even echoes the key.
    judge_server.default = Reply(
        content=f"reasoning: matches (your key {url_key} works)\nis_the_agent_response_valid: valid"
    )
    query_url = f"{judge_server.base_url}/chat/completions?key=${{URL_KEY}}#"
    evalset, metrics = write_suite(tmp_path, query_url)
    first = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), *reports(out), env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert judge_server.recorded()[0].path == "/v1/chat/completions"  # the key was sent
    document = json.loads((out / "run.json").read_text())
    (metric,) = document["evalSetResults"][0]["evalCaseResults"][0]["overallEvalMetricResults"]
    shown = metric["criterion"]["llmJudge"]["judgeModel"]["baseURL"]
    assert shown == f"{judge_server.base_url}/chat/completions?key=***#"
    # Again from the cache: the key rotated, the cache still answers.
    cached = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), *reports(out),
        env={**env, "URL_KEY": "rotated-" + url_key[::-1]},
    )  # fmt: skip
    assert cached.returncode == 0, cached.stdout + cached.stderr
    assert judge_server.count == 1
    # A key in the path: the judge refuses the path and quotes it in its error.
    evalset, metrics = write_suite(tmp_path, f"{judge_server.base_url}/${{PATH_KEY}}")
    second = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), *reports(out), env=env
    )
    assert second.returncode == 3, second.stdout + second.stderr
    assert f"at {judge_server.base_url}/***/chat/completions" in second.stdout
    assert "POST /v1/***/chat/completions" in second.stdout
    assert leaks([url_key, path_key, api_key], out, [first, cached, second]) == []


@pytest.mark.parametrize("command", ["validate", "run"])
def test_credentials_in_a_base_url_are_a_located_config_error(tmp_path: Path, command: str) -> None:
    password = f"pw{secrets.token_hex(8)}"
    evalset, metrics = write_suite(tmp_path, "http://judge:${JUDGE_PASSWORD}@127.0.0.1:9/v1")
    proc = cli(
        command, "--evalset", str(evalset), "--metrics", str(metrics),
        env={"JUDGE_PASSWORD": password, "JUDGE_KEY": "sk-x"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(
        f"error: {metrics}: [0].criterion.llmJudge.judgeModel.baseURL: the base URL holds "
        "credentials (user:password@host), which would be sent and shown (remove them from "
        'baseURL; the key goes in "apiKey" (e.g. "${JUDGE_MODEL_API_KEY}"), which is never '
        "written)\n"
    )
    assert password not in proc.stdout + proc.stderr
    assert "internal error" not in proc.stderr
