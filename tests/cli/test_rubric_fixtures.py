"""Rubric judge fixtures through the CLI against the loopback judge (issue 4, acceptance 2 and 4).

``llm/rubricresponse``, ``llm/knowledgerecall`` and ``llm/caselevelrubric``
are replayed as formats.md §10.1 says (stored actual turns in trace mode; the
eval set's own reference turns and case rubrics); ``trace`` runs as it is.
Their metric files point the judge at ``${JUDGE_MODEL_BASE_URL}`` with
``${JUDGE_MODEL_API_KEY}``, so the environment points them at the loopback
server, which answers each turn's prompt with the stored rubric verdicts.
Each run must reproduce the stored metric scores and statuses, per turn and
overall, and the per-rubric scores.  The ``trace`` fixture's stored output is
stale (formats.md §8), so that run is checked for self-consistency (§10.2
C12) with the judge scripted to pass.

Also through the CLI: ``numSamples: 5`` with scripted split votes shows the
votes, agreement and ``unstable`` on the console and in the result file; a
malformed reply fails the case with its reason (no crash, no silent zero).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.inputs.loading import load_result
from agenteval.schema.result import EvalCaseResult, EvalMetricResult
from cli_process import run_cli as forked_cli
from judge_server import JudgeServer, Reply
from trpc_fixtures import fixture_file, replay_evalset

API_KEY = "sk-test-llm-fixtures-5d1c"


def run_cli(server: JudgeServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ,
        JUDGE_MODEL_BASE_URL=server.base_url,
        JUDGE_MODEL_API_KEY=API_KEY,
        COLUMNS="200",
    )
    return forked_cli(["run", "--no-cache", *args], timeout=180, env=env)


def verdict_reply(rubric_scores: list[dict[str, Any]]) -> Reply:
    """A judge reply carrying stored rubric verdicts, in the rubric-scores JSON."""
    items = [
        {"id": r["id"], "score": r.get("score", 0), "reason": r["reason"]} for r in rubric_scores
    ]
    return Reply(content=json.dumps({"rubricScores": items}))


def per_turn(case: dict[str, Any], metric_name: str) -> list[dict[str, Any]]:
    return [
        next(r for r in p["evalMetricResults"] if r["metricName"] == metric_name)
        for p in case["evalMetricResultPerInvocation"]
    ]


def script_stored_verdicts(server: JudgeServer, stored: dict[str, Any], metric_name: str) -> int:
    """Answer each stored turn's prompt (matched by its user text) with its stored verdicts."""
    turns = 0
    for case in stored["evalCaseResults"]:
        pairs = zip(case["evalMetricResultPerInvocation"], per_turn(case, metric_name), strict=True)
        for invocation, result in pairs:
            user = invocation["actualInvocation"]["userContent"]["content"]
            server.when(
                f"<main_prompt>\n{user}\n</main_prompt>",
                verdict_reply(result["details"]["rubricScores"]),
            )
            turns += 1
    return turns


def only_result(out: Path) -> list[EvalCaseResult]:
    (path,) = out.glob("*.evalset_result.json")
    return load_result(path).case_results()


def metric_named(results: list[EvalMetricResult] | None, name: str) -> EvalMetricResult:
    return next(r for r in results or [] if r.metric_name == name)


def assert_reproduces(ours: EvalCaseResult, theirs: dict[str, Any], metric_name: str) -> None:
    """Stored scores and statuses (overall and per turn) and per-rubric scores of one metric."""
    assert ours.final_eval_status.value == theirs["finalEvalStatus"], ours.error_message
    stored_overall = next(
        r for r in theirs["overallEvalMetricResults"] if r["metricName"] == metric_name
    )
    overall = metric_named(ours.overall_eval_metric_results, metric_name)
    assert overall.score == pytest.approx(stored_overall.get("score", 0), abs=1e-9)
    assert overall.eval_status.value == stored_overall["evalStatus"]
    assert overall.threshold == stored_overall.get("threshold", 0)
    stored_rubrics = stored_overall["details"].get("rubricScores") or []
    ours_rubrics = (overall.details.rubric_scores if overall.details else None) or []
    assert [(r.id, r.score) for r in ours_rubrics] == [
        (r["id"], r.get("score", 0)) for r in stored_rubrics
    ]
    stored_turns = per_turn(theirs, metric_name)
    turns = ours.eval_metric_result_per_invocation or []
    assert len(turns) == len(stored_turns)
    for turn, stored_turn in zip(turns, stored_turns, strict=True):
        result = metric_named(turn.eval_metric_results, metric_name)
        assert result.score == pytest.approx(stored_turn.get("score", 0), abs=1e-9)
        assert result.eval_status.value == stored_turn["evalStatus"]
        assert result.details is not None
        assert [(r.id, r.score, r.reason) for r in result.details.rubric_scores or []] == [
            (r["id"], r.get("score", 0), r["reason"])
            for r in stored_turn["details"]["rubricScores"]
        ]


def test_rubric_response_fixture(judge_server: JudgeServer, tmp_path: Path) -> None:
    evalset, metrics, stored = replay_evalset("llm/rubricresponse", tmp_path)
    turns = script_stored_verdicts(judge_server, stored, "llm_rubric_response")
    out = tmp_path / "out"
    proc = run_cli(
        judge_server, "--evalset", str(evalset), "--metrics", str(metrics), "--output", str(out)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (ours,) = only_result(out)
    assert_reproduces(ours, stored["evalCaseResults"][0], "llm_rubric_response")
    assert judge_server.count == 3 * turns  # numSamples 3
    body = judge_server.bodies()[0]
    spec = body["response_format"]["json_schema"]
    assert (spec["name"], spec["strict"]) == ("rubric_response_scores", True)
    assert spec["schema"]["properties"]["rubricScores"]["items"]["properties"]["id"]["enum"] == [
        "1",
        "2",
    ]
    assert (body["model"], body["max_completion_tokens"], body["temperature"]) == (
        "deepseek-chat",
        512,
        1.0,
    )
    # The stored answer is what the judge reads.
    assert "- **Profit**: $16,449.40" in body["messages"][0]["content"]
    assert "1 (3/3 pass)" in proc.stdout
    assert API_KEY not in proc.stdout + proc.stderr + next(out.glob("*.json")).read_text()


def test_knowledge_recall_fixture(judge_server: JudgeServer, tmp_path: Path) -> None:
    evalset, metrics, stored = replay_evalset("llm/knowledgerecall", tmp_path)
    turns = script_stored_verdicts(judge_server, stored, "llm_rubric_knowledge_recall")
    out = tmp_path / "out"
    proc = run_cli(
        judge_server, "--evalset", str(evalset), "--metrics", str(metrics), "--output", str(out)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (ours,) = only_result(out)
    assert_reproduces(ours, stored["evalCaseResults"][0], "llm_rubric_knowledge_recall")
    assert judge_server.count == 3 * turns
    body = judge_server.bodies()[0]
    assert body["response_format"]["json_schema"]["name"] == "rubric_knowledge_recall_scores"
    prompt = body["messages"][0]["content"]
    # The stored knowledge_search result is the evidence, in Go's field order.
    tool = stored["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["actualInvocation"][
        "tools"
    ][0]
    document = tool["result"]["documents"][0]
    assert '<retrieved_knowledge>\n{"documents":[{"text":' in prompt
    assert '"metadata":{"trpc_agent_go_chunk_index":1},"score":0.9089502126782587}]' in prompt
    assert document["text"][:60] in prompt
    assert '"message":"Found 1 relevant document(s)"}\n' in prompt
    # The agent's answer is not part of the knowledge-recall judge input.
    answer = stored["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["actualInvocation"]
    assert answer["finalResponse"]["content"][:80] not in prompt


def test_case_level_rubric_fixture(judge_server: JudgeServer, tmp_path: Path) -> None:
    evalset, metrics, stored = replay_evalset("llm/caselevelrubric", tmp_path)
    script_stored_verdicts(judge_server, stored, "travel_answer_quality")
    out = tmp_path / "out"
    proc = run_cli(
        judge_server, "--evalset", str(evalset), "--metrics", str(metrics), "--output", str(out)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (ours,) = only_result(out)
    theirs = stored["evalCaseResults"][0]
    assert_reproduces(ours, theirs, "travel_answer_quality")
    tool_metric = metric_named(ours.overall_eval_metric_results, "tool_trajectory_avg_score")
    assert (tool_metric.score, tool_metric.eval_status.value) == (1.0, "passed")
    assert [m.metric_name for m in ours.overall_eval_metric_results or []] == [
        m["metricName"] for m in theirs["overallEvalMetricResults"]
    ]
    # The merged rubric list is what the judge saw and what the result echoes.
    overall = metric_named(ours.overall_eval_metric_results, "travel_answer_quality")
    stored_overall = theirs["overallEvalMetricResults"][1]
    echoed = (
        overall.criterion.llm_judge.rubrics
        if overall.criterion and overall.criterion.llm_judge
        else []
    )
    assert [(r.id, r.content) for r in echoed or []] == [
        (r["id"], r["content"]) for r in stored_overall["criterion"]["llmJudge"]["rubrics"]
    ]
    (body,) = judge_server.bodies()  # numSamples 1
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["rubricScores"]["items"]["properties"]["id"]["enum"] == [
        "global:answer-completeness",
        "case:festival-ticket-advice",
    ]
    assert (
        "case:festival-ticket-advice: For this Shanghai travel case"
        in body["messages"][0]["content"]
    )
    # The stored summary (§10.1 step 4).
    (path,) = out.glob("*.evalset_result.json")
    summary = load_result(path).summary
    assert summary is not None
    stored_summary = stored["summary"]
    assert summary.overall_status.value == stored_summary["overallStatus"]
    assert summary.num_runs == stored_summary["numRuns"]
    (run_summary,) = summary.run_summaries or []
    (stored_run,) = stored_summary["runSummaries"]
    assert run_summary.overall_status.value == stored_run["overallStatus"]
    assert [
        (m.metric_name, m.average_score, m.eval_status.value, m.threshold)
        for m in run_summary.metric_summaries or []
    ] == [
        (m["metricName"], m["averageScore"], m["evalStatus"], m["threshold"])
        for m in stored_run["metricSummaries"]
    ]


def test_trace_fixture_is_self_consistent(judge_server: JudgeServer, tmp_path: Path) -> None:
    """The eval set as it is; the stored output is stale, so check C12 with the judge passing."""
    evalset = fixture_file("trace/data/*/*.evalset.json")
    judge_server.default = verdict_reply(
        [
            {"id": "1", "score": 1, "reason": "579 is correct."},
            {"id": "2", "score": 1, "reason": "On topic."},
        ]
    )
    out = tmp_path / "out"
    proc = run_cli(judge_server, "--evalset", str(evalset), "--output", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (ours,) = only_result(out)
    assert (ours.eval_id, ours.final_eval_status.value) == ("trace_calc_add", "passed")
    tool_metric = metric_named(ours.overall_eval_metric_results, "tool_trajectory_avg_score")
    assert (tool_metric.score, tool_metric.eval_status.value) == (1.0, "passed")
    judge_metric = metric_named(ours.overall_eval_metric_results, "llm_rubric_response")
    assert (judge_metric.score, judge_metric.eval_status.value, judge_metric.threshold) == (
        1.0,
        "passed",
        0.9,
    )
    assert [(r.id, r.score) for r in judge_metric.details.rubric_scores or []] == [  # type: ignore[union-attr]
        ("1", 1.0),
        ("2", 1.0),
    ]
    # The stale stored file agrees on the judge metric it does record.
    stale = json.loads(fixture_file("trace/output/*/*.evalset_result.json").read_text())
    stale_metric = stale["evalCaseResults"][0]["overallEvalMetricResults"][0]
    assert (stale_metric["metricName"], stale_metric["score"], stale_metric["evalStatus"]) == (
        "llm_rubric_response",
        judge_metric.score,
        judge_metric.eval_status.value,
    )
    assert judge_server.count == 3
    assert "calc result: 579" in judge_server.bodies()[0]["messages"][0]["content"]


def test_flipped_verdicts_do_not_reproduce_the_oracle(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    """Negative control: with every rubric failing the stored statuses do not come out."""
    evalset, metrics, stored = replay_evalset("llm/rubricresponse", tmp_path)
    judge_server.default = verdict_reply(
        [{"id": "1", "score": 0, "reason": "wrong"}, {"id": "2", "score": 0, "reason": "off"}]
    )
    out = tmp_path / "out"
    proc = run_cli(
        judge_server, "--evalset", str(evalset), "--metrics", str(metrics), "--output", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (ours,) = only_result(out)
    with pytest.raises(AssertionError):
        assert_reproduces(ours, stored["evalCaseResults"][0], "llm_rubric_response")


def five_sample_metrics(tmp: Path) -> Path:
    data = json.loads(fixture_file("llm/rubricresponse/data/*/*.metrics.json").read_text())
    data[0]["criterion"]["llmJudge"]["judgeModel"]["numSamples"] = 5
    path = tmp / "rubric-response-basic.metrics.json"
    path.write_text(json.dumps(data))
    return path


def test_five_samples_split_votes_on_console_and_in_the_file(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, _, _ = replay_evalset("llm/rubricresponse", tmp_path)
    metrics = five_sample_metrics(tmp_path)
    yes = [
        {"id": "1", "score": 1, "reason": "correct"},
        {"id": "2", "score": 1, "reason": "relevant"},
    ]
    no = [
        {"id": "1", "score": 0, "reason": "wrong sum"},
        {"id": "2", "score": 1, "reason": "relevant"},
    ]
    judge_server.enqueue(*(verdict_reply(v) for v in (yes, no, yes, no, yes)))
    out = tmp_path / "out"
    proc = run_cli(
        judge_server,
        "--evalset",
        str(evalset),
        "--metrics",
        str(metrics),
        "--output",
        str(out),
        "--concurrency",
        "1",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert judge_server.count == 5
    # Console: the turn's votes, the judge variance line and the count in the final line.
    assert "1 (3/5 pass)" in proc.stdout
    assert "3/5 pass, agreement 0.6, unstable" in proc.stdout
    assert "1 unstable judge turn" in proc.stdout
    # Result file: every vote, the agreement and the flag, as extra keys Go ignores.
    (path,) = out.glob("*.evalset_result.json")
    raw = json.loads(path.read_text())
    case = raw["evalCaseResults"][0]
    details = case["evalMetricResultPerInvocation"][0]["evalMetricResults"][0]["details"]
    assert [s["status"] for s in details["samples"]] == [
        "passed",
        "failed",
        "passed",
        "failed",
        "passed",
    ]
    assert [s["score"] for s in details["samples"]] == [1, 0.5, 1, 0.5, 1]
    assert details["agreement"] == pytest.approx(0.6)
    assert details["unstable"] is True
    assert (details["score"], [r["score"] for r in details["rubricScores"]]) == (1, [1, 1])
    assert case["overallEvalMetricResults"][0]["unstableTurns"] == 1
    assert case["finalEvalStatus"] == "passed"


def test_malformed_reply_fails_the_case_with_its_reason(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, metrics, _ = replay_evalset("llm/rubricresponse", tmp_path)
    judge_server.default = Reply(content='{"rubricScores":[{"id":"1","score":"1","reason":"a"}]}')
    out = tmp_path / "out"
    proc = run_cli(
        judge_server, "--evalset", str(evalset), "--metrics", str(metrics), "--output", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (ours,) = only_result(out)
    assert ours.final_eval_status.value == "failed"
    assert ours.overall_eval_metric_results is None
    assert ours.error_message.startswith(
        "run evaluation for metric llm_rubric_response: score based on response: "
        "unmarshal response json: cannot unmarshal string into field rubricScores[0].score"
    ), ours.error_message
    assert "score based on response" in proc.stdout
