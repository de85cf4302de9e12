"""The built-in evaluators: the deterministic ones registered on import, the judge family
when a registry first needs it (agenteval.registry.defer)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_JUDGE_MODULE = "agenteval.evaluators.llm.llm_final_response"
_TRACE = Path(__file__).parents[1] / "fixtures/trpc-examples/trace/data/trace-eval-app"


def _python(code: str, cwd: Path) -> list[object]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=True
    )
    result: list[object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_the_judge_family_loads_on_the_first_name_the_deterministic_ones_lack(
    tmp_path: Path,
) -> None:
    code = f"""
import json, sys
from agenteval.plugins import load_plugins
from agenteval.evaluators.registry import evaluators
load_plugins([])
answers = ["{_JUDGE_MODULE}" in sys.modules]
answers.append(type(evaluators.get("tool_trajectory_avg_score")).__name__)
answers.append("{_JUDGE_MODULE}" in sys.modules)
answers.append(type(evaluators.get("llm_final_response")).__module__)
answers.append(evaluators.names())
print(json.dumps(answers))
"""
    before, deterministic, after, judge, names = _python(code, tmp_path)
    assert (before, deterministic, after) == (False, "ToolTrajectoryEvaluator", False)
    assert judge == _JUDGE_MODULE
    # Every built-in, the family's included (what `agenteval evaluators` lists).
    assert names == [
        "exact_match",
        "final_response_avg_score",
        "final_response_gate",
        "inference_call_count",
        "llm_final_response",
        "llm_hallucinations",
        "llm_judge_template",
        "llm_rubric_critic",
        "llm_rubric_knowledge_recall",
        "llm_rubric_reference_critic",
        "llm_rubric_response",
        "llm_verifier_pairwise",
        "normalized_match",
        "response_match_score",
        "token_usage",
        "tool_call_count",
        "tool_trajectory_avg_score",
        "tool_trajectory_f1",
    ]


def test_a_run_of_deterministic_metrics_never_imports_the_judge_family(tmp_path: Path) -> None:
    metrics = json.loads((_TRACE / "trace-basic.metrics.json").read_text(encoding="utf-8"))
    only = [m for m in metrics if m["metricName"] == "tool_trajectory_avg_score"]
    assert len(only) == 1 and len(metrics) > 1
    metric_file = tmp_path / "trace-basic.metrics.json"
    metric_file.write_text(json.dumps(only), encoding="utf-8")
    evalset = _TRACE / "trace-basic.evalset.json"
    code = f"""
import json, sys
from agenteval.entry import main
sys.argv = ["agenteval", "run", "--evalset", {str(evalset)!r}, "--metrics",
            {str(metric_file)!r}, "--output", "out", "--no-progress"]
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps([code, "{_JUDGE_MODULE}" in sys.modules]))
"""
    assert _python(code, tmp_path) == [0, False]
    written = list((tmp_path / "out").glob("*.evalset_result.json"))
    assert len(written) == 1
    result = json.loads(written[0].read_text(encoding="utf-8"))
    assert {
        r["metricName"] for c in result["evalCaseResults"] for r in c["overallEvalMetricResults"]
    } == {"tool_trajectory_avg_score"}
