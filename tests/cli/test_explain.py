"""``agenteval explain`` end to end: judges over real HTTP, the cache, --offline, saved results.

The shipped eval sets and judge metric files run against the loopback judge scripted
with the README's replies for them; each test reads the command's output (console or
``--json``) and counts the judge's requests.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli
from doc_tables import documented_keys
from judge_server import JudgeServer, Reply
from trace_cases import usage_eval_set

REPO = Path(__file__).resolve().parents[2]
TRAVEL = "evalsets/travel-assistant.evalset.json"
HELP = "evalsets/help-center.evalset.json"
# The README's replies for the judges these tests explain (see "A judge on your machine").
RULES = [
    (
        "Agent response: 100 USD",
        "reasoning: the agent converted 100 USD, the reference 1000 USD"
        "\nis_the_agent_response_valid: invalid",
    ),
    (
        "is_the_agent_response_valid",
        "reasoning: same key facts as the reference\nis_the_agent_response_valid: valid",
    ),
    ("<candidate_answer>", '{"score": 1, "pass": true, "reasoning": "Same key facts."}'),
    (
        "You are the grader of an AI agent",
        json.dumps(
            {
                "rubricScores": [
                    {
                        "id": "answers_question",
                        "score": 1,
                        "reason": "Answer: it answers the question.",
                    },
                    {
                        "id": "states_units",
                        "score": 0,
                        "reason": "Answer: a number lacks its unit.",
                    },
                ]
            }
        ),
    ),
    ("a 24-month warranty", '{"passed": false, "reason": "It contradicts the 12-month rule."}'),
    ("You audit a shop", '{"passed": true, "reason": "The answer follows the policy."}'),
]


@pytest.fixture
def judge(judge_server: JudgeServer) -> JudgeServer:
    for pattern, text in RULES:
        judge_server.when(pattern, Reply(content=text))
    return judge_server


def run(server: JudgeServer | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    env.update(JUDGE_MODEL_NAME="fake-judge", JUDGE_MODEL_API_KEY="sk-explain-secret")
    if server is not None:
        env["JUDGE_MODEL_BASE_URL"] = server.base_url
    return run_cli(args, cwd=REPO, env=env, timeout=180)


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in proc.stderr, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def steps(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [step["data"] for step in data["steps"] if step["kind"] == kind]


def test_every_raw_sample_and_the_vote(judge: JudgeServer, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite")
    args = [
        "explain",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/",
        "--case",
        "currency_wrong_amount",
        "--metric",
        "answer_matches_reference",
        "--cache",
        cache,
    ]
    proc = run(judge, *args, "--json")
    assert proc.returncode == 1, proc.stderr
    data = as_json(proc)
    assert judge.count == 3
    (request,) = steps(data, "judge.samples")
    sent = [body["messages"] for body in judge.bodies()]
    assert request["messages"] == sent[0]
    replies = request["replies"]
    assert [r["sample"] for r in replies] == [0, 1, 2]
    assert all(r["text"] == RULES[0][1] and r["cached"] is False for r in replies)
    verdicts = steps(data, "judge.verdict")
    assert [v["status"] for v in verdicts] == ["failed"] * 3
    (vote,) = steps(data, "judge.vote")
    assert vote["votes"] == ["failed", "failed", "failed"] and vote["chosenStatus"] == "failed"
    assert data["judge"]["calls"] == 3 and data["exitCode"] == 1
    assert "sk-explain-secret" not in proc.stdout + proc.stderr
    # The console shows the same, now from the cache: no new call.
    console = run(judge, *args)
    assert judge.count == 3
    out = console.stdout
    assert out.count("raw reply (") == 3 and "from the cache" in out
    assert "the agent converted 100 USD, the reference 1000 USD" in out
    assert "votes failed, failed, failed → chosen score 0 failed" in out
    assert "judge 0 call(s) sent, 3 answered from the cache" in out


def test_template_bindings_with_source_and_value(judge: JudgeServer) -> None:
    proc = run(
        judge,
        "explain",
        "-e",
        HELP,
        "-m",
        "metrics/judges/",
        "--case",
        "warranty_period_wrong",
        "--metric",
        "follows_support_policy",
        "--json",
    )
    data = as_json(proc)
    (bindings,) = steps(data, "template.bindings")
    by_name = {b["variable"]: b for b in bindings["bindings"]}
    assert set(by_name) == {"question", "top_document", "answer_tools", "answer"}
    document = by_name["top_document"]
    assert (document["source"], document["nodeID"], document["path"]) == (
        "actual.traceStepOutput",
        "support-agent/retrieve",
        "$.documents[0].text",
    )
    assert "12-month" in document["value"]
    case = next(
        c
        for c in json.loads((REPO / HELP).read_text())["evalCases"]
        if c["evalId"] == "warranty_period_wrong"
    )
    answer = case["actualConversation"][0]["finalResponse"]["content"]
    assert by_name["answer"]["value"] == answer
    (request,) = steps(data, "judge.samples")
    assert answer in request["messages"][0]["content"]
    (verdict,) = steps(data, "judge.verdict")
    assert verdict["status"] == "failed" and "12-month" in verdict["reason"]
    assert proc.returncode == 1


def test_rubric_by_rubric(judge: JudgeServer) -> None:
    proc = run(
        judge,
        "explain",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/",
        "--case",
        "weather_paris",
        "--metric",
        "answer_rubrics",
    )
    out = proc.stdout
    assert "rubric answers_question: score 1 · Answer: it answers the question." in out
    assert "rubric states_units: score 0 · Answer: a number lacks its unit." in out


def test_gate_method_record(judge: JudgeServer) -> None:
    proc = run(
        judge,
        "explain",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/",
        "--case",
        "currency_wrong_amount",
        "--metric",
        "cheap_first_gate",
        "--json",
    )
    data = as_json(proc)
    (gate,) = steps(data, "gate")
    assert gate["method"] == "judge" and gate["exact"] is False and gate["rougeF1Bar"] == 0.8
    (vote,) = steps(data, "gate.vote")
    assert vote["pass"] == 1 and vote["passed"] is True
    fields = {f["path"]: f for f in data["criterion"]}
    assert fields["criterion.gate"]["value"] == {
        "rougeF1": 0.8,
        "judgeThreshold": 0.8,
        "useJudge": True,
    }


def test_saved_result_with_a_warm_cache_makes_no_judge_call(
    judge: JudgeServer, tmp_path: Path
) -> None:
    cache, out = str(tmp_path / "cache.sqlite"), tmp_path / "out"
    scored = run(
        judge,
        "run",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/",
        "--cache",
        cache,
        "--output",
        str(out),
        "--metric",
        "answer_matches_reference",
    )
    assert scored.returncode == 1, scored.stdout + scored.stderr
    (result,) = out.glob("*.json")
    judge.reset()
    for pattern, text in RULES:
        judge.when(pattern, Reply(content=text))
    proc = run(
        judge,
        "explain",
        str(result),
        "--case",
        "currency_wrong_amount",
        "--metric",
        "answer_matches_reference",
        "--metrics",
        "metrics/judges/travel-assistant.metrics.json",
        "--cache",
        cache,
        "--json",
    )
    assert judge.count == 0
    data = as_json(proc)
    assert data["judge"]["calls"] == 0 and data["judge"]["cacheHits"] == 3
    assert data["saved"]["status"] == "failed" and data["metric"]["status"] == "failed"
    assert data["notes"] == [] and proc.returncode == 1


def test_offline_with_a_cold_cache_names_the_missing_samples(
    judge: JudgeServer, tmp_path: Path
) -> None:
    proc = run(
        judge,
        "explain",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/",
        "--case",
        "currency_wrong_amount",
        "--metric",
        "answer_matches_reference",
        "--offline",
        "--cache",
        str(tmp_path / "cold.sqlite"),
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert judge.count == 0
    assert "not in the cache (offline): sample(s) 1, 2, 3" in proc.stdout
    assert (
        "missing from the cache (offline): turn 1 sample 1, turn 1 sample 2, turn 1 sample 3"
        in proc.stdout
    )


def test_saved_deterministic_result_needs_no_metric_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(
        None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "--output", str(out)
    )
    (result,) = out.glob("*.json")
    proc = run(
        None, "explain", str(result), "--case", "refund_amount_off", "--metric", "json_answer"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "$.refund.amount  differs  actual 12.5  expected 14.5" in proc.stdout
    assert "tool_trajectory_avg_score failed" in proc.stdout  # the case's other metric, saved
    assert "saved result: score 0 failed" in proc.stdout


def test_a_run_the_result_does_not_hold_is_named_as_such(tmp_path: Path) -> None:
    # Was "no case (run 2) 'refund_amount_off' (did you mean 'refund_amount_off'? ...)".
    out = tmp_path / "out"
    run(
        None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "--output", str(out)
    )
    (result,) = out.glob("*.json")
    args = ["--case", "refund_amount_off", "--metric", "json_answer", "--run", "2"]
    proc = run(None, "explain", str(result), *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"error: {result}: case 'refund_amount_off' has no run 2 (its runs: 1)"
    )


def test_the_json_record_has_the_documented_keys_in_order(tmp_path: Path) -> None:
    # The record tools read was documented nowhere.
    out = tmp_path / "out"
    run(
        None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "--output", str(out)
    )
    (result,) = out.glob("*.json")
    args = ["--case", "refund_amount_off", "--metric", "json_answer", "--json"]
    data = as_json(run(None, "explain", str(result), *args))
    assert list(data) == documented_keys("commands/explain.md", "`--json` prints one object")
    assert data["schemaVersion"] == 1 and data["exitCode"] == 1
    assert data["saved"] == {"score": 0, "status": "failed", "reason": data["saved"]["reason"]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--case", "nope", "--metric", "json_answer"], "'nope' matches nothing"),
        (["--case", "refund_amount_off", "--metric", "json_answr"], "'json_answr' matches nothing"),
        (
            ["--case", "refund_amount_off", "--metric", "json_answer", "--eval-set", "order"],
            "no eval set 'order' (did you mean 'order-api'? known: order-api)",
        ),
    ],
)
def test_unknown_case_or_metric_is_a_located_error(args: list[str], message: str) -> None:
    proc = run(None, "explain", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_an_eval_set_no_saved_result_holds_is_named(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "-o", str(out))
    (result,) = out.glob("*.json")
    args = ["--case", "refund_amount_off", "--metric", "json_answer", "--eval-set", "orders"]
    proc = run(None, "explain", str(result), *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"error: {result}: no eval set 'orders' (did you mean 'order-api'? known: order-api)"
        in (proc.stderr.splitlines())
    )


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        (
            ["--case", "", "--metric", "json_answer"],
            ["error: --case: must not be empty (give the evalId to explain)"],
        ),
        (
            ["--case", "", "--metric", "", "--eval-set", ""],
            [
                "error: --case: must not be empty (give the evalId to explain)",
                "error: --metric: must not be empty (give the metricName to explain)",
                "error: --eval-set: must not be empty (give the evalSetId to explain)",
            ],
        ),
    ],
)
def test_an_empty_case_metric_or_eval_set_is_bad_input(args: list[str], lines: list[str]) -> None:
    # --case '' was looked up as an evalId '', --eval-set '' silently dropped.
    proc = run(None, "explain", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    count = f"{len(lines)} problem{'s' if len(lines) > 1 else ''} found."
    assert proc.stderr.splitlines() == [*lines, count]
    assert proc.stdout == ""


def test_needs_one_input() -> None:
    proc = run(None, "explain", "--case", "a", "--metric", "b")
    assert proc.returncode == 2 and "nothing to explain" in proc.stderr


# The README's replies for the other judges of the shipped metric files.
MORE_RULES = [
    (
        "You are llm_rubric_critic",
        json.dumps(
            {
                "rubricScores": [
                    {"id": "key_facts", "score": 1, "reason": "Golden and Actual agree."}
                ]
            }
        ),
    ),
    (
        "You are llm_rubric_reference_critic",
        json.dumps(
            {
                "rubricScores": [
                    {
                        "id": "specific_and_complete",
                        "score": 1,
                        "reason": "As specific as Reference.",
                    }
                ]
            }
        ),
    ),
    (
        "You are the grader of a retrieval step",
        json.dumps(
            {
                "rubricScores": [
                    {"id": "policy_retrieved", "score": 1, "reason": "Doc: states the rule."}
                ]
            }
        ),
    ),
    ("into its individual claims", "<sentence>The answer restates the rule.</sentence>"),
    (
        "<segmented_sentences>",
        "ID: 1\nReason: the output states this rule.\nLabel: supported\nVerdict: yes",
    ),
]


@pytest.mark.parametrize(
    ("evalset", "metric", "case"),
    [
        (TRAVEL, "critic_key_facts", "weather_paris"),
        (TRAVEL, "as_useful_as_reference", "weather_paris"),
        (HELP, "retrieval_covers_answer", "return_window_shoes"),
        (HELP, "grounded_in_knowledge_base", "return_window_shoes"),
    ],
)
def test_each_judge_evaluator_shows_every_call_and_verdict(
    judge_server: JudgeServer, evalset: str, metric: str, case: str
) -> None:
    """Every call the judge answered is a recorded step with its exact messages and reply."""
    for pattern, text in MORE_RULES:
        judge_server.when(pattern, Reply(content=text))
    proc = run(
        judge_server,
        "explain",
        "-e",
        evalset,
        "-m",
        "metrics/judges/",
        "--case",
        case,
        "--metric",
        metric,
        "--json",
    )
    data = as_json(proc)
    calls = [s for s in data["steps"] if s["kind"] in ("judge.samples", "judge.ask")]
    sent = [body["messages"] for body in judge_server.bodies()]
    assert len(calls) == len(sent) >= 1
    assert sorted(json.dumps(c["data"]["messages"]) for c in calls) == sorted(
        json.dumps(m) for m in sent
    )
    served = {text for _, text in MORE_RULES}
    for call in calls:
        (reply,) = call["data"]["replies"]
        assert reply["text"] in served and reply["cached"] is False
    (verdict,) = steps(data, "judge.verdict")
    assert verdict["status"] == "passed" and data["metric"]["status"] == "passed"
    if "rubric" in verdict["reason"] or verdict["rubricScores"]:
        assert verdict["rubricScores"][0]["score"] == 1


def test_verifier_pairwise_reply_with_logprobs(judge_server: JudgeServer) -> None:
    def token(text: str, alternatives: list[tuple[str, float]] | None = None) -> dict[str, Any]:
        if alternatives is None:
            return {"token": text, "logprob": -0.01, "top_logprobs": []}
        return {
            "token": text,
            "logprob": alternatives[0][1],
            "top_logprobs": [{"token": t, "logprob": lp} for t, lp in alternatives],
        }

    stream = [
        token("Both close.\n<score_A>"),
        token("B", [("B", -0.2), ("A", -1.9)]),
        token("</score_A>\n<score_B>"),
        token("D", [("D", -0.4), ("C", -1.3)]),
        token("</score_B>"),
    ]
    content = "Both close.\n<score_A>B</score_A>\n<score_B>D</score_B>"
    judge_server.when("You are a verifier.", Reply(content=content, logprobs=stream))
    proc = run(
        judge_server,
        "explain",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/logprobs/",
        "--case",
        "weather_paris",
        "--metric",
        "agent_vs_reference",
        "--json",
    )
    data = as_json(proc)
    (call,) = steps(data, "judge.samples")
    assert call["replies"][0]["text"] == content
    (verdict,) = steps(data, "judge.verdict")
    assert verdict["score"] == pytest.approx(data["metric"]["score"])


def test_a_reply_that_does_not_parse_shows_the_raw_text_and_the_parse_error(
    judge_server: JudgeServer,
) -> None:
    judge_server.when("You are the grader of an AI agent", Reply(content="Looks fine to me."))
    proc = run(
        judge_server,
        "explain",
        "-e",
        TRAVEL,
        "-m",
        "metrics/judges/",
        "--case",
        "weather_paris",
        "--metric",
        "answer_rubrics",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "sample 1 raw reply (17 chars, from the judge):" in out
    assert "Looks fine to me." in out
    assert "sample 1: parse error unmarshal response json: Expecting value" in out
    assert "metric answer_rubrics: the evaluator stopped: the case fails" in out


def test_a_turn_past_the_last_is_a_usage_error_before_any_output() -> None:
    proc = run(
        None,
        "explain",
        "-e",
        "evalsets/order-api.evalset.json",
        "-m",
        "metrics/",
        "--case",
        "refund_amount_off",
        "--metric",
        "json_answer",
        "--turn",
        "3",
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--turn: the case has 1 turn(s)" in proc.stderr


def test_an_eval_sets_warnings_are_printed_and_listed(tmp_path: Path) -> None:
    # explain scores through the same checks as run: what they warn of is never dropped.
    data = json.loads((REPO / "evalsets/order-api.evalset.json").read_text(encoding="utf-8"))
    data["reviewedBy"] = "qa"
    evalset = tmp_path / "order-api.evalset.json"
    evalset.write_text(json.dumps(data), encoding="utf-8")
    args = ["--case", "refund_amount_off", "--metric", "json_answer"]
    common = ["explain", "--evalset", str(evalset), "-m", str(REPO / "metrics"), *args]
    proc = run(None, *common)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    warning = f"{evalset}: reviewedBy: 'reviewedBy' is not a field of EvalSet"
    assert [line for line in proc.stderr.splitlines() if "warning:" in line] == [
        line for line in proc.stderr.splitlines() if line.startswith(f"warning: {warning}")
    ]
    assert any(line.startswith(f"warning: {warning}") for line in proc.stderr.splitlines())
    data = as_json(run(None, *common, "--json"))
    assert [line.split(" (", 1)[0] for line in data["warnings"]] == [warning]


def test_a_partly_evaluated_metric_is_incomplete_from_a_result_and_an_eval_set(
    tmp_path: Path,
) -> None:
    # Turn 2 has no usage: token_usage counts 15 <= 100 (passed) on turn 1 alone, and run
    # calls the case INCOMPLETE (exit 3): explain must not say passed, exit 0.
    evalset = tmp_path / "u.evalset.json"
    evalset.write_text(json.dumps(usage_eval_set(usage_on_turn_2=False)))
    metrics = tmp_path / "tok.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "token_usage", "threshold": 100}]))
    out = tmp_path / "out"
    ran = run(None, "run", "-e", str(evalset), "-m", str(metrics), "--output", str(out))
    assert ran.returncode == 3, ran.stdout + ran.stderr
    target = ["--case", "c1", "--metric", "token_usage"]
    for source in (["-e", str(evalset), "-m", str(metrics)], [str(out)]):
        proc = run(None, "explain", *source, *target)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert "→ passed" not in proc.stdout.split("\ncase c1: ")[1]
        data = as_json(run(None, "explain", *source, *target, "--json"))
        assert (data["case"]["status"], data["exitCode"]) == ("incomplete", 3)
        assert data["metric"]["incomplete"] is True


ANY_METRIC = """
from agenteval.plugins import register_case_aggregator

@register_case_aggregator("any_metric")
def any_metric(case, metrics, results):
    passed = any(r.eval_status == "passed" for r in results)
    return (1.0 if passed else 0.0), ("passed" if passed else "failed")
"""


def test_the_case_verdict_is_the_runs_or_none(tmp_path: Path) -> None:
    # currency_wrong_amount: the trajectory fails, the answer's length passes.
    plugin = tmp_path / "anyagg.py"
    plugin.write_text(ANY_METRIC)
    out = tmp_path / "out"
    ran = run(
        None,
        "run",
        "-e",
        TRAVEL,
        "-m",
        "metrics/",
        "--plugin",
        str(plugin),
        "--case-aggregator",
        "any_metric",
        "--output",
        str(out),
        "--case",
        "currency_wrong_amount",
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr  # a metric passed: any_metric passes
    target = ["--case", "currency_wrong_amount", "--metric", "tool_trajectory_avg_score"]
    data = as_json(run(None, "explain", str(out), *target, "--json"))
    # The metric explained fails (exit 1), the case is passed as the run's aggregator said.
    assert (data["metric"]["status"], data["case"]["status"], data["exitCode"]) == (
        "failed",
        "passed",
        1,
    )
    # From the eval set explain scores answer_length only: no case verdict is claimed
    # (run, with every metric and the default aggregator, fails the case).
    target = ["--case", "currency_wrong_amount", "--metric", "answer_length"]
    data = as_json(run(None, "explain", "-e", TRAVEL, "-m", "metrics/", *target, "--json"))
    assert data["metric"]["status"] == "passed" and data["case"]["status"] is None
    assert data["case"]["arithmetic"].startswith("not computed: explain scored answer_length only")


def test_a_metric_file_given_with_a_result_is_checked_as_run_checks_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "-o", str(out))
    data = json.loads((REPO / "metrics/order-api.metrics.json").read_text(encoding="utf-8"))
    data[1]["qqq"] = 1
    warned = tmp_path / "warned.metrics.json"
    warned.write_text(json.dumps(data))
    data[1]["criterion"]["finalResponse"]["jsn"] = {}
    wrong = tmp_path / "wrong.metrics.json"
    wrong.write_text(json.dumps(data))
    target = ["--case", "cancel_order", "--metric", "json_answer"]
    proc = run(None, "explain", str(out), "-m", str(wrong), *target)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{wrong}: [1].criterion.finalResponse.jsn: 'jsn' is not a field" in proc.stderr
    assert "(did you mean 'json'?)" in proc.stderr and proc.stdout == ""
    proc = run(None, "explain", str(out), "-m", str(warned), *target, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warning = f"{warned}: [1].qqq: 'qqq' is not a field of EvalMetric"
    assert f"warning: {warning}" in proc.stderr
    assert [line.split(" (", 1)[0] for line in as_json(proc)["warnings"]] == [warning]


def test_a_case_saved_in_two_files_names_them(tmp_path: Path) -> None:
    out = tmp_path / "two"
    for _ in range(2):
        run(None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "-o", str(out))
    files = sorted(str(path) for path in out.glob("*.json"))
    assert len(files) == 2
    target = ["--case", "cancel_order", "--metric", "json_answer"]
    for extra in ([], ["--eval-set", "order-api"]):
        proc = run(None, "explain", str(out), *target, *extra)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert "pass --eval-set" not in line
        assert "case 'cancel_order' (run 1) of eval set order-api is in 2 results: " in line
        assert all(file in line for file in files)
        assert line.endswith("(pass the one result file to explain)")
    # Passing one of them, as the message says, explains it.
    assert run(None, "explain", files[0], *target).returncode == 0


def test_a_case_in_many_results_names_the_first_ten_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    """64 result files holding the case were one error line of 64 full paths."""
    out = tmp_path / "many"
    run(None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "-o", str(out))
    (first,) = out.glob("*.json")
    for i in range(63):
        (out / f"copy{i:02}.evalset_result.json").write_bytes(first.read_bytes())
    files = sorted(str(path) for path in out.glob("*.json"))
    proc = run(None, "explain", str(out), "--case", "cancel_order", "--metric", "json_answer")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert line == (
        f"error: {out}: case 'cancel_order' (run 1) of eval set order-api is in 64 results: "
        f"{', '.join(files[:10])} … and 54 more (pass the one result file to explain)"
    )


def test_a_case_a_run_document_holds_twice_names_its_places_and_the_way_out(
    tmp_path: Path,
) -> None:
    """The same eval set run twice into one --json document: the message said the case was
    "in 2 results" naming the one file, and to pass that one file (the file given)."""
    copy = tmp_path / "copy" / "order-api.evalset.json"
    copy.parent.mkdir()
    copy.write_text((REPO / "evalsets/order-api.evalset.json").read_text(encoding="utf-8"))
    document, out = tmp_path / "run.json", tmp_path / "out"
    run(
        None, "run", "-e", "evalsets/order-api.evalset.json", "-e", str(copy), "-m", "metrics/",
        "-o", str(out), "--json", str(document),
    )  # fmt: skip
    target = ["--case", "cancel_order", "--metric", "json_answer"]
    proc = run(None, "explain", str(document), *target)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert line == (
        f"error: {document}: case 'cancel_order' (run 1) of eval set order-api appears 2 "
        f"times: {document} at evalSetResults[0].evalCaseResults[2], "
        "evalSetResults[1].evalCaseResults[2] (eval set order-api was run more than once into "
        "one document: explain the result file of one of those runs, which run --output DIR "
        "writes for each)"
    )
    # The way out, as the message says: one run's own result file.
    files = sorted(out.glob("*.evalset_result.json"))
    assert len(files) == 2
    assert run(None, "explain", str(files[0]), *target).returncode == 0


def test_a_case_in_several_eval_sets_needs_eval_set_and_is_never_picked_silently(
    tmp_path: Path,
) -> None:
    """Two eval sets hold ``refund_amount_off``: explaining the first found explained a
    case the user may not have meant, without a word; the result path already asked."""
    source = json.loads((REPO / "evalsets" / "order-api.evalset.json").read_text())
    sets = tmp_path / "sets"
    sets.mkdir()
    metrics = json.loads((REPO / "metrics" / "order-api.metrics.json").read_text())
    for name in ("first", "second"):
        (sets / f"{name}.evalset.json").write_text(json.dumps({**source, "evalSetId": name}))
        (sets / f"{name}.metrics.json").write_text(json.dumps(metrics))
    args = ["explain", "--evalset", str(sets), "--case", "refund_amount_off"]
    proc = run(None, *args, "--metric", "json_answer")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        "case 'refund_amount_off' (run 1) is in several eval sets: first, second "
        "(pass --eval-set ID)"
    ) in proc.stderr
    proc = run(None, *args, "--metric", "json_answer", "--eval-set", "second")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "second.evalset.json" in proc.stdout
    assert "$.refund.amount  differs  actual 12.5  expected 14.5" in proc.stdout


def test_a_saved_result_without_a_threshold_is_not_scored_against_zero(tmp_path: Path) -> None:
    """A hand-edited result whose metric has no ``threshold`` (Go always writes one) was
    scored against 0: "0 >= threshold 0 → passed", exit 0, the threshold labelled "← saved
    result" though the file holds none. Now a located error says so; with the metric file
    the threshold is that file's, and labelled so."""
    out = tmp_path / "out"
    run(None, "run", "-e", "evalsets/order-api.evalset.json", "-m", "metrics/", "-o", str(out))
    (saved,) = out.glob("*.json")
    data = json.loads(saved.read_text(encoding="utf-8"))
    index = next(
        i for i, c in enumerate(data["evalCaseResults"]) if c["evalId"] == "refund_amount_off"
    )
    metrics = data["evalCaseResults"][index]["overallEvalMetricResults"]
    position = next(i for i, m in enumerate(metrics) if m["metricName"] == "json_answer")
    del metrics[position]["threshold"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    target = ["--case", "refund_amount_off", "--metric", "json_answer"]
    proc = run(None, "explain", str(edited), *target)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[0] == (
        f"error: {edited}: evalCaseResults[{index}].overallEvalMetricResults[{position}]: "
        "the saved result of metric 'json_answer' has no threshold to score it against "
        "(pass --metrics FILE, the metric file that defines it)"
    )
    metric_file = "metrics/order-api.metrics.json"
    proc = run(None, "explain", str(edited), "-m", metric_file, *target)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(
        rf"threshold = 1(\.0)?  ← {re.escape(metric_file)}: \[\d\]\.threshold\n", proc.stdout
    )
    assert "saved result (" not in proc.stdout


def test_run_n_on_the_spot_explains_that_runs_judge_samples(
    judge: JudgeServer, tmp_path: Path
) -> None:
    # -e scores on the spot; --run N is not ignored there: sample k of run N is sample
    # (N-1)·n+k, the one `run --num-runs` asked (and cached) for that run.
    args = ["explain", "-e", TRAVEL, "-m", "metrics/judges/", "--case", "currency_wrong_amount"]
    args += ["--metric", "answer_matches_reference", "--cache", str(tmp_path / "c.sqlite")]
    samples = {}
    for run_id in ("1", "2"):
        data = as_json(run(judge, *args, "--run", run_id, "--json"))
        (request,) = steps(data, "judge.samples")
        samples[run_id] = [reply["sample"] for reply in request["replies"]]
    assert samples == {"1": [0, 1, 2], "2": [3, 4, 5]}
    assert judge.count == 6  # run 2 found none of run 1's replies in the cache
