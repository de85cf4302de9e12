"""``agenteval run`` with a trpc-agent-go metric file judged by each provider, over the CLI.

The llm/finalresponse example's metric file, with ``providerName`` set to each
provider and the key given through ``${VAR}`` expansion: the stored verdict
is reproduced, a rerun is answered from the cache with zero requests,
``--offline`` answers from that cache (and reports a miss on an empty one),
and neither the key nor, for hunyuan, either half of ``SecretId:SecretKey``
appears in any output, result file or cache.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path

import pytest

from agenteval.judge.providers.tc3 import ALGORITHM
from cli_process import run_cli as forked_cli
from judge_server import JudgeServer, Reply
from trpc_fixtures import replay_evalset

VERDICT = Reply(
    content=(
        "reasoning: The agent states the same profit of 16,449.40 dollars as the reference.\n"
        "is_the_agent_response_valid: valid"
    )
)
AUTH_HEADER = {
    "openai": "authorization",
    "anthropic": "x-api-key",
    "gemini": "x-goog-api-key",
    "ollama": "authorization",
    "hunyuan": "authorization",
}


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return forked_cli(["run", *args], timeout=180, env=env)


@pytest.mark.parametrize("provider", list(AUTH_HEADER))
def test_metric_file_judged_by_each_provider(provider: str, tmp_path: Path) -> None:
    secret_id = f"AKID{secrets.token_hex(12)}"
    secret = f"sk-test-{secrets.token_hex(16)}"
    api_key = f"{secret_id}:{secret}" if provider == "hunyuan" else secret
    evalset, stock_metrics, _ = replay_evalset("llm/finalresponse", tmp_path)
    metrics = json.loads(stock_metrics.read_text())
    metrics[0]["criterion"]["llmJudge"]["judgeModel"]["providerName"] = provider
    metrics_path = tmp_path / "judge.metrics.json"
    metrics_path.write_text(json.dumps(metrics))
    with JudgeServer(provider=provider, tc3_keys={secret_id: secret}) as server:
        server.when("Reference response", VERDICT)
        env = dict(os.environ, JUDGE_MODEL_BASE_URL=server.base_url, JUDGE_MODEL_API_KEY=api_key)
        cache = tmp_path / "cache.sqlite"
        out = tmp_path / "out"
        base = ["--evalset", str(evalset), "--metrics", str(metrics_path), "--output", str(out)]

        first = run_cli(*base, "--cache", str(cache), env=env)
        assert first.returncode == 0, first.stdout + first.stderr
        assert server.count == 3 and "judge: 3 calls" in first.stdout
        header = server.recorded()[0].headers[AUTH_HEADER[provider]]
        if provider == "hunyuan":
            assert header.startswith(f"{ALGORITHM} Credential={secret_id}/")
        else:
            assert secret in header

        again = run_cli(*base, "--cache", str(cache), env=env)
        assert again.returncode == 0, again.stdout + again.stderr
        assert server.count == 3 and "0 calls, 3 from cache" in again.stdout

        offline = run_cli(*base, "--cache", str(cache), "--offline", env=env)
        assert offline.returncode == 0, offline.stdout + offline.stderr
        missing = run_cli(*base, "--cache", str(tmp_path / "empty.sqlite"), "--offline", env=env)
        assert missing.returncode == 3, missing.stdout + missing.stderr
        assert "offline: no cached judge reply" in missing.stdout
        assert server.count == 3

    texts = [r.stdout + r.stderr for r in (first, again, offline, missing)]
    files = [p.read_bytes() for p in [*out.iterdir(), *tmp_path.glob("*.sqlite*")]]
    for part in {api_key, secret, secret_id}:
        assert not [t for t in texts if part in t]
        assert not [f for f in files if part.encode() in f]
