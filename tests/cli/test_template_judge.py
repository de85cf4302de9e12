"""Template judge through the command line: up-front problems of `validate`, and plugin operators.

Issue 5: an unbound placeholder, a forbidden JSONPath, unknown scorer and
aggregator names and an ``expected.finalResponse`` binding on a case without
one are each one ``file: json.path: problem`` line of ``agenteval validate``
(exit 2).  Acceptance 3: a plugin registers a response scorer and a samples
aggregator by name, a metric file names them, and ``run --plugin`` scores with
them against the loopback judge.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.inputs.loading import load_result
from cli_process import run_cli
from judge_server import JudgeServer, Reply

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "custom_judge_operators.py"
T = "criterion.llmJudge.template"


def agenteval(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180, env=env)


def msg(role: str, text: str) -> dict[str, str]:
    return {"role": role, "content": text}


def bind(name: str, scope: str, field: str, **extra: Any) -> dict[str, Any]:
    return {"templateVariable": name, "source": {"scope": scope, "field": field, **extra}}


def judge_model(base_url: str, **fields: Any) -> dict[str, Any]:
    return {
        "providerName": "openai",
        "modelName": "loopback-judge",
        "baseURL": base_url,
        "apiKey": "sk-test-template-cli",
        **fields,
    }


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2))
    return path


def evalset(tmp: Path, cases: list[dict[str, Any]]) -> Path:
    return write(tmp / "graded.evalset.json", {"evalSetId": "graded", "evalCases": cases})


def trace_case(eval_id: str, answer: str, reference: str | None) -> dict[str, Any]:
    expected: dict[str, Any] = {"userContent": msg("user", "What is the capital of France?")}
    if reference is not None:
        expected["finalResponse"] = msg("assistant", reference)
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "actualConversation": [
            {
                "userContent": msg("user", "What is the capital of France?"),
                "finalResponse": msg("assistant", answer),
            }
        ],
        "conversation": [expected],
        "sessionInput": {"appName": "app", "userId": "u"},
    }


def test_validate_reports_each_template_problem(tmp_path: Path) -> None:
    """Every problem is one line with the file and JSON path; nothing runs; exit 2."""
    broken = {
        "prompt": "Q: {{question}}\nA: {{answer}}\nR: {{reference}}\nX: {{unbound}}",
        "responseScorerName": "single_scor",
        "sampleAggregatorName": "majority",
        "invocationAggregatorName": "median",
        "variableBindings": [
            bind("question", "actual", "userContent"),
            bind("answer", "actual", "finalResponse", path="$.items[*]"),
            bind("reference", "expected", "finalResponse"),
        ],
    }
    metrics = write(
        tmp_path / "graded.metrics.json",
        [
            {
                "metricName": "graded",
                "evaluatorName": "llm_judge_template",
                "threshold": 1,
                "criterion": {
                    "llmJudge": {
                        "judgeModel": judge_model("http://127.0.0.1:9/v1"),
                        "template": broken,
                    }
                },
            }
        ],
    )
    sets = evalset(
        tmp_path,
        [trace_case("with_reference", "Paris", "Paris"), trace_case("no_reference", "Paris", None)],
    )
    proc = agenteval("validate", "--evalset", str(sets), "--metrics", str(metrics))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    lines = [" ".join(line.split()) for line in out.splitlines()]
    expected = [
        f"{metrics}: [0].{T}.prompt: prompt: unresolved placeholders: {{{{unbound}}}}",
        f'{metrics}: [0].{T}.variableBindings[1].source.path: json path "$.items[*]" '
        "has invalid index",
        f'{metrics}: [0].{T}.responseScorerName: unsupported response scorer "single_scor"',
        f'{metrics}: [0].{T}.sampleAggregatorName: unsupported samples aggregator "majority"',
        f'{metrics}: [0].{T}.invocationAggregatorName: unsupported invocations aggregator "median"',
        f"{sets}: evalCases[1].conversation[0].finalResponse: expected finalResponse is empty",
    ]
    text = "\n".join(lines)
    for fragment in expected:
        assert fragment in text, fragment
    # The case that has its reference answer is not reported.
    assert "evalCases[0]" not in text
    assert "metric 'graded'" in text  # the eval-set problem names the metric


def test_validate_accepts_the_plugin_names_only_with_the_plugin(tmp_path: Path) -> None:
    metrics, sets = plugin_suite(tmp_path, "http://127.0.0.1:9/v1")
    without = agenteval("validate", "--evalset", str(sets), "--metrics", str(metrics))
    assert without.returncode == 2
    assert 'unsupported response scorer "letter_grade"' in without.stdout + without.stderr
    assert 'unsupported samples aggregator "mean_of_samples"' in without.stdout + without.stderr
    with_plugin = agenteval(
        "validate", "--evalset", str(sets), "--metrics", str(metrics), "--plugin", str(PLUGIN)
    )
    assert with_plugin.returncode == 0, with_plugin.stdout + with_plugin.stderr


def plugin_suite(tmp: Path, base_url: str) -> tuple[Path, Path]:
    template = {
        "prompt": "Grade the answer {{answer}} against {{reference}}. End with GRADE: <letter>.",
        "responseScorerName": "letter_grade",
        "sampleAggregatorName": "mean_of_samples",
        "variableBindings": [
            bind("answer", "actual", "finalResponse"),
            bind("reference", "expected", "finalResponse"),
        ],
    }
    metrics = write(
        tmp / "graded.metrics.json",
        [
            {
                "metricName": "letter_graded",
                "evaluatorName": "llm_judge_template",
                "threshold": 0.7,
                "criterion": {
                    "llmJudge": {
                        "judgeModel": judge_model(base_url, numSamples=3),
                        "template": template,
                    }
                },
            }
        ],
    )
    sets = evalset(tmp, [trace_case("capital", "Paris", "Paris")])
    return metrics, sets


def test_plugin_scorer_and_aggregator_through_run(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    metrics, sets = plugin_suite(tmp_path, judge_server.base_url)
    judge_server.enqueue(
        Reply(content="Exact match.\nGRADE: A"),
        Reply(content="Right city, terse.\nGRADE: C"),
        Reply(content="Correct.\nGRADE: B"),
    )
    out = tmp_path / "out"
    proc = agenteval(
        "run",
        "--evalset",
        str(sets),
        "--metrics",
        str(metrics),
        "--plugin",
        str(PLUGIN),
        "--no-cache",
        "--concurrency",
        "1",
        "--output",
        str(out),
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert judge_server.count == 3
    # letter_grade has no schema of its own: the judge ran unconstrained.
    assert all("response_format" not in body for body in judge_server.bodies())
    (result_file,) = out.glob("*.evalset_result.json")
    case = load_result(result_file).case_results()[0]
    assert case.final_eval_status.value == "passed"
    (overall,) = case.overall_eval_metric_results or []
    # Mean of A (1.0), C (0.5) and B (0.75); majority vote would have picked 1.0.
    assert overall.score == pytest.approx(0.75)
    (turn_result,) = (case.eval_metric_result_per_invocation or [])[0].eval_metric_results or []
    assert turn_result.score == pytest.approx(0.75)
    assert turn_result.details is not None
    assert turn_result.details.reason == "Exact match. | Right city, terse. | Correct."
    extra = turn_result.details.model_extra or {}
    assert extra["renderedPrompt"] == (
        "Grade the answer Paris against Paris. End with GRADE: <letter>."
    )


def test_plugin_grade_below_threshold_fails(judge_server: JudgeServer, tmp_path: Path) -> None:
    metrics, sets = plugin_suite(tmp_path, judge_server.base_url)
    judge_server.default = Reply(content="Wrong city.\nGRADE: D")
    proc = agenteval(
        "run",
        "--evalset",
        str(sets),
        "--metrics",
        str(metrics),
        "--plugin",
        str(PLUGIN),
        "--no-cache",
        "--json",
        str(tmp_path / "run.json"),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    document = json.loads((tmp_path / "run.json").read_text())
    assert "0.25" in json.dumps(document)
