"""Pair-level scoring: a pass equals a full run; only pairs whose inputs changed are re-scored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agenteval import api
from agenteval.evaluators.registry import case_aggregators, evaluators
from agenteval.schema.status import EvalStatus
from agenteval.watch.pairs import PassOutcome, score_pass
from judge_server import JudgeServer, Reply

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    evalset = tmp_path / "travel-assistant.evalset.json"
    metrics = tmp_path / "travel-assistant.metrics.json"
    shutil.copy(ROOT / "evalsets" / "travel-assistant.evalset.json", evalset)
    shutil.copy(ROOT / "metrics" / "travel-assistant.metrics.json", metrics)
    return evalset, metrics


def one_pass(evalset: Path, previous: PassOutcome | None = None) -> PassOutcome:
    options = api.Options(cache=None)
    prepared = api.prepare([str(evalset)], options)
    return score_pass(prepared, options, previous.pairs if previous else {})


def table(results: list[Any]) -> dict[str, Any]:
    """Per case: status, score, and each metric's score and status."""
    return {
        case.eval_id: (
            case.final_eval_status,
            case.score,
            [(m.metric_name, m.score, m.eval_status) for m in case.overall_eval_metric_results],
            [
                [(m.metric_name, m.score) for m in turn.eval_metric_results or []]
                for turn in case.eval_metric_result_per_invocation or []
            ],
        )
        for result in results
        for case in result.case_results()
    }


def edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_pass_gives_what_a_full_run_gives_and_an_unchanged_pass_scores_nothing(
    files: tuple[Path, Path],
) -> None:
    evalset, _ = files
    first = one_pass(evalset)
    assert len(first.rescored) == 12 and first.kept == 0  # 4 cases × 3 metrics
    full = api.evaluate([str(evalset)], api.Options(cache=None))
    assert table(first.results) == table(full.results)
    assert first.exit_code == full.exit_code == api.EXIT_FAILED
    again = one_pass(evalset, first)
    assert again.rescored == [] and again.kept == 12
    assert table(again.results) == table(first.results)


def test_a_threshold_rescores_only_its_metric(files: tuple[Path, Path]) -> None:
    evalset, metrics = files
    first = one_pass(evalset)
    edit(metrics, lambda data: data[1].update(threshold=0.0))  # answer_similarity
    second = one_pass(evalset, first)
    cases = ["currency_wrong_amount", "flight_search_then_weather", "packing_tips_two_turns"]
    cases.append("weather_paris")
    assert sorted(second.rescored) == [("travel-assistant", c, "answer_similarity") for c in cases]
    assert second.kept == 8
    full = api.evaluate([str(evalset)], api.Options(cache=None))
    assert table(second.results) == table(full.results)


def test_an_edited_case_rescores_only_that_case(files: tuple[Path, Path]) -> None:
    evalset, _ = files

    def rename_answer(data: Any) -> None:
        turn = data["evalCases"][3]["conversation"][1]
        turn["finalResponse"]["content"] = "Pack a warm jacket and an umbrella, please."

    first = one_pass(evalset)
    edit(evalset, rename_answer)
    second = one_pass(evalset, first)
    assert {(key[1]) for key in second.rescored} == {"packing_tips_two_turns"}
    assert len(second.rescored) == 3
    full = api.evaluate([str(evalset)], api.Options(cache=None))
    assert table(second.results) == table(full.results)


def test_a_pass_is_incomplete_where_a_run_is(files: tuple[Path, Path], tmp_path: Path) -> None:
    """An evaluator that raises on one case, and a case aggregator that raises on another:
    the pass gives the run's results, INCOMPLETE cases and exit code (3)."""
    evalset, metrics = files
    plugin = tmp_path / "raising_plugin.py"
    plugin.write_text(
        "from agenteval.evaluators.base import Evaluator, average_turns, binary_turn\n"
        "from agenteval.plugins import register_case_aggregator, register_evaluator\n"
        "\n"
        "@register_evaluator\n"
        "class RaisesOnWeather(Evaluator):\n"
        "    name = 'test_raises_on_weather'\n"
        "    description = 'raises on weather_paris'\n"
        "\n"
        "    def evaluate(self, metric, actuals, expecteds, context):\n"
        "        if context.case.eval_id == 'weather_paris':\n"
        "            raise KeyError('weather')\n"
        "        return average_turns([binary_turn(True, '', 1.0) for _ in actuals], 1.0)\n"
        "\n"
        "@register_case_aggregator('test_raises_on_currency')\n"
        "def raises_on_currency(case, metrics, results):\n"
        "    if case.eval_id == 'currency_wrong_amount':\n"
        "        raise ValueError('no verdict')\n"
        "    return 1.0, 'passed'\n"
    )
    edit(metrics, lambda data: data.append({"metricName": "test_raises_on_weather"}))
    options = api.Options(
        cache=None, plugins=[str(plugin)], case_aggregator="test_raises_on_currency"
    )
    try:
        prepared = api.prepare([str(evalset)], options)
        outcome = score_pass(prepared, options, {})
        full = api.evaluate([str(evalset)], options)
    finally:  # this worker's later tests see the built-in registries only
        evaluators.unregister("test_raises_on_weather")
        case_aggregators.unregister("test_raises_on_currency")
    assert table(outcome.results) == table(full.results)
    errors = {c.eval_id: c.error_message for r in outcome.results for c in r.case_results()}
    assert errors["currency_wrong_amount"].startswith("case aggregator raised ValueError")
    incomplete = [["weather_paris", "currency_wrong_amount"]]  # in file order
    assert [r.judge_failures for r in outcome.results] == incomplete
    assert [r.judge_failures for r in full.results] == incomplete
    assert outcome.exit_code == full.exit_code == api.EXIT_INCOMPLETE


def test_a_pair_left_incomplete_is_scored_again(
    tmp_path: Path, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turn 2's judge call failed: the metric passed on turn 1 alone, the pair incomplete.
    It was kept on the next pass (its inputs unchanged), incomplete for good, the judge
    never asked again; now it is scored again and completes."""
    source = json.loads((ROOT / "evalsets" / "travel-assistant.evalset.json").read_text())
    case = next(c for c in source["evalCases"] if c["evalId"] == "packing_tips_two_turns")
    evalset = tmp_path / "j.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "j", "evalCases": [case]}))
    judges = json.loads((ROOT / "metrics" / "judges" / "travel-assistant.metrics.json").read_text())
    metric = next(m for m in judges if m["metricName"] == "answer_matches_reference")
    metric["criterion"]["llmJudge"]["judgeModel"]["numSamples"] = 1
    (tmp_path / "j.metrics.json").write_text(json.dumps([metric]))
    monkeypatch.setenv("JUDGE_MODEL_BASE_URL", judge_server.base_url)
    monkeypatch.setenv("JUDGE_MODEL_API_KEY", "sk-test")
    monkeypatch.setenv("JUDGE_MODEL_NAME", "judge")
    valid = Reply(content="reasoning: same facts\nis_the_agent_response_valid: valid")
    judge_server.when("Do I need an umbrella?", Reply.status_error(400, "bad request"))
    judge_server.when("is_the_agent_response_valid", valid)
    options = api.Options(cache=str(tmp_path / "cache.sqlite"), judge_retries=0)
    key = ("j", "packing_tips_two_turns", "answer_matches_reference")
    first = score_pass(api.prepare([str(evalset)], options), options, {})
    assert first.pairs[key].incomplete and first.pairs[key].status is EvalStatus.PASSED
    assert first.exit_code == api.EXIT_INCOMPLETE and judge_server.count == 2
    judge_server.reset()
    judge_server.when("is_the_agent_response_valid", valid)
    second = score_pass(api.prepare([str(evalset)], options), options, first.pairs)
    assert second.rescored == [key] and judge_server.count == 1  # turn 1 from the cache
    assert not second.pairs[key].incomplete and second.exit_code == api.EXIT_PASSED
