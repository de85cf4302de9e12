"""Helpers of the store tests: result files written and added as stored runs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from agenteval.results.agent_usage import AGENT_USAGE_KEY, case_agent_usage, summed
from agenteval.schema.evalset import Invocation, Usage
from agenteval.schema.gojson import model_to_go_json_bytes
from agenteval.schema.result import EvalSetResult, extra, set_extra
from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from sample_results import case_result, eval_set_result, metric

T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def scripted_result(
    index: int, eval_set_id: str = "suite", *, drift_from: int = 0
) -> EvalSetResult:
    """Run ``index`` (1-based) of a scripted history.

    ``steady`` always passes, ``broken`` always fails, ``flappy`` fails every third run;
    the ``quality`` metric scores 0.9 until ``drift_from`` and 0.6 from then on (when set).
    """
    quality = 0.6 if drift_from and index >= drift_from else 0.9
    cases = [
        case_result(eval_set_id, "steady", [metric("exact", 1.0), metric("quality", quality, 0.5)]),
        case_result(eval_set_id, "broken", [metric("exact", 0.0, reason="wrong tool")]),
        case_result(eval_set_id, "flappy", [metric("exact", 0.0 if index % 3 == 0 else 1.0)]),
    ]
    result = eval_set_result(eval_set_id, cases)
    result.eval_set_result_id = f"app_{eval_set_id}_{index:04d}"
    result.eval_set_result_name = result.eval_set_result_id
    result.creation_timestamp = T0 + index * 3600
    return result


# The agent under test's turns in scripted_result's cases: (input tokens, output tokens,
# model calls).  Priced by the built-in table's openai:gpt-4o-mini ($0.15 input, $0.60 output
# per million tokens): steady (180 + 180 + 120 + 60) / 1e6 = $0.00054, broken (750 + 420) /
# 1e6 = $0.00117; the eval set $0.00171 (floats summed give 0.0017100000000000001).
AGENT_MODEL = "openai:gpt-4o-mini"
AGENT_TURNS = {"steady": [(1200, 300, 2), (800, 100, 1)], "broken": [(5000, 700, 3)]}
# What the eval set's agentUsage holds with that model (its runs columns in that order).
AGENT_SPENT = {
    "turns": 3,
    "turnsWithoutUsage": 0,
    "inferenceCalls": 6,
    "inputTokens": 7000,
    "outputTokens": 1100,
    "unpricedTurns": 0,
    "costUsd": 0.00171,
}


def with_agent_usage(result: EvalSetResult, model: str = AGENT_MODEL) -> EvalSetResult:
    """``result`` with the agent's usage of :data:`AGENT_TURNS` on its cases and in its own
    ``agentUsage``, counted and priced as ``run`` does (results.agent_usage, built-in prices)."""
    for case in result.case_results():
        turns = [
            Invocation(
                usage=Usage(input_tokens=i, output_tokens=o, inference_calls=calls, model=model)
            )
            for i, o, calls in AGENT_TURNS.get(case.eval_id, [])
        ]
        usage = case_agent_usage(turns, None)
        if usage is not None:
            set_extra(case, AGENT_USAGE_KEY, usage)
    result.agent_usage = summed(extra(case).get(AGENT_USAGE_KEY) for case in result.case_results())
    return result


# A judge call of the judge usage below: 1000 prompt + 100 completion tokens, priced at $3 /
# $15 per million tokens: (3000 + 1500) / 1e6 = $0.0045 (tests/cli/test_judge_cost.py).
JUDGE_CALL_USD = 0.0045
UNPRICED_JUDGE = "openai:house-model"


def with_judge_usage(
    result: EvalSetResult, priced: int, unpriced: int = 0, unreported: int = 0
) -> EvalSetResult:
    """``result`` with a ``judgeUsage`` of ``priced`` calls at :data:`JUDGE_CALL_USD` and
    ``unpriced`` calls of :data:`UNPRICED_JUDGE` (``unreported`` of them whose reply reported
    no token usage), as run writes it (judge.usage)."""
    calls = priced + unpriced
    total: dict[str, Any] = {
        "calls": calls, "cacheHits": 0, "failedCalls": 0, "retries": 0,
        "promptTokens": 1000 * calls, "completionTokens": 100 * calls, "cachedPromptTokens": 0,
        "costUsd": float(round(Decimal("0.0045") * priced, 12)), "unpricedCalls": unpriced,
    }  # fmt: skip
    if unpriced:
        total["unpricedModels"] = [UNPRICED_JUDGE]
    if unreported:
        total["unreportedCalls"] = unreported
    result.judge_usage = {"byMetric": {"quality": total}, "total": total}
    return result


def with_fingerprint(result: EvalSetResult, fingerprint: dict[str, Any]) -> EvalSetResult:
    """``result`` carrying a ``fingerprint`` key, as a result file of a fingerprinting run."""
    data = json.loads(model_to_go_json_bytes(result))
    data["fingerprint"] = fingerprint
    return EvalSetResult.model_validate(data)


def write_result(result: EvalSetResult, directory: Path) -> Path:
    """``result`` as a result file (Go layout, as run writes it)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{result.eval_set_result_id}.evalset_result.json"
    path.write_bytes(model_to_go_json_bytes(result))
    return path


def add_history(
    store: Store,
    directory: Path,
    count: int,
    *,
    branch: str = "main",
    drift_from: int = 0,
    eval_set_id: str = "suite",
    first: int = 1,
) -> list[str]:
    """``count`` scripted runs (``first``, ``first + 1``, …) added one by one; their run ids."""
    ids = []
    for index in range(first, first + count):
        path = write_result(scripted_result(index, eval_set_id, drift_from=drift_from), directory)
        ids += add_results(store, [path], commit=f"c{index:03d}", branch=branch)
    return ids


def paths_of(directory: Path) -> Sequence[Path]:
    """The result files in ``directory``, sorted."""
    return sorted(directory.glob("*.evalset_result.json"))
