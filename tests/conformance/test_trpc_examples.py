"""Conformance against trpc-agent-go's stored results (formats.md §10).

Each oracle's stored actual turns are replayed as trace-mode cases and scored
again; the stored statuses and scores must come out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenteval.api import Options, evaluate
from agenteval.errors import ConfigError
from trpc_fixtures import fixture_file, replay_evalset

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


def _statuses_and_scores(
    ours: dict[str, Any], stored: dict[str, Any], check_case_score: bool
) -> None:
    assert ours["finalEvalStatus"] == stored["finalEvalStatus"], ours.get("errorMessage")
    if check_case_score:
        assert ours.get("score", 0) == pytest.approx(stored.get("score", 0), abs=1e-9)
    stored_metrics = stored.get("overallEvalMetricResults") or []
    our_metrics = ours.get("overallEvalMetricResults") or []
    assert [m["metricName"] for m in our_metrics] == [m["metricName"] for m in stored_metrics]
    for mine, theirs in zip(our_metrics, stored_metrics, strict=True):
        assert mine.get("score", 0) == pytest.approx(theirs.get("score", 0), abs=1e-9)
        assert mine["evalStatus"] == theirs["evalStatus"]
        assert mine.get("threshold", 0) == pytest.approx(theirs.get("threshold", 0), abs=1e-9)
    stored_turns = stored.get("evalMetricResultPerInvocation") or []
    our_turns = ours.get("evalMetricResultPerInvocation") or []
    assert len(our_turns) == len(stored_turns)
    for mine_turn, their_turn in zip(our_turns, stored_turns, strict=True):
        theirs_by_name = {r["metricName"]: r for r in their_turn.get("evalMetricResults") or []}
        for result in mine_turn.get("evalMetricResults") or []:
            stored_result = theirs_by_name[result["metricName"]]
            assert result.get("score", 0) == pytest.approx(stored_result.get("score", 0), abs=1e-9)
            assert result["evalStatus"] == stored_result["evalStatus"]


def _metric_summaries(items: list[dict[str, Any]] | None) -> list[tuple[Any, ...]]:
    return [
        (
            m["metricName"],
            round(m.get("averageScore", 0), 9),
            m["evalStatus"],
            m.get("threshold", 0),
            _counts(m.get("statusCounts")),
        )
        for m in items or []
    ]


def _counts(value: dict[str, int] | None) -> dict[str, int]:
    """Status counts with absent and zero entries treated alike (§10.1: missing number = 0)."""
    return {k: v for k, v in (value or {}).items() if v}


def _summaries(ours: dict[str, Any], stored: dict[str, Any]) -> None:
    assert ours["overallStatus"] == stored["overallStatus"]
    assert ours["numRuns"] == stored["numRuns"]
    assert _counts(ours.get("runStatusCounts")) == _counts(stored.get("runStatusCounts"))
    for mine, theirs in zip(ours["runSummaries"], stored["runSummaries"], strict=True):
        assert mine["overallStatus"] == theirs["overallStatus"]
        assert _counts(mine.get("caseStatusCounts")) == _counts(theirs.get("caseStatusCounts"))
        assert _metric_summaries(mine.get("metricSummaries")) == _metric_summaries(
            theirs.get("metricSummaries")
        )
    for mine, theirs in zip(ours["evalCaseSummaries"], stored["evalCaseSummaries"], strict=True):
        assert mine["evalId"] == theirs["evalId"]
        assert mine["overallStatus"] == theirs["overallStatus"]
        assert _counts(mine.get("runStatusCounts")) == _counts(theirs.get("runStatusCounts"))
        assert _metric_summaries(mine.get("metricSummaries")) == _metric_summaries(
            theirs.get("metricSummaries")
        )
        mine_runs = [(r["finalEvalStatus"], r.get("metricResults")) for r in mine["runSummaries"]]
        their_runs = [
            (r["finalEvalStatus"], r.get("metricResults")) for r in theirs["runSummaries"]
        ]
        assert [s for s, _ in mine_runs] == [s for s, _ in their_runs]
        for (_, mine_metrics), (_, their_metrics) in zip(mine_runs, their_runs, strict=True):
            assert [
                (m["metricName"], m.get("score", 0), m["evalStatus"], m.get("threshold", 0))
                for m in mine_metrics or []
            ] == [
                (m["metricName"], m.get("score", 0), m["evalStatus"], m.get("threshold", 0))
                for m in their_metrics or []
            ]


def run_oracle(
    example: str,
    tmp_path: Path,
    *,
    plugins: tuple[str, ...] = (),
    skip: tuple[str, ...] = (),
    aggregator: str | None = None,
    check_case_score: bool = False,
    compare_summary: bool = True,
) -> dict[str, Any]:
    """Replay one oracle and compare it with the stored result; return our result as JSON data."""
    evalset, metrics, stored = replay_evalset(example, tmp_path)
    options = Options(
        metrics=str(metrics),
        plugins=[str(PLUGINS / p) for p in plugins],
        skip_metrics=list(skip),
        case_aggregator=aggregator,
    )
    run = evaluate([str(evalset)], options)
    ours = run.results[0].model_dump(mode="json", by_alias=True)
    stored_cases = stored["evalCaseResults"]
    assert len(ours["evalCaseResults"]) == len(stored_cases)
    for mine, theirs in zip(ours["evalCaseResults"], stored_cases, strict=True):
        assert mine["evalId"] == theirs["evalId"]
        _statuses_and_scores(mine, theirs, check_case_score)
    if compare_summary and stored.get("summary"):
        _summaries(ours["summary"], stored["summary"])
    return ours


@pytest.mark.parametrize(
    "example",
    ["local", "server", "callbacks", "claudecode", "skill", "toolmock", "tooltrajectory", "rouge"],
)
def test_deterministic_oracles(example: str, tmp_path: Path) -> None:
    """C1–C8: every stored verdict, score and summary is reproduced."""
    ours = run_oracle(example, tmp_path)
    assert all(c["finalEvalStatus"] == "passed" for c in ours["evalCaseResults"])


def test_c9_weighted_case_aggregator(tmp_path: Path) -> None:
    """C9: with the weighted aggregator the case scores 0.8 and passes although a metric failed."""
    ours = run_oracle(
        "caseaggregation",
        tmp_path,
        plugins=("weighted_aggregator.py",),
        aggregator="weighted",
        check_case_score=True,
    )
    case = ours["evalCaseResults"][0]
    assert case["score"] == pytest.approx(0.8, abs=1e-9)
    assert [m["evalStatus"] for m in case["overallEvalMetricResults"]] == ["passed", "failed"]


def test_c9_default_aggregator_fails_the_case(tmp_path: Path) -> None:
    """C9 without the plug-in: the default aggregator needs every metric to pass."""
    evalset, metrics, _ = replay_evalset("caseaggregation", tmp_path)
    run = evaluate([str(evalset)], Options(metrics=str(metrics)))
    case = run.results[0].case_results()[0]
    assert case.final_eval_status.value == "failed"
    assert case.score == 0
    assert run.exit_code == 1


def test_c10_jieba_tokenizer(tmp_path: Path) -> None:
    """C10: ROUGE-1 over jieba tokens passes (D11)."""
    run_oracle("jieba", tmp_path, plugins=("jieba_tokenizer.py",))


def test_c10_without_tokenizer_is_a_config_error(tmp_path: Path) -> None:
    """C10 without the plug-in: the unknown tokenizer name fails the whole run up front.

    Run in a fresh process: registries are process-wide and another test loads the plug-in.
    """
    evalset, metrics, _ = replay_evalset("jieba", tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agenteval",
            "run",
            "--evalset",
            str(evalset),
            "--metrics",
            str(metrics),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "criterion.finalResponse.rouge.tokenizerName: unknown tokenizer 'jieba'" in proc.stderr


def test_c11_case_level_rubric_tool_part(tmp_path: Path) -> None:
    """C11: the tool-trajectory metric passes with the LLM metric skipped (rubrics still validated)."""
    evalset, metrics, _ = replay_evalset("llm/caselevelrubric", tmp_path)
    run = evaluate(
        [str(evalset)], Options(metrics=str(metrics), skip_metrics=["travel_answer_quality"])
    )
    case = run.results[0].case_results()[0]
    assert case.final_eval_status.value == "passed", case.error_message
    names = [m.metric_name for m in case.overall_eval_metric_results or []]
    assert names == ["tool_trajectory_avg_score"]
    metric = (case.overall_eval_metric_results or [])[0]
    assert (metric.score, metric.eval_status.value) == (1.0, "passed")


def test_c12_trace_example_self_check() -> None:
    """C12: the trace example as it is; its tool metric passes."""
    evalset = fixture_file("trace/data/*/*.evalset.json")
    run = evaluate([str(evalset)], Options(skip_metrics=["llm_rubric_response"]))
    case = run.results[0].case_results()[0]
    assert case.eval_id == "trace_calc_add"
    assert case.final_eval_status.value == "passed", case.error_message
    metric = (case.overall_eval_metric_results or [])[0]
    assert (metric.metric_name, metric.score, metric.eval_status.value) == (
        "tool_trajectory_avg_score",
        1.0,
        "passed",
    )


def test_negative_control_changed_argument(tmp_path: Path) -> None:
    """Changing one expected tool argument of C1 fails the turn, the metric, the case and the run."""
    evalset_path, metrics, _ = replay_evalset("local", tmp_path)
    data = json.loads(evalset_path.read_text())
    tool = data["evalCases"][0]["conversation"][0]["tools"][0]
    key = next(iter(tool["arguments"]))
    tool["arguments"][key] = 99999
    evalset_path.write_text(json.dumps(data))
    run = evaluate([str(evalset_path)], Options(metrics=str(metrics)))
    result = run.results[0]
    case = result.case_results()[0]
    assert case.final_eval_status.value == "failed"
    metric = (case.overall_eval_metric_results or [])[0]
    assert (metric.score, metric.eval_status.value) == (0.0, "failed")
    turn = (case.eval_metric_result_per_invocation or [])[0].eval_metric_results or []
    assert (turn[0].score, turn[0].eval_status.value) == (0.0, "failed")
    assert result.summary is not None and result.summary.overall_status.value == "failed"
    assert run.exit_code == 1


def _edited_metrics(metrics: Path, tmp_path: Path, edit: Any) -> Path:
    data = json.loads(metrics.read_text())
    edit(data)
    out = tmp_path / ("edited-" + metrics.name)
    out.write_text(json.dumps(data))
    return out


def test_negative_control_rouge_threshold(tmp_path: Path) -> None:
    """Raising C8's ROUGE f1 threshold to 0.7 fails it (F1 is 0.631579)."""
    evalset, metrics, _ = replay_evalset("rouge", tmp_path)

    def edit(data: list[dict[str, Any]]) -> None:
        data[0]["criterion"]["finalResponse"]["rouge"]["threshold"]["f1"] = 0.7

    run = evaluate([str(evalset)], Options(metrics=str(_edited_metrics(metrics, tmp_path, edit))))
    metric = (run.results[0].case_results()[0].overall_eval_metric_results or [])[0]
    assert (metric.score, metric.eval_status.value) == (0.0, "failed")


def test_negative_control_no_trajectory_criterion(tmp_path: Path) -> None:
    """Dropping C1's criterion applies the default trajectory criterion: cases still pass."""
    evalset, metrics, _ = replay_evalset("local", tmp_path)

    def edit(data: list[dict[str, Any]]) -> None:
        del data[0]["criterion"]

    run = evaluate([str(evalset)], Options(metrics=str(_edited_metrics(metrics, tmp_path, edit))))
    assert [c.final_eval_status.value for c in run.results[0].case_results()] == [
        "passed",
        "passed",
    ]


def test_negative_control_no_final_response_criterion(tmp_path: Path) -> None:
    """Dropping C8's criterion.finalResponse is a configuration error."""
    evalset, metrics, _ = replay_evalset("rouge", tmp_path)

    def edit(data: list[dict[str, Any]]) -> None:
        del data[0]["criterion"]["finalResponse"]

    with pytest.raises(ConfigError) as info:
        evaluate([str(evalset)], Options(metrics=str(_edited_metrics(metrics, tmp_path, edit))))
    assert any(p.path.endswith("criterion.finalResponse") for p in info.value.problems)
