"""A judge provider added by a plugin file, named by a metric file, through the command line.

``tests/plugins/cohere_judge_provider.py`` registers ``providerName: "cohere"``
(Cohere's v2 Chat API, which agenteval does not ship); the loopback judge
speaks that wire format.  ``agenteval run --plugin`` scores with it over real
HTTP, a rerun answers from the cache whose keys name the provider, and
``validate`` checks the plugin provider's capabilities like a built-in's.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from agenteval.inputs.loading import load_result
from agenteval.judge import PreparedCall
from cli_process import run_cli
from judge_server import JudgeServer, Reply

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "cohere_judge_provider.py"
KEY = "co-test-plugin-provider-0123456789abcdef"
INVALID = Reply(content="reasoning: Lyon is not the capital\nis_the_agent_response_valid: invalid")


def agenteval(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180, env=env)


def msg(role: str, text: str) -> dict[str, str]:
    return {"role": role, "content": text}


def case(eval_id: str, answer: str) -> dict[str, Any]:
    question = msg("user", "What is the capital of France?")
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "actualConversation": [{"userContent": question, "finalResponse": msg("model", answer)}],
        "conversation": [{"userContent": question, "finalResponse": msg("model", "Paris")}],
        "sessionInput": {"appName": "app", "userId": "u"},
    }


def suite(tmp: Path, base_url: str, evaluator: str = "llm_final_response") -> tuple[Path, Path]:
    """An eval set of a right and a wrong answer, and one judge metric on ``cohere``."""
    judge_model: dict[str, Any] = {
        "providerName": "cohere",
        "modelName": "command-judge",
        "baseURL": base_url,
        "apiKey": "${COHERE_TEST_KEY}",
    }
    criterion: dict[str, Any] = {"judgeModel": judge_model}
    if evaluator == "llm_verifier_pairwise":
        judge_model["generationConfig"] = {"logprobs": True, "top_logprobs": 20}
        criterion["rubrics"] = [{"id": "accuracy", "content": {"text": "Prefer the accurate."}}]
    metric = {
        "metricName": "judged",
        "evaluatorName": evaluator,
        "threshold": 1,
        "criterion": {"llmJudge": criterion},
    }
    metrics = tmp / "cohere.metrics.json"
    metrics.write_text(json.dumps([metric]))
    sets = tmp / "capital.evalset.json"
    evalset = {"evalSetId": "capital", "evalCases": [case("right", "Paris"), case("wrong", "Lyon")]}
    sets.write_text(json.dumps(evalset))
    return metrics, sets


def test_plugin_provider_scores_through_run_and_caches_under_its_name(tmp_path: Path) -> None:
    env = dict(os.environ, COHERE_TEST_KEY=KEY)
    with JudgeServer(provider="cohere") as server:
        server.when("Lyon", INVALID)
        metrics, sets = suite(tmp_path, f"http://127.0.0.1:{server.port}")
        cache, out = tmp_path / "cache.sqlite", tmp_path / "out"
        args = ["--evalset", str(sets), "--metrics", str(metrics), "--plugin", str(PLUGIN)]
        args += ["--cache", str(cache)]

        first = agenteval("run", *args, "--output", str(out / "first"), env=env)
        assert first.returncode == 1, first.stdout + first.stderr
        assert server.count == 2 and "judge: 2 calls" in first.stdout
        requests = server.recorded()
        assert {r.path for r in requests} == {"/v2/chat"}
        assert {r.headers["authorization"] for r in requests} == {f"Bearer {KEY}"}
        assert all(r.body["model"] == "command-judge" for r in requests)

        again = agenteval("run", *args, "--output", str(out / "again"), env=env)
        assert again.returncode == 1, again.stdout + again.stderr
        assert server.count == 2 and "0 calls, 2 from cache" in again.stdout

    for run in ("first", "again"):
        (result_file,) = (out / run).glob("*.evalset_result.json")
        cases = {c.eval_id: c for c in load_result(result_file).case_results()}
        assert cases["right"].final_eval_status.value == "passed"
        assert cases["wrong"].final_eval_status.value == "failed"
        assert [m.score for m in cases["right"].overall_eval_metric_results or []] == [1.0]
        assert [m.score for m in cases["wrong"].overall_eval_metric_results or []] == [0.0]

    # The cache keys are those of cohere calls: the provider is part of each.
    endpoint = f"http://127.0.0.1:{server.port}/v2/chat"
    with sqlite3.connect(cache) as db:
        stored = {row[0] for row in db.execute("SELECT key FROM judge_replies")}
    cohere_keys = {
        PreparedCall(endpoint, "command-judge", r.body, 0, provider="cohere").cache_key()
        for r in requests
    }
    openai_keys = {PreparedCall(endpoint, "command-judge", r.body, 0).cache_key() for r in requests}
    assert stored == cohere_keys and not stored & openai_keys

    for proc in (first, again):
        assert KEY not in proc.stdout + proc.stderr
    for path in [*out.glob("*/*"), *tmp_path.glob("cache.sqlite*")]:
        assert KEY.encode() not in path.read_bytes()


def test_validate_knows_the_plugin_provider_and_its_capabilities(tmp_path: Path) -> None:
    metrics, sets = suite(tmp_path, "http://127.0.0.1:9")
    base = ["validate", "--evalset", str(sets), "--metrics", str(metrics)]
    unknown = agenteval(*base)
    assert unknown.returncode == 2, unknown.stdout + unknown.stderr
    assert "judgeModel.providerName: unknown provider: cohere" in unknown.stdout + unknown.stderr
    known = agenteval(*base, "--plugin", str(PLUGIN))
    assert known.returncode == 0, known.stdout + known.stderr

    metrics, sets = suite(tmp_path, "http://127.0.0.1:9", evaluator="llm_verifier_pairwise")
    lacking = agenteval(*base, "--plugin", str(PLUGIN))
    assert lacking.returncode == 2, lacking.stdout + lacking.stderr
    output = " ".join((lacking.stdout + lacking.stderr).split())
    assert (
        "criterion.llmJudge.judgeModel.providerName: metric 'judged' (llm_verifier_pairwise) "
        "needs token logprobs, which judge provider 'cohere' cannot return "
        "(judge it with a provider that has token logprobs: gemini, ollama, openai)"
    ) in output, output


def test_a_plugin_providers_negative_token_count_is_refused_not_subtracted(
    tmp_path: Path,
) -> None:
    # The test plugin passes the server's counts on as they are; a count of -5000 prompt
    # tokens would take 5000 tokens and their dollars off every total.  It is refused with
    # a warning: the call's usage, so its cost, is unknown, and the reports say why.
    env = dict(os.environ, COHERE_TEST_KEY=KEY)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"cohere:command-judge": {"inputPerMillion": 1000,
                                                           "outputPerMillion": 1000}}))  # fmt: skip
    with JudgeServer(provider="cohere") as server:
        server.default = Reply(prompt_tokens=-5000, completion_tokens=7)
        metrics, sets = suite(tmp_path, f"http://127.0.0.1:{server.port}")
        out = tmp_path / "out"
        run = agenteval(
            "run", "--evalset", str(sets), "--metrics", str(metrics), "--plugin", str(PLUGIN),
            "--no-cache", "--prices", str(prices), "--output", str(out), env=env,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    said = " ".join((run.stdout + run.stderr).split())
    assert (
        "warning: judge: cohere:command-judge: the judge backend reported impossible token "
        "usage (prompt -5000, completion 7, cached 0, cache writes 0), refused: its tokens are "
        "not counted and its cost is unknown (no price can give it)"
    ) in said, said
    assert said.count("reported impossible token usage") == 1  # once per model
    assert (
        "judge: 2 calls, 0 from cache, 0 retries, 0 prompt + 0 completion tokens · "
        "cost unknown: 2 calls reported no token usage (cohere:command-judge)"
    ) in said, said
    (result_file,) = out.glob("*.evalset_result.json")
    total = json.loads(result_file.read_text())["judgeUsage"]["total"]
    assert (total["promptTokens"], total["completionTokens"], total["costUsd"]) == (0, 0, 0.0)
    assert (total["unpricedCalls"], total["unreportedCalls"]) == (2, 2)
