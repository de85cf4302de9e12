"""Never green when something was not evaluated: the INCOMPLETE case status in every output.

A case whose deterministic metric passes and whose judge metric could not be
evaluated is INCOMPLETE on the console, a JUnit ``<error>``, ❗ in Markdown, an
``::error`` annotation and ``overallStatus: "incomplete"`` in the run
document; its result file keeps trpc-agent-go's statuses and lists the case in
``judgeFailures``.  ``--resume`` scores the incomplete cases again.
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from cli_process import run_cli
from judge_server import JudgeServer, Reply
from trace_cases import trace_case

VALID = Reply(content="reasoning: same answer\nis_the_agent_response_valid: valid")


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180, env=env)


def write_suite(tmp_path: Path, base_url: str, eval_ids: tuple[str, ...]) -> tuple[Path, Path]:
    """Trace-mode cases whose tool calls match; a judge metric on the final answer."""
    cases = []
    for eval_id in eval_ids:
        turn = {
            "userContent": {"role": "user", "content": f"weather in {eval_id}?"},
            "finalResponse": {"role": "assistant", "content": "sunny"},
            "tools": [{"name": "weather", "arguments": {"city": eval_id}}],
        }
        cases.append(trace_case(eval_id, turn))
    evalset = tmp_path / "weather.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "weather", "evalCases": cases}))
    metrics = tmp_path / "weather.metrics.json"
    judge = {"providerName": "openai", "modelName": "m", "baseURL": base_url, "apiKey": "sk-x"}
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
    return evalset, metrics


def unreachable_url() -> str:
    """A loopback URL where nothing listens any more."""
    with JudgeServer() as server:
        url = server.base_url
    return url


def only_result(directory: Path) -> dict[str, Any]:
    (path,) = directory.glob("*.evalset_result.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_judge_unreachable_case_is_incomplete_in_all_five_outputs(tmp_path: Path) -> None:
    evalset, metrics = write_suite(tmp_path, unreachable_url(), ("paris",))
    summary = tmp_path / "step_summary.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    env.pop("NO_COLOR", None)
    proc = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--judge-retries", "0", "--output", str(tmp_path / "out"),
        "--json", str(tmp_path / "run.json"), "--junit", str(tmp_path / "junit.xml"),
        "--markdown", str(tmp_path / "summary.md"),
        env=env,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    # 1. console
    assert "● paris  INCOMPLETE" in proc.stdout
    # What could not be evaluated and why, under the case's table.
    cause = "! llm_final_response · turn 1: not evaluated: response error: openai judge model"
    assert cause in " ".join(proc.stdout.split())
    assert "INCOMPLETE: 0 of 1 cases passed (1 incomplete)" in proc.stdout
    assert "PASSED" not in proc.stdout
    assert "cases: 0 passed, 0 failed, 0 not evaluated, 1 incomplete" in proc.stdout
    # 2. JUnit: an <error>, never a green testcase
    root = ET.parse(tmp_path / "junit.xml").getroot()
    (testcase,) = root.iter("testcase")
    (error,) = testcase.findall("error")
    assert error.get("type") == "incomplete"
    assert "llm_final_response not evaluated" in (error.get("message") or "")
    assert root.get("errors") == "1" and root.get("failures") == "0"
    # 3. Markdown (file and step summary)
    for markdown in (tmp_path / "summary.md", summary):
        text = markdown.read_text()
        assert "## ❗ agenteval: INCOMPLETE" in text
        assert "· 0 failed · 0 not evaluated · 1 incomplete ·" in text
        assert "| ❗ incomplete |" in text
        assert "✅" not in text
    # 4. GitHub annotation
    (annotation,) = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert annotation.startswith("::error title=agenteval%3A weather/paris incomplete,")
    # 5. run document
    document = json.loads((tmp_path / "run.json").read_text())
    assert document["overallStatus"] == "incomplete"
    assert document["caseStatusCounts"] == {
        "passed": 0,
        "failed": 0,
        "notEvaluated": 0,
        "incomplete": 1,
    }
    # The result file keeps trpc-agent-go's statuses and names the incomplete case.
    result = only_result(tmp_path / "out")
    (case,) = result["evalCaseResults"]
    statuses = {m["metricName"]: m["evalStatus"] for m in case["overallEvalMetricResults"]}
    assert statuses == {
        "tool_trajectory_avg_score": "passed",
        "llm_final_response": "not_evaluated",
    }
    assert case["finalEvalStatus"] == "passed"
    assert result["judgeFailures"] == ["paris"]
    # show gives the same verdict from the saved result
    shown = cli("show", str(tmp_path / "out"))
    assert shown.returncode == 3
    assert "● paris  INCOMPLETE" in shown.stdout
    assert cause in " ".join(shown.stdout.split())


def test_resume_after_max_judge_calls_rescores_the_incomplete_cases(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    judge_server.default = VALID
    ids = ("lyon", "nice", "oslo")
    evalset, metrics = write_suite(tmp_path, judge_server.base_url, ids)
    first = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--max-judge-calls", "1", "--concurrency", "1", "--output", str(tmp_path / "first"),
    )  # fmt: skip
    assert first.returncode == 3, first.stdout + first.stderr
    assert judge_server.count == 1
    earlier = only_result(tmp_path / "first")
    incomplete = earlier["judgeFailures"]
    assert len(incomplete) == 2 and set(incomplete) < set(ids)
    # Resume from the directory: only the two incomplete cases are judged again.
    second = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--resume", str(tmp_path / "first"), "--output", str(tmp_path / "second"),
    )  # fmt: skip
    assert second.returncode == 0, second.stdout + second.stderr
    assert judge_server.count == 3
    finished = only_result(tmp_path / "second")
    assert "judgeFailures" not in finished
    assert [c["evalId"] for c in finished["evalCaseResults"]] == list(ids)
    for case in finished["evalCaseResults"]:
        assert {m["evalStatus"] for m in case["overallEvalMetricResults"]} == {"passed"}
    assert "PASSED: 3 of 3 cases passed" in second.stdout


def test_resume_gives_the_real_verdict_of_the_rescored_cases(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, metrics = write_suite(tmp_path, judge_server.base_url, ("rome",))
    judge_server.default = Reply.status_error(400)
    first = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--judge-retries", "0", "--output", str(tmp_path / "first"),
    )  # fmt: skip
    assert first.returncode == 3, first.stdout + first.stderr
    judge_server.default = Reply(content="reasoning: wrong\nis_the_agent_response_valid: invalid")
    second = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--resume", str(tmp_path / "first"), "--output", str(tmp_path / "second"),
    )  # fmt: skip
    assert second.returncode == 1, second.stdout + second.stderr
    (case,) = only_result(tmp_path / "second")["evalCaseResults"]
    assert case["finalEvalStatus"] == "failed"


UNEVALUATED_PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "unevaluated_metric.py"
# What every report says beside the runs an INCOMPLETE case passed (results/flakiness.py).
# Beside the status word each report prints ("❗ incomplete (3/3 runs passed · a metric not
# evaluated)"): "incomplete" once, not "incomplete (… · incomplete: …)".
INCOMPLETE_RUNS = "3/3 runs passed · a metric not evaluated"


def write_half_evaluated_suite(tmp_path: Path) -> tuple[Path, Path]:
    """One trace-mode case: its tool trajectory passes, the plugin's metric is never evaluated."""
    turn = {
        "userContent": {"role": "user", "content": "weather in paris?"},
        "finalResponse": {"role": "assistant", "content": "sunny"},
        "tools": [{"name": "weather", "arguments": {"city": "paris"}}],
    }
    evalset = tmp_path / "weather.evalset.json"
    evalset.write_text(
        json.dumps({"evalSetId": "weather", "evalCases": [trace_case("paris", turn)]})
    )
    metrics = tmp_path / "weather.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {"metricName": "tool_trajectory_avg_score", "threshold": 1},
                {"metricName": "pending", "evaluatorName": "unevaluated", "threshold": 1},
            ]
        )
    )
    return evalset, metrics


def assert_console_says_incomplete(stdout: str) -> None:
    """The case header and the pass@k table: incomplete, pass@k still over c = 3 of 3."""
    assert f"● paris  INCOMPLETE  {INCOMPLETE_RUNS}" in stdout
    (row,) = [line.split() for line in stdout.splitlines() if line.startswith("  paris ")]
    assert row[1:3] == ["3/3", "incomplete"], stdout
    assert row[4:] == ["1"] * 6  # pass@1..3 and pass^1..3
    assert "stable" not in stdout


def html_verdicts(page: Path) -> list[dict[str, Any]]:
    """The HTML report's verdict rows (its index, as the page's script reads it)."""
    index = page.read_text(encoding="utf-8").split('id="report-index">', 1)[1]
    data = json.loads(index.split("</script>", 1)[0])
    verdicts: list[dict[str, Any]] = data["runs"][0]["evalSets"][0]["verdicts"]
    return verdicts


def test_an_incomplete_case_run_three_times_is_no_stable_pass_in_any_report(
    tmp_path: Path,
) -> None:
    """Each run passes (trpc's finalEvalStatus) beside a metric not evaluated: the case is
    INCOMPLETE (exit 3), and it was also "3/3 stable pass" in the pass@k table, the run
    document's caseVerdicts, the HTML report and "(3/3 runs passed)" in Markdown and the
    GitHub annotation.  Now its verdict is incomplete everywhere; pass@k and the result
    file's trpc fields keep c = 3."""
    evalset, metrics = write_half_evaluated_suite(tmp_path)
    summary = tmp_path / "step_summary.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    env["COLUMNS"] = "200"  # the pass@k table as rows, one per case
    proc = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--num-runs", "3",
        "--plugin", str(UNEVALUATED_PLUGIN), "--no-cache", "--output", str(tmp_path / "out"),
        "--json", str(tmp_path / "run.json"), "--junit", str(tmp_path / "junit.xml"),
        "--markdown", str(tmp_path / "summary.md"), "--html", str(tmp_path / "run.html"),
        env=env,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert_console_says_incomplete(proc.stdout)
    verdict = json.loads((tmp_path / "run.json").read_text())["caseVerdicts"]["weather"]["paris"]
    assert (verdict["verdict"], verdict["passedRuns"], verdict["runs"]) == ("incomplete", 3, 3)
    for markdown in (tmp_path / "summary.md", summary):
        text = markdown.read_text()
        assert f"| ❗ incomplete ({INCOMPLETE_RUNS}) |" in text and "stable" not in text
    (annotation,) = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert annotation.startswith("::error title=agenteval%3A weather/paris incomplete,")
    assert f"::{INCOMPLETE_RUNS}; metric averages decide%0Apending not evaluated" in annotation
    (error,) = ET.parse(tmp_path / "junit.xml").getroot().iter("error")
    assert error.get("type") == "incomplete" and "stable" not in (error.text or "")
    assert [(v["verdict"], v["passedRuns"]) for v in html_verdicts(tmp_path / "run.html")] == [
        ("incomplete", 3)
    ]
    # The result file keeps trpc-agent-go's fields: each run passed, pass@k over c = 3.
    result = only_result(tmp_path / "out")
    assert {case["finalEvalStatus"] for case in result["evalCaseResults"]} == {"passed"}
    (case_summary,) = result["summary"]["evalCaseSummaries"]
    assert case_summary["runStatusCounts"] == {"passed": 3, "failed": 0, "notEvaluated": 0}
    assert case_summary["passAtK"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    # Read back, the saved result gives the same verdict.
    wide = {**os.environ, "COLUMNS": "200"}
    shown = cli("show", str(tmp_path / "out"), env=wide)
    assert shown.returncode == 3, shown.stdout + shown.stderr
    assert_console_says_incomplete(shown.stdout)
    reported = cli("report", str(tmp_path / "out"), "--html", str(tmp_path / "saved.html"))
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert html_verdicts(tmp_path / "saved.html") == html_verdicts(tmp_path / "run.html")
