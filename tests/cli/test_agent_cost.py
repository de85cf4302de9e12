"""What the agent under test spent, end to end: its own line per run, eval set and case.

The turns carry usage (agenteval's ``usage`` key on trace turns, as the ``cmd:``
protocol, AG-UI, OTLP, ADK and trpc-agent-go inputs fill it in); the agent's model
``acme:agent-1`` is priced only by the ``--prices`` file (or the project config's
``prices``), so every dollar below is tokens × that file's prices, worked out with
``Decimal``.
"""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

from cli_process import run_cli

MODEL = "acme:agent-1"
INPUT, OUTPUT = Decimal("0.15"), Decimal("0.6")  # USD per million tokens, in the --prices file
# Per case: turns of (input tokens, output tokens, model calls).
TURNS = {
    "refund": [(1200, 300, 2), (800, 100, 1)],
    "status": [(5000, 700, 3)],
}


def cost(turns: list[tuple[int, int, int]]) -> Decimal:
    """Tokens × the file's prices, exactly."""
    return sum((i * INPUT + o * OUTPUT for i, o, _ in turns), start=Decimal(0)) / Decimal(1_000_000)


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180, cwd=cwd)


def flat(text: str) -> str:
    """Console output with its line wrapping undone."""
    return " ".join(text.split())


def write_usage_suite(tmp_path: Path, metrics: list[dict[str, Any]], model: str = MODEL) -> Path:
    """The eval set (trace mode, usage on every actual turn), its metrics and the prices file."""
    cases = []
    for eval_id, turns in TURNS.items():
        conversation = []
        for index, (inp, out, calls) in enumerate(turns):
            usage = {"inputTokens": inp, "outputTokens": out, "inferenceCalls": calls}
            conversation.append(
                {
                    "invocationId": f"{eval_id}-{index}",
                    "userContent": {"role": "user", "content": f"question {index}"},
                    "finalResponse": {"role": "assistant", "content": "done"},
                    "usage": {**usage, "model": model},
                }
            )
        cases.append(
            {
                "evalId": eval_id,
                "evalMode": "trace",
                "sessionInput": {"appName": "shop", "userId": "u"},
                "conversation": [
                    {k: v for k, v in turn.items() if k != "usage"} for turn in conversation
                ],
                "actualConversation": conversation,
            }
        )
    (tmp_path / "shop.evalset.json").write_text(
        json.dumps({"evalSetId": "shop", "evalCases": cases})
    )
    (tmp_path / "shop.metrics.json").write_text(json.dumps(metrics))
    (tmp_path / "prices.json").write_text(
        json.dumps({MODEL: {"inputPerMillion": float(INPUT), "outputPerMillion": float(OUTPUT)}})
    )
    return tmp_path / "shop.evalset.json"


def results(directory: Path) -> dict[str, Any]:
    (path,) = directory.glob("*.evalset_result.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def usd(amount: float) -> Decimal:
    """A dollar amount as the JSON file holds it, back to the Decimal it was written from."""
    return Decimal(repr(amount))


TOOL_COUNT = [{"metricName": "tool_call_count", "threshold": 0}]


def test_agent_cost_has_its_own_line_per_case_eval_set_and_run(tmp_path: Path) -> None:
    # No token_usage metric: what the agent spent is counted anyway.
    evalset = write_usage_suite(tmp_path, TOOL_COUNT)
    run = cli(
        "run", "--evalset", str(evalset), "--prices", str(tmp_path / "prices.json"),
        "--no-cache", "--output", str(tmp_path / "out"), "--json", str(tmp_path / "run.json"),
        "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    refund, status = cost(TURNS["refund"]), cost(TURNS["status"])
    assert (refund, status) == (Decimal("0.00054"), Decimal("0.00117"))
    out = flat(run.stdout)
    assert "agent usage: 6 model calls, 7,000 input + 1,100 output tokens · $0.00171" in out
    assert "costliest agent cases: status $0.00117, refund $0.00054" in out
    assert "agent usage: 3 model calls, 2,000 input + 400 output tokens · $0.00054" in out
    # The judge's line is apart: no judge ran, so there is none.
    assert "judge:" not in out
    result = results(tmp_path / "out")
    by_case = {case["evalId"]: case["agentUsage"] for case in result["evalCaseResults"]}
    assert usd(by_case["refund"]["costUsd"]) == refund
    assert usd(by_case["status"]["costUsd"]) == status
    assert by_case["refund"] == {
        "turns": 2,
        "turnsWithoutUsage": 0,
        "inferenceCalls": 3,
        "inputTokens": 2000,
        "outputTokens": 400,
        "unpricedTurns": 0,
        "costUsd": 0.00054,
    }
    assert usd(result["agentUsage"]["costUsd"]) == refund + status
    assert "judgeUsage" not in result
    document = json.loads((tmp_path / "run.json").read_text())
    assert usd(document["agentUsage"]["costUsd"]) == refund + status
    assert document["agentUsage"]["inputTokens"] == 7000
    # A saved result shown again says the same.
    (saved,) = (tmp_path / "out").glob("*.evalset_result.json")
    shown = cli("show", str(saved))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "agent usage: 6 model calls, 7,000 input + 1,100 output tokens · $0.00171" in flat(
        shown.stdout
    )


def test_several_eval_sets_add_up_to_a_run_total(tmp_path: Path) -> None:
    evalset = write_usage_suite(tmp_path, TOOL_COUNT)
    data = json.loads(evalset.read_text())
    data["evalSetId"] = "shop_again"
    again = tmp_path / "shop_again.evalset.json"
    again.write_text(json.dumps(data))
    (tmp_path / "shop_again.metrics.json").write_text(json.dumps(TOOL_COUNT))
    run = cli(
        "run", "--evalset", str(evalset), "--evalset", str(again),
        "--prices", str(tmp_path / "prices.json"), "--no-cache", "--no-progress",
        "--json", str(tmp_path / "run.json"),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    total = 2 * (cost(TURNS["refund"]) + cost(TURNS["status"]))
    assert total == Decimal("0.00342")
    lines = [line for line in run.stdout.splitlines() if line.startswith("agent usage: ")]
    # One line per eval set, then the run's.
    assert lines[-1] == "agent usage: 12 model calls, 14,000 input + 2,200 output tokens · $0.00342"
    assert len(lines) == 3
    document = json.loads((tmp_path / "run.json").read_text())
    assert usd(document["agentUsage"]["costUsd"]) == total


def test_token_usage_prices_the_agent_with_the_prices_file(tmp_path: Path) -> None:
    metrics = [{"metricName": "token_usage", "threshold": 0}]
    evalset = write_usage_suite(tmp_path, metrics)
    run = cli(
        "run", "--evalset", str(evalset), "--prices", str(tmp_path / "prices.json"),
        "--no-cache", "--output", str(tmp_path / "out"), "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    for case in results(tmp_path / "out")["evalCaseResults"]:
        (overall,) = case["overallEvalMetricResults"]
        expected = cost(TURNS[case["evalId"]])
        assert usd(overall["costUsd"]) == expected  # the sum of its turns, each priced
        assert usd(case["agentUsage"]["costUsd"]) == expected
        assert overall["score"] == sum(i + o for i, o, _ in TURNS[case["evalId"]])


def test_the_project_configs_prices_apply_to_the_agent(tmp_path: Path) -> None:
    write_usage_suite(tmp_path, TOOL_COUNT)
    (tmp_path / "agenteval.toml").write_text(
        'evalset = ["shop.evalset.json"]\nprices = "prices.json"\noutput = "out"\n'
        "no-progress = true\nno-cache = true\n"
    )
    run = cli("run", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "agent usage: 6 model calls, 7,000 input + 1,100 output tokens · $0.00171" in flat(
        run.stdout
    )


def test_an_unpriced_agent_model_says_so_and_is_never_guessed(tmp_path: Path) -> None:
    evalset = write_usage_suite(tmp_path, TOOL_COUNT, model="acme:house-model")
    run = cli(
        "run", "--evalset", str(evalset), "--prices", str(tmp_path / "prices.json"),
        "--no-cache", "--output", str(tmp_path / "out"), "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert (
        "agent usage: 6 model calls, 7,000 input + 1,100 output tokens · cost unknown: no price for "
        "3 turns (acme:house-model) (give --prices FILE)"
    ) in flat(run.stdout)
    spent = results(tmp_path / "out")["agentUsage"]
    assert (spent["costUsd"], spent["unpricedTurns"], spent["unpricedModels"]) == (
        0.0,
        3,
        ["acme:house-model"],
    )
