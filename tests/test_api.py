"""agenteval.api: ``prepare`` checks and plans the inputs, ``evaluate`` runs them to a verdict.

Real files in a temporary directory; judge metrics go over HTTP to the loopback
judge (tests/judge_server.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenteval.api import Options, evaluate, prepare
from agenteval.errors import ConfigError
from agenteval.exit_codes import ExitCode
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

INVALID = "reasoning: wrong city\nis_the_agent_response_valid: invalid"


def invocation(answer: str) -> dict[str, Any]:
    """One turn answering ``answer``."""
    return {
        "userContent": {"role": "user", "content": "capital?"},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def write_suite(
    directory: Path, answers: dict[str, tuple[str, str]], eval_set_id: str = "geo"
) -> Path:
    """``geo.evalset.json`` with one trace case per id (actual, expected) and its metric file."""
    cases = [
        {
            "evalId": case_id,
            "evalMode": "trace",
            "sessionInput": {"appName": "app", "userId": "u"},
            "actualConversation": [invocation(actual)],
            "conversation": [invocation(expected)],
        }
        for case_id, (actual, expected) in answers.items()
    ]
    path = directory / "geo.evalset.json"
    path.write_text(json.dumps({"evalSetId": eval_set_id, "evalCases": cases}))
    metrics = [{"metricName": "exact_match", "threshold": 1.0}]
    (directory / "geo.metrics.json").write_text(json.dumps(metrics))
    return path


ANSWERS = {"fr": ("Paris", "Paris"), "it": ("Rome", "Rome"), "de": ("Bonn", "Berlin")}


def problems_of(error: ConfigError) -> list[str]:
    """Every located problem line of a ConfigError."""
    return str(error).splitlines()


def test_evaluate_scores_every_case_and_sets_the_exit_code(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS)
    run = evaluate(path)
    assert run.sources == [path]
    [result] = run.results
    statuses = {c.eval_id: c.final_eval_status for c in result.case_results()}
    assert statuses == {"fr": EvalStatus.PASSED, "it": EvalStatus.PASSED, "de": EvalStatus.FAILED}
    assert (run.status, run.passed, run.exit_code) == (EvalStatus.FAILED, False, ExitCode.FAILED)
    assert run.judge_usage is None and run.judge_failures == [] and not run.interrupted
    passing = evaluate(path, cases=["fr", "it"])
    assert (passing.status, passing.exit_code) == (EvalStatus.PASSED, ExitCode.PASSED)


def test_keyword_options_repeat_runs(tmp_path: Path) -> None:
    run = evaluate(write_suite(tmp_path, ANSWERS), num_runs=2)
    [result] = run.results
    assert [(c.run_id, c.eval_id) for c in result.case_results()] == [
        (1, "fr"),
        (1, "it"),
        (1, "de"),
        (2, "fr"),
        (2, "it"),
        (2, "de"),
    ]
    assert result.summary is not None and result.summary.num_runs == 2


def test_prepare_collects_every_problem_of_the_options(tmp_path: Path) -> None:
    path = str(write_suite(tmp_path, ANSWERS))
    with pytest.raises(ConfigError) as caught:
        prepare([path], Options(num_runs=0))
    assert problems_of(caught.value) == ["--num-runs: must be at least 1, got 0"]
    options = Options(case_aggregator="nope", cases=["fr", "xx"], only_metrics=["exact_match"])
    with pytest.raises(ConfigError) as caught:
        prepare([path], options)
    [line] = problems_of(caught.value)
    assert line.startswith("--case-aggregator: unknown case aggregator 'nope' (known: ")
    options = Options(cases=["fr", "xx"], skip_metrics=["rouge"])
    with pytest.raises(ConfigError) as caught:
        prepare([path], options)
    assert problems_of(caught.value) == [
        "--skip-metric: 'rouge' matches nothing in the given files",
        "--case: 'xx' matches nothing in the given files",
    ]


def test_prepare_plans_selected_cases_and_metrics(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS)
    prepared = prepare([str(path)], Options(cases=["de", "fr"]))
    [plan] = prepared.plans
    assert plan.eval_set_id == "geo"
    assert [c.eval_id for c in plan.cases] == ["fr", "de"]  # file order, not option order
    assert [p.metric.metric_name for p in plan.metrics] == ["exact_match"]
    assert plan.metrics_path == tmp_path / "geo.metrics.json"
    assert prepared.warnings == []


def test_shards_split_the_cases_between_them(tmp_path: Path) -> None:
    answers = {f"case-{i}": ("a", "a") for i in range(20)}
    path = str(write_suite(tmp_path, answers))
    shards = [
        [c.eval_id for c in prepare([path], Options(shard=f"{i}/3")).plans[0].cases]
        for i in (1, 2, 3)
    ]
    assert sorted(c for shard in shards for c in shard) == sorted(answers)
    assert all(shards)
    with pytest.raises(ConfigError) as caught:
        prepare([path], Options(shard="4/3"))
    assert problems_of(caught.value) == [
        "--shard: shard index must be within 1..3 (shards count from 1), got 4 (e.g. --shard 2/5)"
    ]


def test_warnings_for_a_missing_metric_file_and_a_renamed_eval_set(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS, eval_set_id="geography")
    (tmp_path / "geo.metrics.json").unlink()
    run = evaluate(path)
    assert [str(w) for w in run.warnings] == [
        f"{tmp_path / 'geo.metrics.json'}: metric file not found; every case will be "
        "not_evaluated (pass --metrics PATH)",
        f"{path}: evalSetId: 'geography' differs from the file name; results use 'geo'",
    ]
    [result] = run.results
    assert result.eval_set_id == "geo"
    assert {c.final_eval_status for c in result.case_results()} == {EvalStatus.NOT_EVALUATED}


def test_metrics_option_may_name_a_directory(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS)
    elsewhere = tmp_path / "metrics"
    elsewhere.mkdir()
    (tmp_path / "geo.metrics.json").rename(elsewhere / "geo.metrics.json")
    [plan] = prepare([str(path)], Options(metrics=str(elsewhere))).plans
    assert plan.metrics_path == elsewhere / "geo.metrics.json"


def test_judge_run_reports_usage_and_failures(tmp_path: Path, judge_server: JudgeServer) -> None:
    path = write_suite(tmp_path, ANSWERS)
    judge = {
        "providerName": "openai",
        "modelName": "judge-model",
        "baseURL": judge_server.base_url,
        "apiKey": "sk-test-api",
    }
    metric = {
        "metricName": "judged",
        "evaluatorName": "llm_final_response",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": judge}},
    }
    (tmp_path / "geo.metrics.json").write_text(json.dumps([metric]))
    judge_server.when("Bonn", Reply(content=INVALID))
    run = evaluate(path, cache=None, concurrency=1)
    [result] = run.results
    statuses = {c.eval_id: c.final_eval_status for c in result.case_results()}
    assert statuses == {"fr": EvalStatus.PASSED, "it": EvalStatus.PASSED, "de": EvalStatus.FAILED}
    assert judge_server.count == 3
    assert run.judge_usage is not None
    total = run.judge_usage["total"]
    assert isinstance(total, dict) and total["calls"] == 3
    # Each reply reports 11 prompt and 7 completion tokens.
    assert (total["promptTokens"], total["completionTokens"]) == (33, 21)
    assert (run.exit_code, run.judge_failures) == (ExitCode.FAILED, [])
    judge_server.reset()
    judge_server.enqueue(Reply(status=400, body=b'{"error": "bad"}'))
    judge_server.enqueue(Reply(), Reply())
    run = evaluate(path, cache=None, concurrency=1, judge_retries=0)
    assert run.exit_code == ExitCode.INCOMPLETE
    assert len(run.judge_failures) == 1
    assert run.judge_failures[0].startswith("geo/fr run 1 metric judged turn 1: ")


def test_the_package_exports_the_api_lazily() -> None:
    import agenteval
    import agenteval.loading

    assert agenteval.evaluate is evaluate
    assert agenteval.load_evalset is agenteval.loading.load_evalset
    with pytest.raises(AttributeError, match="has no attribute 'run'"):
        agenteval.run  # noqa: B018
