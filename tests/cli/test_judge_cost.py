"""Judge cost in money, end to end: ``--prices``, ``--max-judge-cost``, cost per run, set, metric, case.

The loopback judge reports fixed token counts; the expected dollars are those
counts × the ``--prices`` file's prices, worked out by hand in each test.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli.store_workspace import in_process
from cli_process import run_cli
from judge_server import JudgeServer, Reply
from trace_cases import trace_case

VALID = "reasoning: same answer\nis_the_agent_response_valid: valid"
# 1000 prompt + 100 completion tokens at $3 / $15 per million: $0.0045 a call.
PER_CALL = (1000 * 3 + 100 * 15) / 1_000_000


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180)


def write_set(
    directory: Path, eval_set_id: str, base_url: str, eval_ids: tuple[str, ...], model: str
) -> Path:
    """Trace-mode cases, a judge metric on the final answer in ``<evalSetId>.metrics.json``
    beside them; the eval set file."""
    cases = []
    for eval_id in eval_ids:
        turn = {
            "userContent": {"role": "user", "content": f"weather in {eval_id}?"},
            "finalResponse": {"role": "assistant", "content": "sunny"},
        }
        cases.append(trace_case(eval_id, turn))
    directory.mkdir(parents=True, exist_ok=True)
    evalset = directory / f"{eval_set_id}.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": eval_set_id, "evalCases": cases}))
    judge = {"providerName": "openai", "modelName": model, "baseURL": base_url, "apiKey": "sk-x"}
    metrics = directory / f"{eval_set_id}.metrics.json"
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
    return evalset


def write_prices(tmp_path: Path) -> Path:
    """A ``--prices`` file pricing ``openai:m`` only."""
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"openai:m": {"inputPerMillion": 3, "outputPerMillion": 15}}))
    return prices


def write_suite(
    tmp_path: Path, base_url: str, eval_ids: tuple[str, ...], model: str = "m"
) -> list[str]:
    """Trace-mode cases, two judge metrics on the final answer; the ``run`` input arguments."""
    evalset = write_set(tmp_path, "weather", base_url, eval_ids, model)
    metrics = tmp_path / "weather.metrics.json"
    prices = write_prices(tmp_path)
    return ["--evalset", str(evalset), "--metrics", str(metrics), "--prices", str(prices)]


def flat(text: str) -> str:
    """Console output with its line wrapping undone."""
    return " ".join(text.split())


def only_result(directory: Path) -> dict[str, Any]:
    (path,) = directory.glob("*.evalset_result.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@pytest.fixture
def server(judge_server: JudgeServer) -> JudgeServer:
    judge_server.default = Reply(content=VALID, prompt_tokens=1000, completion_tokens=100)
    return judge_server


def test_judge_cost_is_tokens_times_prices_everywhere(server: JudgeServer, tmp_path: Path) -> None:
    args = write_suite(tmp_path, server.base_url, ("lyon", "nice", "oslo"))
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    first = cli(
        "run",
        *args,
        *cache,
        "--output",
        str(tmp_path / "out"),
        "--json",
        str(tmp_path / "run.json"),
    )
    assert first.returncode == 0, first.stdout + first.stderr
    assert server.count == 3
    # The eval set summary line: 3 calls at $0.0045.
    assert "3 calls, 0 from cache" in first.stdout
    assert "3,000 prompt + 300 completion tokens · $0.0135 " in flat(first.stdout)
    assert "costliest cases: lyon $0.0045, nice $0.0045, oslo $0.0045" in flat(first.stdout)
    result = only_result(tmp_path / "out")
    assert result["judgeUsage"]["total"]["costUsd"] == pytest.approx(3 * PER_CALL, rel=1e-12)
    metric = result["judgeUsage"]["byMetric"]["llm_final_response"]
    assert metric["costUsd"] == pytest.approx(3 * PER_CALL, rel=1e-12)
    for case in result["evalCaseResults"]:
        assert case["judgeUsage"]["calls"] == 1
        assert case["judgeUsage"]["costUsd"] == pytest.approx(PER_CALL, rel=1e-12)
    document = json.loads((tmp_path / "run.json").read_text())
    assert document["judgeUsage"]["total"]["costUsd"] == pytest.approx(3 * PER_CALL, rel=1e-12)
    # The same run answered from the cache costs nothing, and says the calls were cache hits.
    again = cli("run", *args, *cache, "--output", str(tmp_path / "again"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert server.count == 3
    assert "judge: 0 calls, 3 from cache, 0 retries, 0 prompt + 0 completion tokens · $0 " in flat(
        again.stdout
    )
    total = only_result(tmp_path / "again")["judgeUsage"]["total"]
    assert (total["costUsd"], total["calls"], total["cacheHits"]) == (0.0, 0, 3)


def test_an_unpriced_model_says_it_has_no_price(server: JudgeServer, tmp_path: Path) -> None:
    args = write_suite(tmp_path, server.base_url, ("lyon",), model="house-model")
    run = cli("run", *args, "--no-cache", "--output", str(tmp_path / "out"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cost unknown: no price for 1 call (openai:house-model)" in flat(run.stdout)
    total = only_result(tmp_path / "out")["judgeUsage"]["total"]
    assert (total["costUsd"], total["unpricedCalls"], total["unpricedModels"]) == (
        0.0,
        1,
        ["openai:house-model"],
    )


def test_the_cost_by_metric_and_costliest_cases_say_the_calls_without_a_price(
    server: JudgeServer, tmp_path: Path
) -> None:
    # "critic" judges with a model the prices do not name: every case cost $0.0045 and a
    # call of unknown cost.  The console said "costliest cases: lyon $0.0045, nice
    # $0.0045", a partial sum as the whole, and no cost by metric (one metric had dollars).
    args = write_suite(tmp_path, server.base_url, ("lyon", "nice"))
    metrics = tmp_path / "weather.metrics.json"
    defined = json.loads(metrics.read_text())
    judge = {**defined[0]["criterion"]["llmJudge"]["judgeModel"], "modelName": "house-model"}
    critic = {"metricName": "critic", "evaluatorName": "llm_final_response", "threshold": 1}
    defined.append({**critic, "criterion": {"llmJudge": {"judgeModel": judge}}})
    metrics.write_text(json.dumps(defined))
    run = cli("run", *args, "--no-cache")
    assert run.returncode == 0, run.stdout + run.stderr
    shown = flat(run.stdout)
    assert (
        "judge cost by metric: llm_final_response $0.009 · critic cost unknown: no price for "
        "2 calls (openai:house-model) (give --prices FILE)"
    ) in shown
    each = "$0.0045 + 1 call without a price (openai:house-model)"
    assert f"costliest cases: lyon {each}, nice {each}" in shown


def test_max_judge_cost_stops_within_one_call_of_the_bound(
    server: JudgeServer, tmp_path: Path
) -> None:
    ids = tuple(f"city{i}" for i in range(8))
    args = write_suite(tmp_path, server.base_url, ids)
    bound = 2.5 * PER_CALL  # room for 2 calls; the third starts below the bound and ends above
    run = cli(
        "run", *args, "--no-cache", "--max-judge-cost", repr(bound), "--concurrency", "4",
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 3, run.stdout + run.stderr
    assert server.count == 3
    result = only_result(tmp_path / "out")
    spent = result["judgeUsage"]["total"]["costUsd"]
    assert bound <= spent <= bound + PER_CALL
    assert len(result["judgeFailures"]) == len(ids) - 3
    assert "max_judge_cost" in run.stdout + run.stderr


def test_max_judge_cost_bounds_a_cheap_and_a_dear_judge_model_each_at_its_own_cost(
    server: JudgeServer, tmp_path: Path
) -> None:
    # Two judge metrics on every case: one judged by openai:m ($0.0045 a call), one by
    # openai:dear at 100 times its prices ($0.45 a call) in 4 samples a turn, under a
    # bound of 1.5 dear calls at --concurrency 4.  Every call admitted reserved the run's
    # costliest call so far, a cheap one: once the cheap replies were priced, 24 dear
    # calls were admitted at $0.0045 each and went out 4 by 4, $10.84 for a $0.675
    # bound.  Each call now reserves its own model's costliest, and a model with no
    # priced reply yet starts alone.
    ids = tuple(f"city{i}" for i in range(8))
    args = write_suite(tmp_path, server.base_url, ids)
    metrics = json.loads((tmp_path / "weather.metrics.json").read_text())
    dear = json.loads(json.dumps(metrics[0]))
    dear["metricName"] = "dear_final_response"
    dear["evaluatorName"] = "llm_final_response"
    dear["criterion"]["llmJudge"]["judgeModel"].update(modelName="dear", numSamples=4)
    (tmp_path / "weather.metrics.json").write_text(json.dumps([*metrics, dear]))
    prices = {
        "openai:m": {"inputPerMillion": 3, "outputPerMillion": 15},
        "openai:dear": {"inputPerMillion": 300, "outputPerMillion": 1500},
    }
    (tmp_path / "prices.json").write_text(json.dumps(prices))
    server.latency = 0.2
    dear_call = 100 * PER_CALL
    bound = 1.5 * dear_call
    run = cli(
        "run", *args, "--no-cache", "--max-judge-cost", repr(bound), "--concurrency", "4",
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 3, run.stdout + run.stderr
    result = only_result(tmp_path / "out")
    spent = result["judgeUsage"]["total"]["costUsd"]
    assert bound <= spent <= bound + dear_call
    assert "max_judge_cost" in run.stdout + run.stderr


def test_max_judge_cost_refuses_a_judge_without_a_price(
    server: JudgeServer, tmp_path: Path
) -> None:
    args = write_suite(tmp_path, server.base_url, ("lyon",), model="house-model")
    run = cli("run", *args, "--no-cache", "--max-judge-cost", "1")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "no price for openai:house-model, so --max-judge-cost cannot count its calls" in flat(
        run.stderr
    )
    assert server.count == 0


def test_a_bad_prices_file_is_a_located_usage_error(server: JudgeServer, tmp_path: Path) -> None:
    args = write_suite(tmp_path, server.base_url, ("lyon",))
    (tmp_path / "prices.json").write_text(
        '{"openai:m": {"inputPerMillion": 3, "outputPerMilion": 1}}'
    )
    run = cli("run", *args, "--no-cache")
    assert run.returncode == 2, run.stdout + run.stderr
    assert (
        "prices.json: [\"openai:m\"].outputPerMilion: unknown key (did you mean 'outputPerMillion'?)"
        in flat(run.stderr)
    )
    assert server.count == 0


def test_max_judge_cost_counts_cached_tokens_without_a_price_at_the_input_price(
    server: JudgeServer, tmp_path: Path
) -> None:
    # Each reply says 400 of its 1000 prompt tokens came from the provider's cache, and the
    # --prices file has no cached price: the exact cost is unknown, its upper bound is all
    # 1000 tokens at the input price, i.e. PER_CALL.  Counting such replies as $0 would let
    # every call through.
    server.default = Reply(
        content=VALID, prompt_tokens=1000, completion_tokens=100, cached_tokens=400
    )
    ids = tuple(f"city{i}" for i in range(8))
    args = write_suite(tmp_path, server.base_url, ids)
    bound = 2.5 * PER_CALL
    run = cli(
        "run", *args, "--no-cache", "--max-judge-cost", repr(bound), "--concurrency", "4",
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 3, run.stdout + run.stderr
    assert server.count == 3  # 2 fit, the third starts below the bound and ends above it
    note = "--max-judge-cost counts its cached input tokens at the input price (an upper bound)"
    assert flat(run.stdout + run.stderr).count(note) == 1
    assert "openai:m: cached input tokens have no price in the table" in flat(run.stderr)
    result = only_result(tmp_path / "out")
    # The reports never guess: the replies stay unpriced there.
    total = result["judgeUsage"]["total"]
    assert (total["costUsd"], total["unpricedCalls"]) == (0.0, 3)
    assert len(result["judgeFailures"]) == len(ids) - 3


def test_max_judge_cost_stops_at_a_reply_whose_cost_has_no_bound(
    server: JudgeServer, tmp_path: Path
) -> None:
    # The price holds for prompts of at most 500 tokens; a 1000-token prompt has no known
    # price, not even an upper bound: no further call starts (exit 3), none counted as $0.
    ids = tuple(f"city{i}" for i in range(5))
    args = write_suite(tmp_path, server.base_url, ids)
    (tmp_path / "prices.json").write_text(
        json.dumps(
            {"openai:m": {"inputPerMillion": 3, "outputPerMillion": 15, "maxPromptTokens": 500}}
        )
    )
    run = cli(
        "run", *args, "--no-cache", "--max-judge-cost", "1", "--concurrency", "4",
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 3, run.stdout + run.stderr
    assert server.count == 1
    assert (
        "judge budget stopped: the cost of a reply could not be computed (openai:m: a prompt "
        "of 1000 tokens is beyond the 500 tokens its price holds for)"
    ) in flat(run.stdout + run.stderr)
    assert len(only_result(tmp_path / "out")["judgeFailures"]) == len(ids) - 1


def test_a_judge_reply_without_usage_is_never_counted_as_free(
    server: JudgeServer, tmp_path: Path
) -> None:
    # An OpenAI-compatible server that sends no usage block: the replies cost something,
    # but how much is unknown.  The run says so (even with -q) and --max-judge-cost stops
    # after the first reply instead of counting every call as $0.
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": VALID}}]}
    server.default = Reply(body=json.dumps(body).encode())
    ids = tuple(f"city{i}" for i in range(4))
    args = write_suite(tmp_path, server.base_url, ids)
    run = cli(
        "run", *args, "--no-cache", "-q", "--max-judge-cost", "1", "--concurrency", "1",
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 3, run.stdout + run.stderr
    assert server.count == 1
    assert (
        "warning: judge: openai:m: a reply reported no usable token usage: its tokens are not "
        "counted and its cost is unknown (no price can give it)"
    ) in flat(run.stderr)
    assert (
        "judge budget stopped: the cost of a reply could not be computed (openai:m: a reply "
        "reported no usable token usage), so max_judge_cost=1.0 USD could no longer be kept"
    ) in flat(run.stdout)
    result = only_result(tmp_path / "out")
    total = result["judgeUsage"]["total"]
    assert (total["calls"], total["costUsd"], total["unpricedCalls"]) == (1, 0.0, 1)
    assert len(result["judgeFailures"]) == len(ids) - 1


def store_url(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> str:
    """A fresh store of ``backend``: a SQLite file here, or the test PostgreSQL database."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path}/h.sqlite"
    return str(request.getfixturevalue("pg_url"))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_history_shows_the_judges_whole_cost_or_the_calls_without_a_price(
    server: JudgeServer, tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    url = store_url(tmp_path, backend, request)
    prices = write_prices(tmp_path)
    # One call at $0.0045; then eval sets of 2 priced calls ($0.009) and 2 without a price.
    write_set(tmp_path / "priced", "weather", server.base_url, ("lyon",), "m")
    write_set(tmp_path / "mixed", "weather", server.base_url, ("lyon", "nice"), "m")
    write_set(tmp_path / "mixed", "house", server.base_url, ("oslo", "rome"), "house-model")
    for name in ("priced", "mixed"):
        ran = in_process(
            "run", "--evalset", str(tmp_path / name), "--prices", str(prices), "--no-cache",
            "--store", url, "--json", str(tmp_path / f"{name}.json"), "-q", cwd=tmp_path,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stdout + ran.stderr
    assert server.count == 5
    listed = in_process("history", "--store", url, "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    mixed, priced = (row["judge"] for row in rows)
    assert priced == {
        "calls": 1, "cacheHits": 0, "retries": 0, "promptTokens": 1000, "completionTokens": 100,
        "costUsd": PER_CALL, "pricedCostUsd": PER_CALL, "unpricedCalls": 0, "unreportedCalls": 0,
        "unpricedModels": [],
    }  # fmt: skip
    # The run's own document says $0.009 of 4 calls, 2 without a price: not the run's cost.
    total = json.loads((tmp_path / "mixed.json").read_text())["judgeUsage"]["total"]
    assert (total["costUsd"], total["unpricedCalls"]) == (0.009, 2)
    assert mixed == {
        "calls": 4, "cacheHits": 0, "retries": 0, "promptTokens": 4000, "completionTokens": 400,
        "costUsd": None, "pricedCostUsd": 0.009, "unpricedCalls": 2, "unreportedCalls": 0,
        "unpricedModels": ["openai:house-model"],
    }  # fmt: skip
    table = in_process("history", "--store", url, cwd=tmp_path, env={"COLUMNS": "220"})
    assert table.returncode == 0, table.stderr
    mixed_line, priced_line = (
        next(line for line in table.stdout.splitlines() if line.strip().startswith(row["runId"]))
        for row in rows
    )
    # Was "$0.00" and "$0.01" (the priced part as the whole); the last column (no git here).
    assert priced_line.endswith(" 1 call · 1,100 tok · $0.0045")
    assert mixed_line.endswith(
        " 4 calls · 4,400 tok · $0.009 + 2 calls without a price (openai:house-model)"
    )


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_history_says_a_reply_without_usage_as_the_run_did(
    server: JudgeServer, tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    url = store_url(tmp_path, backend, request)
    # A priced model whose reply carries no usage: its cost is unknown, and --prices cannot help.
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": VALID}}]}
    server.default = Reply(body=json.dumps(body).encode())
    write_set(tmp_path / "suite", "weather", server.base_url, ("lyon",), "m")
    ran = in_process(
        "run", "--evalset", str(tmp_path / "suite"), "--prices", str(write_prices(tmp_path)),
        "--no-cache", "--store", url, cwd=tmp_path, env={"COLUMNS": "220"},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert server.count == 1
    said = "cost unknown: 1 call reported no token usage (openai:m)"
    assert said in flat(ran.stdout)
    listed = in_process("history", "--store", url, "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    [judge] = [row["judge"] for row in json.loads(listed.stdout)]
    assert (judge["calls"], judge["unpricedCalls"], judge["unreportedCalls"]) == (1, 1, 1)
    assert (judge["costUsd"], judge["pricedCostUsd"]) == (None, 0.0)
    table = in_process("history", "--store", url, cwd=tmp_path, env={"COLUMNS": "220"})
    assert table.returncode == 0, table.stderr
    # Was "no price for 1 call (openai:m) (give --prices FILE)", though openai:m has a price.
    assert f" 1 call · 0 tok · {said}" in flat(table.stdout)
    assert "--prices" not in table.stdout
