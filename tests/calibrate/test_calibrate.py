"""``agenteval calibrate`` end to end: verdicts from the loopback judge, labels with a known κ.

Ten one-turn cases scored by ``llm_rubric_response`` (two rubrics, threshold 1): the
judge says yes to both rubrics for c0..c4 (score 1), to one for c5, c6 (score 0.5), to
none for c7..c9 (score 0).  People pass c0..c3, c5, c6 and fail c4, c7..c9.

At the metric's threshold 1 the judge passes c0..c4: the confusion matrix (rows judge,
columns people) is [[4, 1], [2, 3]], accuracy 0.7, pₑ = .5·.6 + .5·.4 = .5, so
κ = (.7 − .5)/(1 − .5) = 0.4; precision of fail 3/5, recall 3/4.  At threshold 0.5 the
judge passes c0..c6: [[6, 1], [0, 3]], pₒ = .9, pₑ = .7·.6 + .3·.4 = .54,
κ = .36/.46 = 18/23, the largest over every threshold (0 and above 1 give κ 0).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.schema.base import dump_json
from agenteval.schema.evalset import Invocation
from agenteval.schema.result import DetailValue, EvalCaseResult, EvalMetricResultPerInvocation
from cli_process import run_cli
from judge_server import JudgeServer, Reply
from sample_results import F, P, case_result, eval_set_result, metric
from trace_cases import trace_case

CASES = [f"c{i}" for i in range(10)]
JUDGE_SCORES = {"c0": 1, "c1": 1, "c2": 1, "c3": 1, "c4": 1, "c5": 0.5, "c6": 0.5}
PEOPLE_PASS = {"c0", "c1", "c2", "c3", "c5", "c6"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180)


def rubric_reply(yes: int) -> Reply:
    items = [{"id": "1", "score": 1 if yes >= 1 else 0, "reason": "r1"}]
    items.append({"id": "2", "score": 1 if yes >= 2 else 0, "reason": "r2"})
    return Reply(content=json.dumps({"rubricScores": items}))


def write_inputs(tmp_path: Path, server: JudgeServer) -> tuple[Path, Path]:
    """The ten cases' eval set and metric file, the judge scripted for them."""
    cases = []
    for eval_id in CASES:
        yes = int(JUDGE_SCORES.get(eval_id, 0) * 2)
        replies = [rubric_reply(yes)]
        if eval_id == "c9":
            replies = [rubric_reply(0), rubric_reply(2), rubric_reply(0)]  # 2 of 3 samples agree
        server.when(f"question {eval_id}?", *replies)
        turn = {
            "invocationId": f"{eval_id}-t1",
            "userContent": {"role": "user", "content": f"question {eval_id}?"},
            "finalResponse": {"role": "assistant", "content": "answer"},
        }
        cases.append(trace_case(eval_id, turn))
    evalset = tmp_path / "qa.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "qa", "evalCases": cases}))
    judge = {
        "providerName": "openai",
        "modelName": "m",
        "baseURL": server.base_url,
        "apiKey": "sk-x",
        "numSamples": 3,
    }
    rubrics = [
        {"id": i, "content": {"text": f"rubric {i}"}, "type": "FINAL_RESPONSE_QUALITY"}
        for i in ("1", "2")
    ]
    metrics = tmp_path / "qa.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "llm_rubric_response",
                    "threshold": 1,
                    "criterion": {"llmJudge": {"judgeModel": judge, "rubrics": rubrics}},
                }
            ]
        )
    )
    return evalset, metrics


def scored_result(tmp_path: Path, server: JudgeServer, cache: Path | None = None) -> Path:
    """Run the ten cases against the scripted judge (its replies into ``cache``, if given);
    the result file."""
    evalset, metrics = write_inputs(tmp_path, server)
    run = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics),
        *(["--cache", str(cache)] if cache else ["--no-cache"]),
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    (path,) = (tmp_path / "out").glob("*.evalset_result.json")
    return path


def write_labels(tmp_path: Path, extra: list[dict[str, Any]]) -> Path:
    lines = [
        {
            "evalSetId": "qa",
            "evalId": eval_id,
            "metricName": "llm_rubric_response",
            "label": "pass" if eval_id in PEOPLE_PASS else "fail",
        }
        for eval_id in CASES
    ]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [*lines, *extra]))
    return path


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with JudgeServer() as server:
        return scored_result(tmp_path_factory.mktemp("calibrate"), server)


UNKNOWN = [
    {"evalSetId": "qa", "evalId": "ghost", "metricName": "llm_rubric_response", "label": "pass"},
    {"evalSetId": "qa", "evalId": "c0", "metricName": "no_such_metric", "label": "pass"},
]
RUBRIC = [
    {"evalSetId": "qa", "evalId": "c5", "metricName": "llm_rubric_response", "rubricId": "1", "label": "pass"},
    {"evalSetId": "qa", "evalId": "c6", "metricName": "llm_rubric_response", "rubricId": "2", "label": "pass"},
]  # fmt: skip


def test_kappa_confusion_accuracy_and_the_suggested_threshold_are_exact(
    result: Path, tmp_path: Path
) -> None:
    labels = write_labels(tmp_path, [*UNKNOWN, *RUBRIC])
    run = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    groups = {g["name"]: g for g in data["groups"]}
    assert list(groups) == [
        "llm_rubric_response",
        "llm_rubric_response / 1",
        "llm_rubric_response / 2",
    ]
    metric = groups["llm_rubric_response"]
    block = metric["passFail"]
    assert block["items"] == 10
    assert block["confusion"] == {"classes": ["pass", "fail"], "matrix": [[4, 1], [2, 3]]}
    assert block["accuracy"] == pytest.approx(0.7, abs=1e-12)
    assert block["kappa"] == pytest.approx(0.4, abs=1e-12)
    assert block["failPrecision"] == pytest.approx(0.6, abs=1e-12)
    assert block["failRecall"] == pytest.approx(0.75, abs=1e-12)
    assert block["threshold"] == 1
    assert block["suggestedThreshold"]["value"] == 0.5
    assert block["suggestedThreshold"]["kappa"] == pytest.approx(18 / 23, abs=1e-12)
    assert block["suggestedThreshold"]["applied"] is False
    interval = block["kappaInterval"]
    assert interval["low"] <= 0.4 <= interval["high"] and interval["seed"] == 0
    # The same seed gives the same interval.
    again = json.loads(cli("calibrate", str(result), "--labels", str(labels), "--json").stdout)
    assert again["groups"][0]["passFail"]["kappaInterval"] == interval
    # c9's three samples split 2 to 1; every other case's agreed.
    consistency = metric["selfConsistency"]
    assert consistency["items"] == 10 and consistency["unanimous"] == 9
    assert consistency["meanAgreement"] == pytest.approx((9 + 2 / 3) / 10, abs=1e-12)
    # The three disagreements, each with its explain command line.
    assert [(d["evalId"], d["judge"], d["people"]) for d in metric["disagreements"]] == [
        ("c4", "pass", "fail"),
        ("c5", "fail", "pass"),
        ("c6", "fail", "pass"),
    ]
    assert metric["disagreements"][0]["explain"] == (
        f"agenteval explain {result} --case c4 --metric llm_rubric_response"
    )
    # Rubric 1 of c5 is yes (agrees); rubric 2 of c6 is no (disagrees).
    assert groups["llm_rubric_response / 1"]["passFail"]["accuracy"] == 1
    assert groups["llm_rubric_response / 2"]["passFail"]["accuracy"] == 0
    assert [(u["evalId"], u["metricName"], u["line"]) for u in data["unknownLabels"]] == [
        ("ghost", "llm_rubric_response", "line 11"),
        ("c0", "no_such_metric", "line 12"),
    ]
    assert "warning: 2 labels name no scored item" in run.stderr


def test_the_console_and_the_html_page_show_the_same_numbers(result: Path, tmp_path: Path) -> None:
    labels = write_labels(tmp_path, UNKNOWN)
    page = tmp_path / "calibration.html"
    run = cli("calibrate", str(result), "--labels", str(labels), "--html", str(page))
    assert run.returncode == 0, run.stdout + run.stderr
    out = " ".join(run.stdout.split())
    assert "llm_rubric_response 10 labelled items" in out
    assert "accuracy 0.7 · Cohen's κ 0.4 (95% bootstrap interval" in out
    assert "judge \\ people pass fail pass 4 1 fail 2 3" in out
    assert "fail: precision 0.6 · recall 0.75" in out
    assert "the threshold that maximises κ on these labels: 0.5 (κ 0.7826), not applied" in out
    assert "qa/c4 llm_rubric_response: judge pass, people fail (line 5)" in out
    assert f"agenteval explain {result} --case c4 --metric llm_rubric_response" in out
    assert "2 labels that name no scored item: line 11: qa/ghost llm_rubric_response" in out
    text = page.read_text()
    assert "<td>4</td><td>1</td>" in text and "Cohen&#x27;s κ 0.4" in text
    assert "qa/ghost" in text
    # Like the report's pages, it runs nothing and fetches nothing, whatever a label holds.
    policy = "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src"
    assert policy in text and "<script" not in text


def test_labels_from_csv_give_the_same_result(result: Path, tmp_path: Path) -> None:
    rows = ["evalSetId,evalId,metricName,invocationId,label"]
    rows += [f"qa,{c},llm_rubric_response,,{'pass' if c in PEOPLE_PASS else 'fail'}" for c in CASES]
    rows.append("qa,c4,llm_rubric_response,c4-t1,fail")  # the turn of c4, named
    path = tmp_path / "labels.csv"
    path.write_text("\n".join(rows) + "\n")
    run = cli("calibrate", str(result), "--labels", str(path), "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    block = json.loads(run.stdout)["groups"][0]["passFail"]
    assert block["items"] == 11
    assert block["confusion"]["matrix"] == [[4, 2], [2, 3]]


def test_a_bad_labels_file_is_a_located_error(result: Path, tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"evalSetId": "qa", "evalId": "c0", "metricName": "m", "lable": "pass"}\n'
        '{"evalSetId": "qa", "evalId": "c1", "metricName": "m", "label": "ok"}\n'
        '{"evalSetId": "qa", "evalId": "c1", "metricName": "m", "label": "pass", "score": 1}\n'
        "not json\n"
    )
    run = cli("calibrate", str(result), "--labels", str(path))
    assert run.returncode == 2, run.stdout + run.stderr
    err = " ".join(run.stderr.split())
    assert f"{path}: line 1: lable: unknown key (did you mean 'label'?)" in err
    assert f"{path}: line 2: label:" in err
    assert (
        f"{path}: line 3: give exactly one of label (pass|fail), score or category, got label, score"
        in err
    )
    assert f"{path}: line 4: invalid JSON" in err


def test_a_labelled_item_the_judge_did_not_evaluate_makes_it_incomplete(
    result: Path, tmp_path: Path
) -> None:
    data = json.loads(result.read_text())
    first = data["evalCaseResults"][0]
    assert first["evalId"] == "c0"
    first["overallEvalMetricResults"][0]["evalStatus"] = "not_evaluated"
    edited = tmp_path / "edited.evalset_result.json"
    edited.write_text(json.dumps(data))
    run = cli("calibrate", str(edited), "--labels", str(write_labels(tmp_path, [])), "--json")
    assert run.returncode == 3, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert [(e["evalId"], e["line"]) for e in document["notEvaluated"]] == [("c0", "line 1")]
    assert document["groups"][0]["passFail"]["items"] == 9
    assert "incomplete: the judge did not evaluate 1 labelled item" in run.stderr


def tok(text: str) -> dict[str, Any]:
    """A token the judge is sure of (logprob 0), as the server sends it."""
    return {"token": text, "logprob": 0.0, "top_logprobs": [{"token": text, "logprob": 0.0}]}


def test_a_judge_that_always_prefers_the_first_answer_flips_every_time(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    # Whatever the order: candidate A graded A (best), B graded T (worst).
    stream = [tok("<score_A>"), tok("A"), tok("</score_A>\n<score_B>"), tok("T")]
    judge_server.default = Reply(content="".join(t["token"] for t in stream), logprobs=stream)
    cases = []
    for eval_id in ("p1", "p2", "p3"):
        user = {"role": "user", "content": f"which is better, {eval_id}?"}
        cases.append(
            {
                "evalId": eval_id,
                "evalMode": "trace",
                "sessionInput": {"appName": "app", "userId": "u"},
                "conversation": [
                    {"userContent": user, "finalResponse": {"role": "assistant", "content": "ref"}}
                ],
                "actualConversation": [
                    {"userContent": user, "finalResponse": {"role": "assistant", "content": "mine"}}
                ],
            }
        )
    evalset = tmp_path / "pairs.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "pairs", "evalCases": cases}))
    judge = {
        "providerName": "openai",
        "modelName": "m",
        "baseURL": judge_server.base_url,
        "apiKey": "sk-x",
        "generationConfig": {"logprobs": True, "top_logprobs": 20},
    }
    rubric = {"id": "accurate", "content": {"text": "The answer is accurate."}}
    metrics = tmp_path / "pairs.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "preferred",
                    "evaluatorName": "llm_verifier_pairwise",
                    "threshold": 0.5,
                    "criterion": {
                        "llmJudge": {"judgeModel": judge, "rubrics": [rubric]},
                        "positionCheck": True,
                    },
                }
            ]
        )
    )
    run = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert judge_server.count == 6  # each case asked in both orders
    labels = tmp_path / "pairs.jsonl"
    labels.write_text(
        "".join(
            json.dumps(
                {"evalSetId": "pairs", "evalId": c, "metricName": "preferred", "label": "pass"}
            )
            + "\n"
            for c in ("p1", "p2", "p3")
        )
    )
    shown = cli("calibrate", str(tmp_path / "out"), "--labels", str(labels))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert (
        "position bias: the preferred answer flipped when the candidates were swapped in 3 of 3 "
        "turns (100%)" in " ".join(shown.stdout.split())
    )
    document = json.loads(
        cli("calibrate", str(tmp_path / "out"), "--labels", str(labels), "--json").stdout
    )
    assert document["groups"][0]["positionBias"] == {"turns": 3, "flips": 3, "flipRate": 1.0}


# Results written by hand (tests/sample_results.py): each case's score and verdict chosen.


def saved(tmp_path: Path, *cases: EvalCaseResult, set_id: str = "s") -> Path:
    """A result file of ``cases`` (of eval set ``set_id``) in its own directory."""
    directory = tmp_path / "result"
    directory.mkdir(exist_ok=True)
    path = directory / f"app_{set_id}.evalset_result.json"
    path.write_text(dump_json(eval_set_result(set_id, cases)))
    return path


def label_file(tmp_path: Path, *lines: dict[str, Any], name: str = "labels.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


def lab(eval_id: str, metric_name: str, verdict: str, **more: Any) -> dict[str, Any]:
    """One pass/fail label of eval set ``s`` (``more``: invocationId, category…)."""
    line: dict[str, Any] = {"evalSetId": "s", "evalId": eval_id, "metricName": metric_name}
    line.update({"label": verdict} if verdict else {})
    line.update(more)
    return line


def test_rich_markup_in_names_from_the_labels_or_the_result_is_printed_as_text(
    tmp_path: Path,
) -> None:
    result = saved(tmp_path, case_result("s", "[/bold]", [metric("m", 1.0)]))
    labels = label_file(
        tmp_path,
        lab("[/bold]", "m", "fail"),  # a disagreement on a case named like a closing tag
        lab("case_[red]x[/red]_y", "[b]m", "pass"),  # names nothing
        lab("[/bold]", "[/i]", "pass"),  # names nothing either
    )
    run = cli("calibrate", str(result), "--labels", str(labels))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert "s/[/bold] m: judge pass, people fail (line 1)" in run.stdout
    assert f"agenteval explain {result} --case '[/bold]' --metric m" in run.stdout
    assert "line 2: s/case_[red]x[/red]_y [b]m" in run.stdout
    assert "line 3: s/[/bold] [/i]" in run.stdout


def test_a_count_metric_is_bounded_above_by_its_threshold(tmp_path: Path) -> None:
    # few makes 1 tool call, many 3; threshold 2 passes few and fails many, as people say:
    # κ 1 at threshold 2.  Below 1 nothing would pass, from 3 up both (κ 0).  "calls" is
    # a tool_call_count metric under another name: its verdicts say it is bounded above.
    cases = [
        case_result("s", "few", [metric("tool_call_count", 1, 2, P), metric("calls", 1, 2, P)]),
        case_result("s", "many", [metric("tool_call_count", 3, 2, F), metric("calls", 3, 2, F)]),
    ]
    result = saved(tmp_path, *cases)
    labels = label_file(
        tmp_path,
        *(lab(c, m, v) for m in ("calls", "tool_call_count") for c, v in (("few", "pass"), ("many", "fail"))),
    )  # fmt: skip
    run = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    for group in json.loads(run.stdout)["groups"]:
        block = group["passFail"]
        assert (block["kappa"], block["threshold"], block["upperBound"]) == (1, 2, True)
        assert block["suggestedThreshold"] == {"value": 2, "kappa": 1, "applied": False}
    shown = " ".join(cli("calibrate", str(result), "--labels", str(labels)).stdout.split())
    assert (
        "threshold 2 (an upper bound) · the threshold that maximises κ on these labels: 2 (κ 1)"
        in shown
    )


def test_a_results_own_upper_bound_wins_over_a_guess_from_its_verdicts(tmp_path: Path) -> None:
    # "calls" (a count evaluator under another name) scored 2 on both cases against a bound
    # of 2: both passed, which fits "score <= 2" and "score >= 2" alike, so the verdicts
    # guessed no upper bound.  The result says upperBound: that is used.
    def calls() -> Any:
        said = metric("calls", 2, 2, P)
        assert said.__pydantic_extra__ is not None
        said.__pydantic_extra__["upperBound"] = True
        return said

    labels = label_file(tmp_path, lab("a", "calls", "pass"), lab("b", "calls", "fail"))
    written = saved(tmp_path, *(case_result("s", c, [calls()]) for c in ("a", "b")))
    run = cli("calibrate", str(written), "--labels", str(labels), "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    block = json.loads(run.stdout)["groups"][0]["passFail"]
    assert (block["threshold"], block["upperBound"]) == (2, True)
    # An upper bound of 2 passes both whatever it is from 2 up; below 2 fails both: κ 0.
    assert block["suggestedThreshold"] == {"value": 2, "kappa": 0, "applied": False}
    # A file written before the key: the verdicts still decide (both fit: not bounded).
    old = saved(tmp_path, *(case_result("s", c, [metric("calls", 2, 2, P)]) for c in ("a", "b")))
    run = cli("calibrate", str(old), "--labels", str(labels), "--json")
    assert json.loads(run.stdout)["groups"][0]["passFail"]["upperBound"] is False


def test_the_suggested_threshold_never_makes_kappa_worse(tmp_path: Path) -> None:
    # Scores 1, 0, 1 at threshold 1; people fail, pass, fail: the judge disagrees on each,
    # po = 0, pe = (2/3)(1/3) + (1/3)(2/3) = 4/9, κ = -(4/9)/(5/9) = -0.8.  Threshold 0
    # passes all three: po = 1/3 = pe, κ 0.
    result = saved(
        tmp_path,
        *(case_result("s", c, [metric("m", s)]) for c, s in (("a", 1), ("b", 0), ("c", 1))),
    )
    labels = label_file(
        tmp_path, lab("a", "m", "fail"), lab("b", "m", "pass"), lab("c", "m", "fail")
    )
    block = json.loads(cli("calibrate", str(result), "--labels", str(labels), "--json").stdout)
    block = block["groups"][0]["passFail"]
    assert block["kappa"] == pytest.approx(-0.8, abs=1e-12)
    assert block["suggestedThreshold"] == {"value": 0, "kappa": 0, "applied": False}
    # Two passes the judge passed too (accuracy 1): the current threshold stays suggested,
    # not one above every score that would fail them both.
    agree = label_file(tmp_path, lab("a", "m", "pass"), lab("c", "m", "pass"), name="agree.jsonl")
    block = json.loads(cli("calibrate", str(result), "--labels", str(agree), "--json").stdout)
    block = block["groups"][0]["passFail"]
    assert block["accuracy"] == 1 and block["kappa"] is None
    assert block["suggestedThreshold"] == {"value": 1, "kappa": None, "applied": False}


def test_an_html_page_that_cannot_be_written_is_a_located_error(tmp_path: Path) -> None:
    result = saved(tmp_path, case_result("s", "a", [metric("m", 1.0)]))
    labels = label_file(tmp_path, lab("a", "m", "pass"))
    # The result's own directory given as the page: refused before anything is read.
    run = cli("calibrate", str(result), "--labels", str(labels), "--html", str(result.parent))
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"error: {result.parent}: --html is a directory (give a file name)" in run.stderr
    assert run.stdout == "" and "internal error" not in run.stderr


REPO = Path(__file__).resolve().parents[2]


def test_the_explain_line_of_a_labelled_turn_names_it_by_its_place(tmp_path: Path) -> None:
    # packing_tips_two_turns: turn pack-2 (the second) scores 0 on answer_length.
    out = tmp_path / "out"
    run = cli(
        "run", "--evalset", str(REPO / "evalsets/travel-assistant.evalset.json"),
        "--metrics", str(REPO / "metrics/travel-assistant.metrics.json"), "--output", str(out),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    line = {
        "evalSetId": "travel-assistant",
        "evalId": "packing_tips_two_turns",
        "metricName": "answer_length",
        "invocationId": "pack-2",
        "label": "pass",
    }
    shown = cli("calibrate", str(out), "--labels", str(label_file(tmp_path, line)), "--json")
    (entry,) = json.loads(shown.stdout)["groups"][0]["disagreements"]
    command = (
        f"agenteval explain {out} --case packing_tips_two_turns --metric answer_length --turn 2"
    )
    assert entry["explain"] == command and "explainNeeds" not in entry
    explained = cli(*shlex.split(command)[1:])
    assert explained.returncode == 1, explained.stdout + explained.stderr  # the metric failed
    assert "turn score 0 < threshold 1 → failed" in explained.stdout


def test_an_explain_line_says_when_it_needs_the_metric_file(tmp_path: Path) -> None:
    # "policy" has no criterion and is no evaluator's name: explain cannot tell what scored it.
    result = saved(tmp_path, case_result("s", "a", [metric("policy", 1.0)]))
    labels = label_file(tmp_path, lab("a", "policy", "fail"))
    document = json.loads(cli("calibrate", str(result), "--labels", str(labels), "--json").stdout)
    (entry,) = document["groups"][0]["disagreements"]
    assert entry["explain"] == f"agenteval explain {result} --case a --metric policy --metrics FILE"
    needs = (
        "FILE: the metric file that defines policy; the result does not say which evaluator "
        "scored it"
    )
    assert entry["explainNeeds"] == needs
    shown = cli("calibrate", str(result), "--labels", str(labels)).stdout
    assert f"--metric policy --metrics FILE  ({needs})" in shown


def test_labels_of_a_case_that_failed_before_scoring_are_not_evaluated(tmp_path: Path) -> None:
    # The agent never ran: the case holds an error and no metric result at all.
    broken = case_result("s", "broken", [], error="this case needs an agent run")
    result = saved(tmp_path, broken, case_result("s", "fine", [metric("m", 1.0)]))
    labels = label_file(
        tmp_path,
        lab("broken", "tool_call_count", "pass"),
        lab("fine", "m", "pass"),
        lab("ghost", "m", "pass"),  # no such case: names no scored item
    )
    run = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert run.returncode == 3, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert [(e["evalId"], e["line"]) for e in document["notEvaluated"]] == [("broken", "line 1")]
    assert [(e["evalId"], e["line"]) for e in document["unknownLabels"]] == [("ghost", "line 3")]
    assert "incomplete: the judge did not evaluate 1 labelled item" in run.stderr


def test_a_category_label_of_a_metric_that_wrote_no_category_is_not_evaluated(
    tmp_path: Path,
) -> None:
    rated = metric("tone", 1.0)
    assert rated.details is not None
    rated.details.value = DetailValue(kind="categorical", categorical="good")
    result = saved(
        tmp_path,
        case_result("s", "a", [metric("m", 1.0), rated]),
        case_result("s", "b", [rated]),
    )
    labels = label_file(
        tmp_path,
        lab("a", "m", "", category="good"),  # m wrote no category
        lab("a", "tone", "", category="good"),
        lab("b", "tone", "", category="bad"),
    )
    run = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert run.returncode == 3, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert [(e["evalId"], e["metricName"]) for e in document["notEvaluated"]] == [("a", "m")]
    groups = {g["name"]: g for g in document["groups"]}
    assert groups["m"]["items"] == 0 and "categories" not in groups["m"]
    # tone: judge good, good; people good, bad: accuracy 1/2, one disagreement.
    tone = groups["tone"]["categories"]
    assert tone["accuracy"] == 0.5
    assert tone["confusion"] == {"classes": ["bad", "good"], "matrix": [[0, 0], [1, 1]]}


def test_a_labelled_case_saved_twice_is_an_error_not_the_last_file_read(tmp_path: Path) -> None:
    # A directory that two runs of one eval set were written into: a fails in the first and
    # passes in the second.  Calibrate took whichever file it read last (κ 1 or κ 0 by
    # file order, silently); the case is ambiguous, as report and explain say.
    result = saved(
        tmp_path,
        case_result("s", "a", [metric("m", 0.0)]),
        case_result("s", "b", [metric("m", 1.0)]),
    )
    again = result.parent / "app_s_again.evalset_result.json"
    again.write_text(dump_json(eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])))
    labels = label_file(tmp_path, lab("a", "m", "fail"), lab("b", "m", "pass"))
    run = cli("calibrate", str(result.parent), "--labels", str(labels))
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == "" and "Traceback" not in run.stderr
    (line,) = run.stderr.splitlines()[:-1]  # the last line counts the problems
    first, second = sorted(str(p) for p in (result, again))
    assert line == (
        f"error: {second}: case 'a' run 1 of eval set 's' is also in {first} "
        "(give calibrate the one result whose verdicts the labels judge)"
    )
    # Given alone, each file is calibrated: the labels judge the verdicts it holds.
    alone = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert json.loads(alone.stdout)["groups"][0]["passFail"]["kappa"] == 1


def one_turn_case(eval_id: str, overall: bool) -> EvalCaseResult:
    """A one-turn case (invocation "t1") whose metric m failed the turn; its case-level
    verdict on m passes when ``overall``, else the case has none (m scored per turn only)."""
    case = case_result("s", eval_id, [metric("m", 1.0)] if overall else [])
    turn = Invocation(invocation_id="t1")
    case.eval_metric_result_per_invocation = [
        EvalMetricResultPerInvocation(actual_invocation=turn, eval_metric_results=[metric("m", 0)])
    ]
    return case


def test_a_turn_labelled_by_its_id_and_as_the_one_turn_of_its_case_is_a_duplicate(
    tmp_path: Path,
) -> None:
    # m scored the one turn only: a label naming no turn finds that turn, so the two labels
    # below are one item labelled twice; calibrate counted its verdict twice (items 2).
    result = saved(tmp_path, one_turn_case("a", overall=False))
    labels = label_file(tmp_path, lab("a", "m", "fail", invocationId="t1"), lab("a", "m", "fail"))
    run = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"error: {labels}: line 2: labels the same item as line 1: turn 't1', the one turn of "
        "its case (keep one label per item)",
        "1 problem found.",
    ]
    # With a case-level verdict of its own, a label naming no turn names that verdict: two
    # items (the case passed, the turn failed), each counted once.
    result = saved(tmp_path, one_turn_case("a", overall=True))
    run = cli("calibrate", str(result), "--labels", str(labels), "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    (group,) = json.loads(run.stdout)["groups"]
    assert group["items"] == 2 and group["passFail"]["confusion"]["matrix"] == [[0, 1], [0, 1]]
