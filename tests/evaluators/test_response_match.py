"""``exact_match``, ``normalized_match`` and ``response_match_score`` (text-metrics.md §1–§3)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import agenteval.evaluators.builtins  # noqa: F401  (registers the built-ins)
from agenteval.evaluators.base import EvalContext, EvaluateResult, EvaluatorError
from agenteval.evaluators.registry import evaluators
from agenteval.evaluators.response_match import message_text
from agenteval.schema.evalset import EvalCase, Invocation, Message
from agenteval.schema.metric import EvalMetric
from agenteval.schema.status import EvalStatus

CONTEXT = EvalContext("textmatch-set", EvalCase(eval_id="case-1"), 1)


def turn(answer: str | None = None, *, parts: list[str] | None = None) -> Invocation:
    """A turn whose final response is ``answer`` (None: absent) or text-only ``parts``."""
    data: dict[str, Any] = {"userContent": {"role": "user", "content": "question"}}
    if parts is not None:
        data["finalResponse"] = {
            "role": "assistant",
            "content": "",
            "content_parts": [{"type": "text", "text": p} for p in parts],
        }
    elif answer is not None:
        data["finalResponse"] = {"role": "assistant", "content": answer}
    return Invocation.model_validate(data)


def run(name: str, pairs: list[tuple[Invocation, Invocation]], threshold: float) -> EvaluateResult:
    """Evaluate (actual, expected) turn pairs with the registered evaluator ``name``."""
    evaluator = evaluators.get(name)
    assert evaluator is not None
    assert not evaluator.is_async and not evaluator.needs_judge
    metric = EvalMetric.model_validate({"metricName": name, "threshold": threshold})
    actuals = [a for a, _ in pairs]
    expecteds = [e for _, e in pairs]
    return evaluator.evaluate(metric, actuals, expecteds, CONTEXT)


# ------------------------------------------------------------------ §1 exact_match


def test_exact_match_scores_identical_strings_only() -> None:
    result = run(
        "exact_match",
        [
            (turn("ORD-1042"), turn("ORD-1042")),
            (turn("ord-1042"), turn("ORD-1042")),
            (turn("true "), turn("true")),
            (turn("yes"), turn("yes")),
        ],
        threshold=1.0,
    )
    assert [t.score for t in result.turns] == [1.0, 0.0, 0.0, 1.0]
    assert [t.status for t in result.turns] == [
        EvalStatus.PASSED,
        EvalStatus.FAILED,
        EvalStatus.FAILED,
        EvalStatus.PASSED,
    ]
    assert result.score == 0.5
    assert result.status is EvalStatus.FAILED
    assert result.turns[0].details.reason == ""
    assert "'ord-1042'" in result.turns[1].details.reason
    assert "'ORD-1042'" in result.turns[1].details.reason


def test_exact_match_absent_answers_read_as_empty() -> None:
    result = run(
        "exact_match",
        [(turn(None), turn(None)), (turn(None), turn("42")), (turn(""), turn(None))],
        threshold=0.5,
    )
    assert [t.score for t in result.turns] == [1.0, 0.0, 1.0]
    assert result.score == pytest.approx(2 / 3)
    assert result.status is EvalStatus.PASSED


# -------------------------------------------------------------- §2 normalized_match


@pytest.mark.parametrize(
    ("actual", "expected", "score"),
    [
        ("The answer is 42.", "the answer is 42", 1.0),
        ("Hello,World", "hello world", 1.0),
        ("forty-two", "42", 0.0),
        ("Café!", "café", 1.0),
    ],
)
def test_normalized_match_vectors(actual: str, expected: str, score: float) -> None:
    result = run("normalized_match", [(turn(actual), turn(expected))], threshold=1.0)
    assert result.turns[0].score == score
    assert result.score == score
    assert result.status is (EvalStatus.PASSED if score == 1.0 else EvalStatus.FAILED)
    if score == 0.0:
        assert "'forty-two'" in result.turns[0].details.reason


def test_normalized_match_averages_turns() -> None:
    pairs = [
        (turn("The answer is 42."), turn("the answer is 42")),
        (turn("forty-two"), turn("42")),
        (turn("  PARIS  "), turn("paris")),
    ]
    result = run("normalized_match", pairs, threshold=0.6)
    assert result.score == pytest.approx(2 / 3)
    assert result.status is EvalStatus.PASSED


# ----------------------------------------------------------- §3 response_match_score

GOLDEN = [
    ("The cats are running quickly!", "the cat runs quick", 0.6, 0.75, 0.666667),
    ("Hello, World", "hello world", 1.0, 1.0, 1.0),
    ("", "", 0.0, 0.0, 0.0),
    ("The weather in Paris is 20°C.", "Paris weather: 20 C", 0.571429, 1.0, 0.727273),
    ("run running runs ran", "run", 0.25, 1.0, 0.4),
    ("The cat sat", "the cat sat on the mat", 1.0, 0.5, 0.666667),
    ("北京欢迎你", "北京欢迎您", 0.8, 0.8, 0.8),
]


@pytest.mark.parametrize(("candidate", "reference", "p", "r", "f"), GOLDEN)
def test_response_match_score_golden_values(
    candidate: str, reference: str, p: float, r: float, f: float
) -> None:
    result = run("response_match_score", [(turn(candidate), turn(reference))], threshold=0.0)
    only = result.turns[0]
    assert only.score == pytest.approx(f, abs=1e-6)
    rouge = (only.details.model_extra or {})["rouge"]
    assert rouge["precision"] == pytest.approx(p, abs=1e-6)
    assert rouge["recall"] == pytest.approx(r, abs=1e-6)
    assert rouge["f1"] == pytest.approx(f, abs=1e-6)
    assert only.details.value is not None and only.details.value.numeric == only.score


def test_response_match_score_the_cat_sat_fails_at_08() -> None:
    result = run(
        "response_match_score", [(turn("The cat sat"), turn("the cat sat on the mat"))], 0.8
    )
    assert result.turns[0].status is EvalStatus.FAILED
    assert result.status is EvalStatus.FAILED
    assert result.turns[0].details.reason == "ROUGE-1 F1 0.6667 < threshold 0.8"


def test_a_score_just_under_its_threshold_is_not_printed_as_the_threshold() -> None:
    """2/3 against 0.6667 fails; the reason said ``ROUGE-1 F1 0.6667 < threshold 0.6667``."""
    result = run(
        "response_match_score", [(turn("The cat sat"), turn("the cat sat on the mat"))], 0.6667
    )
    assert result.turns[0].status is EvalStatus.FAILED
    assert result.turns[0].details.reason == "ROUGE-1 F1 0.6666666666666666 < threshold 0.6667"


def test_response_match_score_overall_is_the_mean_of_turns() -> None:
    pairs = [(turn(c), turn(r)) for c, r, *_ in GOLDEN]
    result = run("response_match_score", pairs, threshold=0.6)
    expected_mean = sum(g[4] for g in GOLDEN) / len(GOLDEN)
    assert result.score == pytest.approx(expected_mean, abs=1e-6)
    assert result.status is EvalStatus.PASSED
    statuses = [t.status for t in result.turns]
    assert statuses.count(EvalStatus.FAILED) == 2  # the empty pair (0) and "run ..." (0.4)


def test_text_only_in_content_parts_is_joined_with_newlines() -> None:
    message = Message.model_validate(
        {
            "role": "assistant",
            "content": "",
            "content_parts": [
                {"type": "text", "text": "The cat"},
                {"type": "image", "image": {"url": "http://x/cat.png"}},
                {"type": "text", "text": ""},
                {"type": "text", "text": "sat."},
            ],
        }
    )
    assert message_text(message) == "The cat\nsat."
    assert message_text(None) == ""
    # Content wins over parts when it is set.
    both = Message(content="direct", content_parts=[{"type": "text", "text": "part"}])
    assert message_text(both) == "direct"
    result = run(
        "exact_match", [(turn(parts=["The cat", "sat."]), turn("The cat\nsat."))], threshold=1.0
    )
    assert result.score == 1.0


def test_turn_count_mismatch_is_an_evaluator_error() -> None:
    for name in ("exact_match", "normalized_match", "response_match_score"):
        evaluator = evaluators.get(name)
        assert evaluator is not None
        metric = EvalMetric(metric_name=name, threshold=1.0)
        with pytest.raises(EvaluatorError, match=r"actual invocations \(2\) and expected"):
            evaluator.evaluate(metric, [turn("a"), turn("b")], [turn("a")], CONTEXT)


def test_zero_turns_is_not_evaluated() -> None:
    result = run("response_match_score", [], threshold=0.5)
    assert result.status is EvalStatus.NOT_EVALUATED
    assert result.score == 0.0


# ------------------------------------------- side by side with google-adk 2.13.0


def _random_answer(rng: random.Random) -> str:
    words = [
        "The", "cats", "are", "running", "quickly", "weather", "Paris", "20°C", "résumé",
        "naïve", "北京", "欢迎你", "東京", "こんにちは", "สวัสดีครับ", "ภาษาไทย", "don't",
        "e-mail", "42", "3.14", "Straße", "ﬁnance", "Ⅻ", "café!", "run,", "runs;",
    ]  # fmt: skip
    return " ".join(rng.choice(words) for _ in range(rng.randint(0, 9)))


def test_response_match_score_equals_adk_rouge_evaluator() -> None:
    """Our evaluator and ADK's RougeEvaluator agree per turn and overall, multi-part text too."""
    adk_eval = pytest.importorskip("google.adk.evaluation.final_response_match_v1")
    adk_case = pytest.importorskip("google.adk.evaluation.eval_case")
    adk_metrics = pytest.importorskip("google.adk.evaluation.eval_metrics")
    genai = pytest.importorskip("google.genai.types")

    def adk_turn(parts: list[str]) -> Any:
        content = genai.Content(role="model", parts=[genai.Part(text=p) for p in parts])
        question = genai.Content(role="user", parts=[genai.Part(text="question")])
        return adk_case.Invocation(user_content=question, final_response=content)

    rng = random.Random(6)
    threshold = 0.5
    adk = adk_eval.RougeEvaluator(
        adk_metrics.EvalMetric(metric_name="response_match_score", threshold=threshold)
    )
    for _ in range(40):
        count = rng.randint(1, 5)
        actual_parts = [
            [_random_answer(rng) for _ in range(rng.randint(1, 3))] for _ in range(count)
        ]
        expected_parts = [[_random_answer(rng)] for _ in range(count)]
        theirs = adk.evaluate_invocations(
            [adk_turn(p) for p in actual_parts], [adk_turn(p) for p in expected_parts]
        )
        ours = run(
            "response_match_score",
            [
                (turn(parts=a), turn(parts=e))
                for a, e in zip(actual_parts, expected_parts, strict=True)
            ],
            threshold,
        )
        assert ours.score == pytest.approx(theirs.overall_score, abs=1e-9)
        assert ours.status.value == theirs.overall_eval_status.name.lower()
        for mine, adks in zip(ours.turns, theirs.per_invocation_results, strict=True):
            assert mine.score == pytest.approx(adks.score, abs=1e-9)
            assert mine.status.value == adks.eval_status.name.lower()
