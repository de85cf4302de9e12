"""``llm_verifier_pairwise`` (llm-evaluators.md §5.7, §11 27–37) with logprobs served over HTTP.

Each scoring scenario scripts the judge server's reply with the token stream
and logprobs of the scenario; the evaluator reads them back through the real
OpenAI-compatible client.  The pure functions are also checked directly for
the cases HTTP cannot carry (an empty token list is "no logprobs" on the wire).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from llm_support import error, judge_model, ok, options, run, turn

from agenteval.evaluators.llm.operators.constructors import TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.verifier_pairwise import (
    PairwisePrompt,
    PairwiseVerifier,
    distribution,
    expected_quality,
    label_index,
    label_value,
    pairwise_score,
)
from agenteval.evaluators.registry import evaluators
from agenteval.judge import TokenLogprob, TopLogprob
from agenteval.schema import EvalCase, EvalMetric, Invocation
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = PairwiseVerifier()
ACCURACY = {"id": "accuracy", "content": {"text": "Prefer the more accurate answer."}}
LOGPROBS = {"logprobs": True, "top_logprobs": 20, "temperature": 0}
ANALYSIS = "Candidate A is exact; candidate B misses the unit.\n"


def tok(text: str, logprob: float = 0.0, *tops: tuple[str, float]) -> dict[str, Any]:
    """One token of ``choices[0].logprobs.content`` as the server sends it."""
    return {
        "token": text,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in tops],
    }


def tokens(*items: dict[str, Any]) -> tuple[TokenLogprob, ...]:
    """The same tokens as the client decodes them."""
    return tuple(
        TokenLogprob(
            item["token"],
            item["logprob"],
            top_logprobs=tuple(TopLogprob(t["token"], t["logprob"]) for t in item["top_logprobs"]),
        )
        for item in items
    )


def verifier_metric(
    server: JudgeServer | None,
    rubrics: Sequence[dict[str, Any]] = (ACCURACY,),
    generation: dict[str, Any] | None = None,
    **model: Any,
) -> EvalMetric:
    block: dict[str, Any] = {
        "rubrics": list(rubrics),
        "judgeModel": judge_model(server, generationConfig=generation or LOGPROBS, **model),
    }
    return EvalMetric.model_validate(
        {
            "metricName": "pairwise_preference",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {"llmJudge": block},
        }
    )


def judged(server: JudgeServer, stream: list[dict[str, Any]], text: str = "") -> Any:
    """Score one turn whose judge reply carries ``stream`` as its logprobs."""
    content = text or "".join(t["token"] for t in stream)
    server.enqueue(Reply(content=content, logprobs=stream))
    return run(JUDGE, verifier_metric(server), [turn("q", "a")], [turn("q", "b")])


def test_registered_under_go_name() -> None:
    judge = evaluators.get("llm_verifier_pairwise")
    assert isinstance(judge, PairwiseVerifier)
    assert judge.description == "LLM-as-a-Verifier pairwise preference evaluator"


# --- scoring over HTTP (§11 27–34, 36) ----------------------------------------------------

S27 = [
    tok("analysis\n<score_A>"),
    tok("A", math.log(0.7), ("A", math.log(0.7)), ("T", math.log(0.3))),
    tok("</score_A>\n<score_B>"),
    tok("T", math.log(0.8), ("T", math.log(0.8)), ("A", math.log(0.2))),
]


def test_s27_expected_scores_and_comparison(judge_server: JudgeServer) -> None:
    result = ok(judged(judge_server, S27))
    only = result.turns[0]
    assert only.score == pytest.approx(0.75, abs=1e-9)
    assert only.status is EvalStatus.PASSED
    assert only.details.value is not None
    assert only.details.value.kind == "numeric"
    assert only.details.value.numeric == pytest.approx(0.75, abs=1e-9)
    assert only.details.reason == (
        "Computed from score_A 0.7000 and score_B 0.2000 log probabilities."
    )
    assert only.details.rubric_scores is None
    assert result.score == pytest.approx(0.75, abs=1e-9)
    # The evaluator sets nothing itself: the metric's logprobs settings reach the judge as given.
    body = judge_server.bodies()[0]
    assert (body["logprobs"], body["top_logprobs"]) == (True, 20)
    assert "response_format" not in body


def test_reference_better_scores_below_half(judge_server: JudgeServer) -> None:
    """A graded T and B graded A: 0.5 + (0 − 1)/2 = 0, the clamp's lower end, and a failed turn."""
    stream = [tok("<score_A>"), tok("T"), tok("</score_A><score_B>"), tok("A")]
    only = ok(judged(judge_server, stream)).turns[0]
    assert (only.score, only.status) == (0.0, EvalStatus.FAILED)
    assert (
        only.details.reason == "Computed from score_A 0.0000 and score_B 1.0000 log probabilities."
    )


def test_s28_text_tags_without_logprobs(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply(content="ok\n<score_A>A</score_A>\n<score_B>B</score_B>"))
    message = error(run(JUDGE, verifier_metric(judge_server), [turn()], [turn()]))
    assert "score based on response: logprobs are missing" in message
    assert '"logprobs": true' in message


def test_s29_each_tag_is_required(judge_server: JudgeServer) -> None:
    message = error(judged(judge_server, [tok("<score_B>"), tok("A", 0.0)]))
    assert "score_A: score tag is missing" in message
    message = error(judged(judge_server, [tok("<score_A>"), tok("A", 0.0)]))
    assert "score_B: score tag is missing" in message


def test_s30_label_after_the_tag_with_spaces(judge_server: JudgeServer) -> None:
    stream = [
        tok("not-score", 0.0, ("A", 0.0)),
        tok(" <score_A>"),
        tok(" K ", math.log(0.6), ("J", math.log(0.4)), ("K", math.log(0.6))),
    ]
    assert expected_quality(tokens(*stream), "<score_A>") == pytest.approx(0.4947368421, abs=1e-9)
    # Over HTTP the same stream fails only for the missing score_B tag.
    assert "score_B: score tag is missing" in error(judged(judge_server, stream))


def test_s31_label_inside_the_token_that_closes_the_tag(judge_server: JudgeServer) -> None:
    stream = [
        tok("analysis\n<score_A"),
        tok(">K", math.log(0.6), (">J", math.log(0.4)), (">K", math.log(0.6))),
        tok("</score_A>\n<score_B>"),
        tok("K", math.log(0.6), ("J", math.log(0.4)), ("K", math.log(0.6))),
    ]
    only = ok(judged(judge_server, stream)).turns[0]
    # Both candidates get the same distribution: a tie, exactly 0.5.
    assert only.score == pytest.approx(0.5, abs=1e-12)
    assert (
        only.details.reason == "Computed from score_A 0.4947 and score_B 0.4947 log probabilities."
    )


def test_s32_no_label_after_the_tag_inside_a_token(judge_server: JudgeServer) -> None:
    stream = [tok("analysis\n<score_A"), tok(">not-score", 0.0, (">also-not-score", 0.0))]
    assert "score_A: score token logprobs are missing after tag" in error(
        judged(judge_server, stream)
    )


@pytest.mark.parametrize(
    ("stream", "message"),
    [
        ([tok("analysis")], "score_A: score tag is missing"),
        ([tok("<score_A>")], "score_A: score token is missing after tag"),
        (
            [tok("<score_A>"), tok("not-score")],
            "score_A: score token logprobs are missing after tag",
        ),
        (
            [tok("<score_A>"), tok("A", -math.inf, ("A", -math.inf))],
            "score_A: score token logprobs are all negative infinity",
        ),
        ([tok("<score_A>"), tok("A", math.nan)], "score_A: score token logprob is NaN"),
        # JSON's 1e400 reads as +inf (Go's decoder refuses it); no probability's log is
        # above 0, and the softmax of it gave a NaN score, a case failed on "score_A nan".
        (
            [tok("<score_A>"), tok("A", math.inf, ("B", -1.0))],
            "score_A: score token logprob is positive infinity",
        ),
    ],
)
def test_s33_s34_malformed_streams(
    judge_server: JudgeServer, stream: list[dict[str, Any]], message: str
) -> None:
    assert message in error(judged(judge_server, stream, text="analysis"))


def test_s33_empty_token_list() -> None:
    """On the wire ``[]`` means "no logprobs" (§3.4); the function itself says "empty"."""
    with pytest.raises(OperatorError, match=r"^token logprobs are empty$"):
        expected_quality((), "<score_A>")


def test_s33_empty_list_over_http_is_missing_logprobs(judge_server: JudgeServer) -> None:
    assert "logprobs are missing" in error(judged(judge_server, [], text="<score_A>A</score_A>"))


def test_s36_docs_example(judge_server: JudgeServer) -> None:
    grade_b = tok("B", -0.20, ("B", -0.20), ("C", -1.10), ("D", -2.30))
    stream = [tok("<score_A>"), grade_b, tok("</score_A>\n<score_B>"), tok("T", 0.0)]
    assert expected_quality(tokens(*stream), "<score_A>") == pytest.approx(0.924943, abs=1e-6)
    only = ok(judged(judge_server, stream)).turns[0]
    # s_B is 0 (T for sure): 0.5 + 0.924943/2.
    assert only.score == pytest.approx(0.5 + 0.924943 / 2, abs=1e-6)


def test_first_occurrence_of_the_tag_wins(judge_server: JudgeServer) -> None:
    stream = [
        tok("I will write <score_A>"),
        tok("C"),
        tok(" then again <score_A>"),
        tok("A"),
        tok("\n<score_B>"),
        tok("C"),
    ]
    only = ok(judged(judge_server, stream)).turns[0]
    assert only.score == pytest.approx(0.5)


def test_the_best_alternative_per_grade_and_the_chosen_token_count() -> None:
    found = distribution(
        tokens(tok("b", -1.0, ("B", -0.5), (" b ", -3.0), ("C", -2.0), ("Cx", 0.0)))[0]
    )
    assert found == {1: -0.5, 2: -2.0}


def test_comparison_is_clamped() -> None:
    assert pairwise_score(1.0, 0.0) == 1.0
    assert pairwise_score(0.25, 0.75) == 0.25
    assert pairwise_score(0.6, 0.6) == 0.5


# --- label parsing (§11 35) ---------------------------------------------------------------


@pytest.mark.parametrize("text", ['"A"', "A,", "U", "AB", "", " ", "Ａ", "@"])
def test_s35_not_labels(text: str) -> None:
    assert label_index(text) is None


@pytest.mark.parametrize(("text", "index"), [("a", 0), ("A", 0), (" t\n", 19), ("k", 10)])
def test_s35_labels(text: str, index: int) -> None:
    assert label_index(text) == index


def test_s35_distribution_and_pairwise() -> None:
    found = distribution(tokens(tok("not-score", 0.0, ("also-not-score", 0.0), ("T", 0.0)))[0])
    assert 19 in found
    assert pairwise_score(0, 2) == 0.0
    assert pairwise_score(2, 0) == 1.0
    assert [round(label_value(k), 6) for k in (0, 1, 10, 19)] == [1.0, 0.947368, 0.473684, 0.0]


# --- constructor (§11 37) -----------------------------------------------------------------


def test_s37_prompt_over_http(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply(content="x", logprobs=S27))
    actual = turn("Which city is the capital of France?", "Paris is the capital of France.")
    expected = turn("Which city is the capital of France?", "Lyon.")
    ok(run(JUDGE, verifier_metric(judge_server), [actual], [expected]))
    (body,) = judge_server.bodies()
    assert len(body["messages"]) == 1 and body["messages"][0]["role"] == "user"
    prompt = body["messages"][0]["content"]
    for fragment in (
        "Candidate A",
        "candidate A",
        "Candidate B",
        "candidate B",
        "accuracy: Prefer the more accurate answer.",
        "<score_A>LETTER_A_TO_T</score_A>",
        "<score_B>LETTER_A_TO_T</score_B>",
        "Which city is the capital of France?",
    ):
        assert fragment in prompt
    # §5.7's section order: scale, criteria, rules, output format, request, A, B.
    order = [
        prompt.index(s)
        for s in (
            "# Grading scale",
            "accuracy:",
            "# Rules",
            "# Output format",
            "Which city",
            "Paris is the capital",
            "Lyon.",
        )
    ]
    assert order == sorted(order)
    assert (
        JUDGE.operators.constructor.structured_output(
            TurnPrefix([actual], [expected], verifier_metric(None))
        )
        is None
    )


def prompt_error(
    actuals: Sequence[Invocation | None],
    expecteds: Sequence[Invocation | None],
    metric: EvalMetric | None,
) -> str:
    prefix = TurnPrefix(actuals, expecteds, metric)  # type: ignore[arg-type]
    with pytest.raises(OperatorError) as info:
        asyncio.run(PairwisePrompt().construct(prefix, None))  # type: ignore[arg-type]
    return str(info.value)


M = verifier_metric(None)
A, B = turn("q", "a"), turn("q", "b")
NO_JUDGE = EvalMetric.model_validate({"metricName": "m", "criterion": {}})


@pytest.mark.parametrize(
    ("actuals", "expecteds", "metric", "message"),
    [
        ([A], [B], verifier_metric(None, rubrics=()), "llm judge rubrics are required"),
        ([], [B], M, "actuals is empty"),
        ([A], [], M, "expecteds is empty"),
        ([A], [B], None, "eval metric is nil"),
        ([A], [B], NO_JUDGE, "llm judge criterion is required"),
        ([None], [B], M, "actual invocation is nil"),
        ([A], [None], M, "expected invocation is nil"),
        (
            [A],
            [turn("q", None)],
            M,
            "expected final response is required for llm_verifier_pairwise",
        ),
        ([turn("q", None)], [B], M, "actual final response is required for llm_verifier_pairwise"),
        # A rubric without content is invisible, so there are no criteria.
        (
            [A],
            [B],
            verifier_metric(None, rubrics=({"id": "accuracy", "content": None},)),
            "llm judge rubrics are required",
        ),
    ],
)
def test_s37_constructor_errors(
    actuals: list[Invocation | None],
    expecteds: list[Invocation | None],
    metric: EvalMetric | None,
    message: str,
) -> None:
    assert prompt_error(actuals, expecteds, metric) == message


def test_constructor_error_reaches_the_case_without_a_judge_call(judge_server: JudgeServer) -> None:
    message = error(run(JUDGE, verifier_metric(judge_server), [A], [turn("q", None)]))
    assert message == (
        "construct messages: expected final response is required for llm_verifier_pairwise (turn 1)"
    )
    assert judge_server.count == 0


def test_samples_are_majority_voted_not_averaged(judge_server: JudgeServer) -> None:
    """Three samples 0.75, 0.263158, 0.75 at threshold 0.5: the first passing sample, 0.75."""
    worse = [tok("<score_A>"), tok("T"), tok("<score_B>"), tok("K")]
    judge_server.enqueue(
        Reply(content="x", logprobs=S27),
        Reply(content="x", logprobs=worse),
        Reply(content="x", logprobs=S27),
    )
    m = verifier_metric(judge_server, numSamples=3)
    only = ok(run(JUDGE, m, [A], [B], judge_options=options(concurrency=1))).turns[0]
    assert only.score == pytest.approx(0.75)
    extra = only.details.model_extra or {}
    assert [round(s["score"], 6) for s in extra["samples"]] == [0.75, 0.263158, 0.75]


# --- up-front checks ----------------------------------------------------------------------


def test_check_wants_logprobs() -> None:
    issues = list(JUDGE.check(verifier_metric(None, generation={"temperature": 0})))
    assert [(i.path, i.warning) for i in issues] == [
        ("criterion.llmJudge.judgeModel.generationConfig.logprobs", False)
    ]
    issues = list(JUDGE.check(verifier_metric(None, generation={"logprobs": True})))
    assert [(i.path, i.warning) for i in issues] == [
        ("criterion.llmJudge.judgeModel.generationConfig.top_logprobs", True)
    ]
    assert list(JUDGE.check(verifier_metric(None))) == []


def test_check_case_wants_references_and_rubrics() -> None:
    case = EvalCase.model_validate(
        {
            "evalId": "c",
            "conversation": [
                {"userContent": {"role": "user", "content": "q"}},
                {
                    "userContent": {"role": "user", "content": "q2"},
                    "finalResponse": {"role": "assistant", "content": "a2"},
                },
            ],
            "sessionInput": {"userId": "u"},
        }
    )
    issues = list(JUDGE.check_case(verifier_metric(None, rubrics=()), case))
    assert [(i.path, i.message) for i in issues] == [
        (
            "conversation[0].finalResponse",
            "expected final response is required for llm_verifier_pairwise",
        ),
        ("rubrics", "llm judge rubrics are required"),
    ]
    issues = list(JUDGE.check_case(verifier_metric(None), case))
    assert [i.path for i in issues] == ["conversation[0].finalResponse"]


def test_logprobs_survive_the_cache(judge_server: JudgeServer, tmp_path: Path) -> None:
    """A rerun answered from the SQLite cache scores the same from the stored logprobs."""
    judge_server.default = Reply(content="x", logprobs=S27)
    cached = options(cache_path=tmp_path / "cache.sqlite")
    m = verifier_metric(judge_server)
    first = ok(run(JUDGE, m, [A], [B], judge_options=cached)).turns[0]
    again = ok(run(JUDGE, m, [A], [B], judge_options=cached)).turns[0]
    assert judge_server.count == 1
    assert first.score == again.score == pytest.approx(0.75, abs=1e-9)
    assert again.details.reason == first.details.reason
