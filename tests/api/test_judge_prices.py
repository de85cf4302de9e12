"""``--max-judge-cost`` needs a price for every judge metric: checked before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval import api
from agenteval.errors import ConfigError


def write(tmp_path: Path, model: str) -> tuple[list[str], str]:
    turn = {
        "userContent": {"role": "user", "content": "hi"},
        "finalResponse": {"role": "assistant", "content": "hello"},
    }
    case = {
        "evalId": "c",
        "evalMode": "trace",
        "sessionInput": {"appName": "a", "userId": "u"},
        "conversation": [turn],
        "actualConversation": [turn],
    }
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    judge = {
        "providerName": "openai",
        "modelName": model,
        "baseURL": "http://127.0.0.1:9",
        "apiKey": "k",
    }
    metrics = tmp_path / "s.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {"metricName": "tool_trajectory_avg_score", "threshold": 1},
                {
                    "metricName": "llm_final_response",
                    "threshold": 1,
                    "criterion": {"llmJudge": {"judgeModel": judge}},
                },
            ]
        )
    )
    return [str(evalset)], str(metrics)


def test_an_unpriced_judge_under_a_cost_bound_is_a_located_error(tmp_path: Path) -> None:
    specs, metrics = write(tmp_path, "house-model")
    try:
        api.prepare(specs, api.Options(metrics=metrics, max_judge_cost=1.0))
    except ConfigError as exc:
        lines = [str(p) for p in exc.problems]
    else:
        raise AssertionError("no problem reported")
    assert lines == [
        f"{tmp_path / 's.metrics.json'}: [1].criterion.llmJudge.judgeModel: metric "
        "'llm_final_response': no price for openai:house-model, so --max-judge-cost cannot "
        'count its calls (give its price with --prices FILE, e.g. {"openai:house-model": '
        '{"inputPerMillion": 1, "outputPerMillion": 2}})'
    ]


def test_a_priced_judge_passes_and_no_bound_needs_no_price(tmp_path: Path) -> None:
    specs, metrics = write(tmp_path, "gpt-4o")
    assert api.prepare(specs, api.Options(metrics=metrics, max_judge_cost=1.0)).prices
    specs, metrics = write(tmp_path, "house-model")
    assert api.prepare(specs, api.Options(metrics=metrics)).prices is None
