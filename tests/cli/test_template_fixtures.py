"""The trpc-agent-go template examples through the CLI against the scripted loopback judge.

``llm/templatetrace`` has a stored Go result: its recorded turn (with the
``executionTrace``) is replayed in trace mode (tests/trpc_fixtures.py) and the
stored score, status and reason come back, and the prompt the judge receives
is byte for byte the rendered prompt Go stored in the per-turn criterion
(which agenteval records as ``details.renderedPrompt``).

``llm/template`` has no stored output: its reference conversation is supplied
as the agent's trace with ``--traces`` (the agent answered "Paris"), and the
two metrics (single_score and rubric_scores, threshold 1) are scored from the
scripted replies.

Both metric files read ``${OPENAI_BASE_URL}`` and ``${OPENAI_API_KEY}``, so the
judge is pointed at the loopback server through the environment; the fixture
files are used as they are.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from agenteval.inputs.loading import load_result
from cli_process import run_cli as forked_cli
from judge_server import JudgeServer, Reply
from trpc_fixtures import fixture_file, replay_evalset

API_KEY = "sk-test-template-fixtures"


def run_cli(*args: str, server: JudgeServer) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY=API_KEY)
    return forked_cli(["run", "--no-cache", *args], timeout=180, env=env)


def single_score(score: float, reason: str) -> Reply:
    return Reply(content=json.dumps({"score": score, "reason": reason}))


def test_templatetrace_reproduces_the_stored_result(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, metrics, stored = replay_evalset("llm/templatetrace", tmp_path)
    stored_case = stored["evalCaseResults"][0]
    stored_overall = stored_case["overallEvalMetricResults"][0]
    stored_turn = stored_case["evalMetricResultPerInvocation"][0]["evalMetricResults"][0]
    judge_server.when(
        "Weather ToolNode output snapshot", single_score(1, stored_turn["details"]["reason"])
    )
    out = tmp_path / "out"
    proc = run_cli(
        "--evalset",
        str(evalset),
        "--metrics",
        str(metrics),
        "--output",
        str(out),
        server=judge_server,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

    (body,) = judge_server.bodies()
    stored_prompt = stored_turn["criterion"]["llmJudge"]["template"]["prompt"]
    assert body["messages"] == [{"role": "user", "content": stored_prompt}]
    assert (body["model"], body["max_completion_tokens"], body["temperature"]) == (
        "gpt-5.2",
        256,
        0,
    )
    assert body["response_format"]["json_schema"]["name"] == "single_score_result"

    (result_file,) = out.glob("*.evalset_result.json")
    ours = load_result(result_file).case_results()[0]
    assert ours.final_eval_status.value == stored_case["finalEvalStatus"] == "passed"
    (overall,) = ours.overall_eval_metric_results or []
    assert (overall.metric_name, overall.score, overall.eval_status.value) == (
        stored_overall["metricName"],
        stored_overall["score"],
        stored_overall["evalStatus"],
    )
    assert overall.details is not None
    assert overall.details.reason == stored_overall["details"]["reason"]
    (turn,) = (ours.eval_metric_result_per_invocation or [])[0].eval_metric_results or []
    assert (turn.score, turn.eval_status.value, turn.threshold) == (
        stored_turn["score"],
        stored_turn["evalStatus"],
        stored_turn["threshold"],
    )
    assert turn.details is not None
    assert turn.details.reason == stored_turn["details"]["reason"]
    assert (turn.details.model_extra or {})["renderedPrompt"] == stored_prompt
    # §5.8.5: the per-turn criterion holds the rendered prompt (as Go stored it), the overall
    # one the template.
    assert turn.criterion is not None and turn.criterion.llm_judge is not None
    assert turn.criterion.llm_judge.template is not None
    assert turn.criterion.llm_judge.template["prompt"] == stored_prompt
    assert overall.criterion is not None and overall.criterion.llm_judge is not None
    assert "{{tool_output}}" in (overall.criterion.llm_judge.template or {})["prompt"]
    assert API_KEY not in result_file.read_text()


def test_templatetrace_judge_saying_no_fails_the_case(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    """The same replay with a 0 from the judge: threshold 1 fails the turn, the case and the run."""
    evalset, metrics, _ = replay_evalset("llm/templatetrace", tmp_path)
    judge_server.default = single_score(0, "The answer is not grounded in the tool output.")
    out = tmp_path / "out"
    proc = run_cli(
        "--evalset",
        str(evalset),
        "--metrics",
        str(metrics),
        "--output",
        str(out),
        server=judge_server,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (result_file,) = out.glob("*.evalset_result.json")
    case = load_result(result_file).case_results()[0]
    assert case.final_eval_status.value == "failed"
    assert [(m.score, m.eval_status.value) for m in case.overall_eval_metric_results or []] == [
        (0.0, "failed")
    ]


def template_run(
    tmp_path: Path, server: JudgeServer
) -> tuple[subprocess.CompletedProcess[str], Path]:
    evalset = fixture_file("llm/template/data/*/*.evalset.json")
    metrics = fixture_file("llm/template/data/*/*.metrics.json")
    data = json.loads(evalset.read_text())
    # The agent's recorded turns: it answered exactly the reference conversation.
    traces = tmp_path / "traces.jsonl"
    traces.write_text(
        "\n".join(
            json.dumps({"evalId": c["evalId"], "actualConversation": c["conversation"]})
            for c in data["evalCases"]
        )
    )
    out = tmp_path / "out"
    proc = run_cli(
        "--evalset",
        str(evalset),
        "--metrics",
        str(metrics),
        "--traces",
        str(traces),
        "--output",
        str(out),
        server=server,
    )
    return proc, out


def results_by_metric(out: Path) -> dict[str, Any]:
    (result_file,) = out.glob("*.evalset_result.json")
    (case,) = load_result(result_file).case_results()
    per_turn = (case.eval_metric_result_per_invocation or [])[0].eval_metric_results or []
    return {
        "case": case,
        "overall": {m.metric_name: m for m in case.overall_eval_metric_results or []},
        "turn": {m.metric_name: m for m in per_turn},
    }


RUBRIC_PROMPT = "two fixed rubric items"


def test_template_example_both_metrics(judge_server: JudgeServer, tmp_path: Path) -> None:
    judge_server.when(
        RUBRIC_PROMPT,
        Reply(
            content='{"rubricScores":[{"id":"1","score":1,"reason":"Paris is the capital."},'
            '{"id":"2","score":1,"reason":"One word."}]}'
        ),
    )
    judge_server.default = single_score(1, "Paris matches the reference.")
    proc, out = template_run(tmp_path, judge_server)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bodies = judge_server.bodies()
    schemas = sorted(b["response_format"]["json_schema"]["name"] for b in bodies)
    assert schemas == ["rubric_scores_result", "single_score_result"]
    for body in bodies:
        prompt = body["messages"][0]["content"]
        assert "What is the capital of France? Answer with a single word." in prompt
        assert "{{" not in prompt
    found = results_by_metric(out)
    assert found["case"].final_eval_status.value == "passed"
    single = found["turn"]["capital_reference_match_single_template"]
    rubric = found["turn"]["capital_reference_match_rubric_template"]
    assert (single.score, single.eval_status.value) == (1.0, "passed")
    assert single.details.reason == "Paris matches the reference."
    assert (rubric.score, rubric.eval_status.value) == (1.0, "passed")
    assert [(r.id, r.score) for r in rubric.details.rubric_scores or []] == [("1", 1.0), ("2", 1.0)]
    overall = found["overall"]["capital_reference_match_rubric_template"]
    assert overall.details.reason == "Paris is the capital.\nOne word."


def test_template_example_one_rubric_missed(judge_server: JudgeServer, tmp_path: Path) -> None:
    """One of two rubric items at 0: score 0.5 below threshold 1 fails that metric and the case."""
    judge_server.when(
        RUBRIC_PROMPT,
        Reply(
            content='{"rubricScores":[{"id":"1","score":1,"reason":"Correct city."},'
            '{"id":"2","score":0,"reason":"Not a single word."}]}'
        ),
    )
    judge_server.default = single_score(1, "Paris matches the reference.")
    proc, out = template_run(tmp_path, judge_server)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = results_by_metric(out)
    assert found["case"].final_eval_status.value == "failed"
    rubric = found["overall"]["capital_reference_match_rubric_template"]
    assert (rubric.score, rubric.eval_status.value) == (0.5, "failed")
    single = found["overall"]["capital_reference_match_single_template"]
    assert (single.score, single.eval_status.value) == (1.0, "passed")
