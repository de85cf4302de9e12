"""``explain`` on scripted cases: every built-in deterministic evaluator's intermediate values.

Each case is a real eval set and metric file on disk, explained through the library call
the command uses (:func:`agenteval.explain.core.explain_evalset`); the numbers asserted
are the evaluator's (and, for ROUGE, rouge-score's).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rouge_score import rouge_scorer

from agenteval import api
from agenteval.evaluators.base import EvalContext, EvaluateResult, Evaluator, Turns
from agenteval.explain.console import explanation_lines
from agenteval.explain.core import Target, explain_evalset
from agenteval.explain.model import Explanation
from agenteval.plugins import register_evaluator
from agenteval.schema.metric import EvalMetric
from agenteval.schema.status import EvalStatus


def msg(text: str, role: str = "assistant") -> dict[str, str]:
    return {"role": role, "content": text}


def tool(name: str, args: dict[str, Any], result: Any = None, id_: str = "") -> dict[str, Any]:
    data: dict[str, Any] = {"name": name, "arguments": args}
    if result is not None:
        data["result"] = result
    if id_:
        data["id"] = id_
    return data


def turn(answer: str, tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"userContent": msg("question", "user"), "finalResponse": msg(answer)}
    if tools is not None:
        data["tools"] = tools
    return data


def explain_case(
    tmp: Path,
    metric: dict[str, Any],
    actual: list[dict[str, Any]],
    expected: list[dict[str, Any]],
) -> Explanation:
    case = {
        "evalId": "c1",
        "evalMode": "trace",
        "actualConversation": actual,
        "conversation": expected,
        "sessionInput": {"appName": "app", "userId": "u"},
    }
    evalset = tmp / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    metrics = tmp / "s.metrics.json"
    metrics.write_text(json.dumps([metric]))
    options = api.Options(metrics=str(metrics), cache=None)
    return explain_evalset([str(evalset)], options, Target("c1", metric["metricName"]))


def steps(explanation: Explanation, kind: str) -> list[dict[str, Any]]:
    return [step.data for step in explanation.steps if step.kind == kind]


def rendered(explanation: Explanation) -> str:
    return "\n".join(line.plain for line in explanation_lines(explanation))


def test_trajectory_unordered_subset_pairing(tmp_path: Path) -> None:
    """The assignment pairs out of order, leaves an extra call, and shows the differing path."""
    metric = {
        "metricName": "tools",
        "evaluatorName": "tool_trajectory_avg_score",
        "threshold": 1,
        "criterion": {
            "toolTrajectory": {
                "subsetMatching": True,
                "defaultStrategy": {"name": {}, "arguments": {}},
            }
        },
    }
    actual = [
        turn(
            "a",
            [
                tool("weather", {"city": "Paris", "units": "C"}),
                tool("lookup", {"x": 1}),
                tool("search", {"q": "flights"}),
                tool("book", {"seat": "12A"}),
            ],
        )
    ]
    expected = [
        turn(
            "a",
            [
                tool("search", {"q": "flights"}),
                tool("book", {"seat": "12A"}),
                tool("weather", {"city": "Paris", "units": "F"}),
            ],
        )
    ]
    explanation = explain_case(tmp_path, metric, actual, expected)
    (record,) = steps(explanation, "trajectory")
    assert record["mode"] == "unordered" and record["subset"] is True
    assert [(p["expected"], p["actual"]) for p in record["pairs"]] == [(0, 2), (1, 3)]
    (missing,) = record["unmatched"]
    assert missing["expectedName"] == "weather"
    arguments = missing["tried"]["parts"][1]
    assert arguments["part"] == "arguments" and arguments["ok"] is False
    assert (arguments["path"], arguments["actual"], arguments["expected"]) == ("$.units", "C", "F")
    assert record["extra"] == [0, 1]
    assert record["pairs"][0]["strategy"] == "defaultStrategy"
    text = rendered(explanation)
    assert "pairing unordered, subset (extra actual calls allowed)" in text
    assert "expected #1 search ↔ actual #3 search" in text
    assert "expected #2 book ↔ actual #4 book" in text
    assert 'arguments at $.units: value mismatch at $.units: "C" vs "F"' in text
    assert explanation.metric.status == "failed" and explanation.exit_code() == 1
    assert explanation.turns[0].arithmetic == "0 < threshold 1 → failed"


def test_trajectory_f1_fractions(tmp_path: Path) -> None:
    metric = {"metricName": "tool_trajectory_f1", "threshold": 0.5}
    actual = [turn("a", [tool("a", {}), tool("b", {}), tool("x", {})])]
    expected = [turn("a", [tool("b", {}), tool("a", {})])]
    explanation = explain_case(tmp_path, metric, actual, expected)
    (record,) = steps(explanation, "trajectory_f1")
    assert record["matched"] == 2 and record["extra"] == [2]
    text = rendered(explanation)
    assert "precision 2/3 = 0.666667 · recall 2/2 = 1 · F1 0.8" in text
    assert explanation.metric.score == pytest.approx(0.8)


def test_the_mean_is_shown_to_its_last_digit(tmp_path: Path) -> None:
    # Turn F1s 1, 1 and 0.4: their float mean is 0.7999999999999999, which fails 0.8.
    # Rounded, the arithmetic read "= 0.8; 0.8 < threshold 0.8 → failed".
    metric = {"metricName": "tool_trajectory_f1", "threshold": 0.8}
    actual = [turn("a", [tool("a", {})]) for _ in range(3)]
    expected = [turn("a", [tool("a", {})]), turn("a", [tool("a", {})])]
    expected.append(turn("a", [tool(name, {}) for name in "abcd"]))
    explanation = explain_case(tmp_path, metric, actual, expected)
    assert explanation.metric.score == (1 + 1 + 0.4) / 3 < 0.8
    assert explanation.metric.arithmetic == (
        "mean of 3 evaluated turn score(s): (1 + 1 + 0.4) / 3 = 0.7999999999999999; "
        "0.7999999999999999 < threshold 0.8 → failed"
    )


def test_text_case_folding_and_strings(tmp_path: Path) -> None:
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {
            "finalResponse": {"text": {"matchStrategy": "contains", "caseInsensitive": True}}
        },
    }
    explanation = explain_case(tmp_path, metric, [turn("It is SUNNY in Paris")], [turn("Sunny")])
    (record,) = steps(explanation, "text")
    assert record["strategy"] == "contains"
    assert (record["actual"], record["expected"]) == ("it is sunny in paris", "sunny")
    assert record["ok"] is True and explanation.exit_code() == 0
    assert "strategy contains · case folding on · match" in rendered(explanation)


def test_json_paths_ignored_tolerated_and_defaults(tmp_path: Path) -> None:
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {
            "finalResponse": {"json": {"ignoreTree": {"checkedAt": True}, "numberTolerance": 0.01}}
        },
    }
    actual = json.dumps({"id": 7, "amount": 10.004, "checkedAt": "now"})
    expected = json.dumps({"id": 7, "amount": 10.0})
    explanation = explain_case(tmp_path, metric, [turn(actual)], [turn(expected)])
    (record,) = steps(explanation, "json")
    verdicts = {row["path"]: row["verdict"] for row in record["paths"]}
    assert verdicts == {"$.id": "equal", "$.amount": "tolerated", "$.checkedAt": "ignored"}
    assert record["numberTolerance"] == 0.01 and record["ok"] is True
    fields = {f.path: f for f in explanation.criterion}
    tolerance = fields["criterion.finalResponse.json.numberTolerance"]
    assert tolerance.value == 0.01
    assert tolerance.source.endswith(
        "s.metrics.json: [0].criterion.finalResponse.json.numberTolerance"
    )
    strategy = fields["criterion.finalResponse.json.matchStrategy"]
    assert (strategy.value, strategy.source) == ("exact", "default")
    assert fields["criterion.finalResponse.text"].note == "absent: not compared"


def test_json_default_tolerance_is_shown(tmp_path: Path) -> None:
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"json": {}}},
    }
    explanation = explain_case(tmp_path, metric, [turn('{"a": 1}')], [turn('{"a": 2}')])
    fields = {f.path: f for f in explanation.criterion}
    tolerance = fields["criterion.finalResponse.json.numberTolerance"]
    assert (tolerance.value, tolerance.source) == (1e-6, "default")
    (record,) = steps(explanation, "json")
    assert record["difference"] == {
        "path": "$.a",
        "what": "value",
        "detail": "",
        "actual": 1,
        "expected": 2,
    }
    assert "numberTolerance 1e-06 (default)" in rendered(explanation)


@pytest.mark.parametrize("rouge_type", ["rougeL", "rouge2", "rougeLsum"])
def test_rouge_tokens_and_scores_equal_rouge_score(tmp_path: Path, rouge_type: str) -> None:
    target = "The cats were running quickly\nacross the sunny garden"
    prediction = "A cat runs quickly through the garden\nin the sun"
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {
            "finalResponse": {
                "rouge": {
                    "rougeType": rouge_type,
                    "useStemmer": True,
                    "threshold": {"f1": 0.9},
                }
            }
        },
    }
    explanation = explain_case(tmp_path, metric, [turn(prediction)], [turn(target)])
    (tokens,) = steps(explanation, "rouge.tokens")
    scorer = rouge_scorer.RougeScorer([rouge_type], use_stemmer=True)
    want_target = scorer._tokenizer.tokenize(target)
    want_prediction = scorer._tokenizer.tokenize(prediction)
    score = scorer.score(target, prediction)[rouge_type]
    if rouge_type == "rougeLsum":
        assert tokens["targetSentences"] == [
            scorer._tokenizer.tokenize(line) for line in target.split("\n")
        ]
        assert tokens["predictionSentences"] == [
            scorer._tokenizer.tokenize(line) for line in prediction.split("\n")
        ]
        assert (tokens["precision"], tokens["recall"], tokens["f1"]) == pytest.approx(
            (score.precision, score.recall, score.fmeasure), abs=1e-12
        )
        return
    assert tokens["targetTokens"] == want_target
    assert tokens["predictionTokens"] == want_prediction
    assert (tokens["precision"], tokens["recall"], tokens["f1"]) == pytest.approx(
        (score.precision, score.recall, score.fmeasure), abs=1e-12
    )
    if rouge_type == "rougeL":
        table = rouge_scorer._lcs_table(want_target, want_prediction)
        indexes = rouge_scorer._backtrack_norec(table, want_target, want_prediction)
        assert tokens["lcs"] == [want_target[i] for i in indexes]
    else:
        grams = rouge_scorer._create_ngrams(want_target, 2) & rouge_scorer._create_ngrams(
            want_prediction, 2
        )
        assert sorted(tokens["matchedNgrams"]) == sorted(" ".join(g) for g in grams.elements())
    (verdict,) = steps(explanation, "rouge")
    assert verdict["ok"] is False and verdict["thresholds"]["f1"] == 0.9
    assert f"F {score.fmeasure:.6f}" in rendered(explanation)


def test_xml_and_length(tmp_path: Path) -> None:
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {
            "finalResponse": {
                "xml": {"matchStrategy": "skip", "valid": True},
                "text": {"matchStrategy": "skip", "length": {"max": 5}},
            }
        },
    }
    explanation = explain_case(tmp_path, metric, [turn("<a><b></a>")], [turn("")])
    (xml,) = steps(explanation, "xml")
    assert xml["ok"] is False and "mismatched tag" in xml["reason"]
    (length,) = steps(explanation, "length")
    assert (length["length"], length["range"], length["ok"]) == (10, "[0, 5]", False)
    assert "length 10 code points in [0, 5] · mismatch" in rendered(explanation)


def test_response_match_score_tokens_equal_rouge_score(tmp_path: Path) -> None:
    target, prediction = "The cats are running quickly", "the cat runs quick"
    metric = {"metricName": "response_match_score", "threshold": 0.9}
    explanation = explain_case(tmp_path, metric, [turn(prediction)], [turn(target)])
    (record,) = steps(explanation, "rouge1")
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    assert record["referenceTokens"] == scorer._tokenizer.tokenize(target)
    assert record["candidateTokens"] == scorer._tokenizer.tokenize(prediction)
    # "quickly" stems to "quickli", "quick" stays: three of four candidate tokens match.
    assert record["matched"] == ["the", "cat", "run"] and record["overlap"] == 3
    score = scorer.score(target, prediction)["rouge1"]
    assert record["f1"] == pytest.approx(score.fmeasure, abs=1e-12)
    assert explanation.metric.score == pytest.approx(score.fmeasure, abs=1e-12)


@pytest.mark.parametrize(
    ("name", "actual", "expected", "shown"),
    [
        ("exact_match", "Paris.", "Paris", ("Paris.", "Paris")),
        ("normalized_match", "  PARIS!! ", "paris", ("paris", "paris")),
    ],
)
def test_answer_matches_show_the_compared_strings(
    tmp_path: Path, name: str, actual: str, expected: str, shown: tuple[str, str]
) -> None:
    explanation = explain_case(
        tmp_path, {"metricName": name, "threshold": 1}, [turn(actual)], [turn(expected)]
    )
    (record,) = steps(explanation, "answer_match")
    assert (record["actual"], record["expected"]) == shown
    assert record["ok"] is (name == "normalized_match")


def test_two_turns_metric_arithmetic_and_turn_filter(tmp_path: Path) -> None:
    metric = {"metricName": "exact_match", "threshold": 0.75}
    explanation = explain_case(tmp_path, metric, [turn("a"), turn("b")], [turn("a"), turn("c")])
    assert explanation.metric.arithmetic == (
        "mean of 2 evaluated turn score(s): (1 + 0) / 2 = 0.5; 0.5 < threshold 0.75 → failed"
    )
    # The case's only metric decides it, under the default aggregator, which is said.
    assert explanation.case.status == "failed"
    assert explanation.case.arithmetic == (
        "with the default case aggregator (every metric must pass; run --case-aggregator "
        "may decide otherwise), its only metric: exact_match failed → failed"
    )
    explanation.turn = 2
    text = rendered(explanation)
    assert "turn 2" in text and "turn 1\n" not in text


def test_control_characters_are_escaped(tmp_path: Path) -> None:
    metric = {"metricName": "exact_match", "threshold": 1}
    explanation = explain_case(tmp_path, metric, [turn("x\x1b[2Jy")], [turn("x")])
    text = rendered(explanation)
    assert "\x1b" not in text and "\\u001b[2J" in text


def test_console_wraps_at_spaces_only(tmp_path: Path) -> None:
    """A word longer than the line stays whole; other lines break between words."""
    import io

    from rich.console import Console

    from agenteval.explain.console import print_explanation

    word = "x" * 70
    metric = {"metricName": "exact_match", "threshold": 1}
    explanation = explain_case(tmp_path, metric, [turn(f"alpha {word} omega")], [turn("b")])
    buffer = io.StringIO()
    print_explanation(explanation, Console(file=buffer, width=40, color_system=None))
    output = buffer.getvalue()
    assert any(word in line for line in output.splitlines())
    for line in output.splitlines():
        # A line runs past the width only when it is one word longer than the width.
        assert len(line) <= 40 or len(line.split()) == 1, line
    # Every run of x is the whole word, or the evaluator's own excerpt of it (cut with "…").
    for run in re.finditer("x{3,}", output):
        assert len(run.group()) == 70 or output[run.end()] == "…", run.group()


@register_evaluator
class _Crashes(Evaluator):
    """A buggy evaluator: indexes past the turns."""

    name = "test_explain_crashes"
    description = "raises IndexError"

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        return EvaluateResult(0.0, EvalStatus.PASSED, [], {"x": actuals[5]})


def test_an_evaluator_that_raises_is_explained_as_run_scores_it(tmp_path: Path) -> None:
    metric = {"metricName": "test_explain_crashes", "threshold": 1}
    explanation = explain_case(tmp_path, metric, [turn("a"), turn("b")], [turn("a"), turn("b")])
    reason = "evaluator test_explain_crashes raised IndexError: list index out of range (at"
    assert [t.status for t in explanation.turns] == ["not_evaluated", "not_evaluated"]
    assert all(
        t.reason.startswith(reason) and "test_core.py:" in t.reason for t in explanation.turns
    )
    # As run: an evaluator that raised leaves the case incomplete (exit 3).
    assert explanation.case.status == "incomplete"
    assert explanation.exit_code() == 3
    assert f"reason: {reason}" in rendered(explanation)


def usage_turn(answer: str, tools: int, usage: bool) -> dict[str, Any]:
    data = turn(answer, [tool("t", {}, id_=f"c{k}") for k in range(tools)])
    if usage:
        data["usage"] = {"inputTokens": 10, "outputTokens": 5, "inferenceCalls": 1}
    return data


def test_count_metric_sums_its_turns_against_an_upper_bound(tmp_path: Path) -> None:
    # 1 and 2 tool calls: the case spent 1 + 2 = 3 > 2, while each turn is within 2.
    metric = {"metricName": "tool_call_count", "threshold": 2}
    turns = [usage_turn("a", 1, True), usage_turn("b", 2, True)]
    explanation = explain_case(tmp_path, metric, turns, turns)
    assert [t.arithmetic for t in explanation.turns] == [
        "1 <= upper bound 2 → passed",
        "2 <= upper bound 2 → passed",
    ]
    assert explanation.metric.arithmetic == (
        "sum of 2 evaluated turn count(s): 1 + 2 = 3; 3 > upper bound 2 → failed"
    )
    assert explanation.exit_code() == 1


def test_count_metric_without_a_positive_threshold_is_informational(tmp_path: Path) -> None:
    metric = {"metricName": "tool_call_count", "threshold": 0}
    turns = [usage_turn("a", 1, True), usage_turn("b", 2, True)]
    explanation = explain_case(tmp_path, metric, turns, turns)
    assert explanation.metric.arithmetic == (
        "sum of 2 evaluated turn count(s): 1 + 2 = 3; "
        "3, informational (threshold 0 is no bound) → passed"
    )


def test_a_partly_evaluated_metric_makes_the_case_incomplete(tmp_path: Path) -> None:
    # Turn 2 carries no usage: 15 tokens counted <= 100 says passed, but the sum is short of
    # what the case spent, so run calls the case INCOMPLETE (exit 3), and so must explain.
    metric = {"metricName": "token_usage", "threshold": 100}
    turns = [usage_turn("a", 0, True), usage_turn("b", 0, False)]
    explanation = explain_case(tmp_path, metric, turns, turns)
    assert explanation.metric.status == "passed" and explanation.metric.incomplete
    assert explanation.metric.arithmetic == (
        "sum of 1 evaluated turn count(s): 15 = 15; 15 <= upper bound 100 → passed; "
        "incomplete: 1 of 2 turn(s) not evaluated, so the case is incomplete"
    )
    assert explanation.case.status == "incomplete"
    assert explanation.exit_code() == 3


def test_no_case_verdict_is_claimed_when_other_metrics_decide_it(tmp_path: Path) -> None:
    # The answer matches, the tools do not: run fails the case on the trajectory; explain
    # scored exact_match only and must not call the case passed.
    case = {
        "evalId": "c1",
        "evalMode": "trace",
        "actualConversation": [turn("a", [tool("x", {})])],
        "conversation": [turn("a", [tool("y", {})])],
        "sessionInput": {"appName": "app", "userId": "u"},
    }
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    metrics = tmp_path / "s.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {"metricName": "exact_match", "threshold": 1},
                {"metricName": "tool_trajectory_avg_score", "threshold": 1},
            ]
        )
    )
    options = api.Options(metrics=str(metrics), cache=None)
    explanation = explain_evalset([str(evalset)], options, Target("c1", "exact_match"))
    assert explanation.metric.status == "passed"
    assert explanation.case.status is None
    assert explanation.case.arithmetic == (
        "not computed: explain scored exact_match only; the case's verdict also takes "
        "tool_trajectory_avg_score and the case aggregator (agenteval run gives it)"
    )
    # The failing trajectory decides the case under the default aggregator, which is said.
    explanation = explain_evalset(
        [str(evalset)], options, Target("c1", "tool_trajectory_avg_score")
    )
    assert explanation.case.status == "failed"
    assert explanation.case.arithmetic == (
        "with the default case aggregator (every metric must pass; run --case-aggregator "
        "may decide otherwise), whatever its other metrics say: "
        "tool_trajectory_avg_score failed → failed"
    )


def test_the_gate_step_prints_its_rouge_f1_apart_from_the_bar_it_misses() -> None:
    """The gate's ROUGE-1 F1 line used ``:.4f`` vs ``:g``: 0.79996 against a bar of 0.8
    read ``ROUGE-1 F1 0.8000 vs 0.8`` for a turn that missed it."""
    from agenteval.explain.console import _gate

    data = {
        "method": "rouge",
        "exact": False,
        "rougeF1": 0.79996,
        "rougeF1Bar": 0.8,
        "judgeOn": False,
        "normalizedActual": "a",
        "normalizedExpected": "b",
    }
    shown = "\n".join(line.plain for line in _gate(data))
    assert "ROUGE-1 F1 0.79996 vs 0.8 ·" in shown
    assert "ROUGE-1 F1 0.7500 vs 0.8 ·" in "\n".join(
        line.plain for line in _gate({**data, "rougeF1": 0.75})
    )
