"""``llm_verifier_pairwise``: which of two answers is better, read from the judge's token logprobs.

llm-evaluators.md §5.7.  Candidate A is the agent's final response, candidate
B the reference final response of the current turn.  The judge grades each
one with a letter from ``A`` (best) to ``T`` (worst) inside ``<score_A>`` /
``<score_B>`` tags.  The scorer never reads the reply text: for each tag it
finds the token holding the grade letter, takes the log probabilities of every
letter offered at that position, and computes the expected quality
``s = Σ softmax(lp)·v(letter)`` with ``v(k) = 1 − k/19``.  The turn's score is
``0.5 + (s_A − s_B)/2`` clamped to [0, 1]: above 0.5 the agent's answer is
better, below it the reference is.  The judge must be called with
``"logprobs": true`` (and ``"top_logprobs": 20``) in ``generationConfig``;
a reply without logprobs is an error.

With ``"positionCheck": true`` in the metric's ``criterion`` (agenteval's own key)
every evaluated turn is asked once more with the candidates swapped (the reference
as A, the agent's answer as B); ``details.positionCheck`` records the swapped score,
which answer each order preferred and whether the preference ``flipped`` — a judge
that always prefers the first answer flips every time.  ``agenteval calibrate``
reports the flip rate.  The turn's score is the forward comparison's, unchanged.

How the prompt was designed (our own wording; the section order is §5.7's):
the grading scale comes first with every band spelled out, so the letters
mean the same thing for both candidates; then the evaluation criteria (the
metric's rubrics as ``id: text`` lines), then the rules (criteria only, the
request defines what is required, no trust in a candidate's claims about
itself, independent grades that may be equal), then the output contract
(analysis first, then each tag once on its own line with a single letter,
nothing after), and only then the long inputs: the user request and the two
candidates, clearly delimited.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from agenteval.evaluators.base import UNIT_RANGE, ConfigIssue, EvalContext, EvaluateResult, Turns
from agenteval.evaluators.checks.judge_config import JUDGE_MODEL, capability_issue
from agenteval.evaluators.checks.reference_answers import missing_reference_answers
from agenteval.evaluators.llm.operators.constructors import (
    PromptConstructor,
    TurnPrefix,
    current_pair,
    message_text,
    rubric_block,
)
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.scorers import ScoreResult, numeric
from agenteval.evaluators.llm.pipeline import (
    JudgeSampler,
    VotingJudge,
    judge_session,
    resolved_settings,
)
from agenteval.evaluators.llm.template.placeholders import go_trim
from agenteval.evaluators.registry import register_evaluator
from agenteval.judge.provider import LOGPROBS
from agenteval.schema.evalset import EvalCase
from agenteval.schema.metric import EvalMetric, LLMCriterion
from agenteval.schema.status import EvalStatus

if TYPE_CHECKING:
    from agenteval.judge import JudgeReply, TokenLogprob, TopLogprob

NAME = "llm_verifier_pairwise"
GRANULARITY = 20
TIE = 0.5
SCORE_A_TAG = "<score_A>"
SCORE_B_TAG = "<score_B>"

PROMPT = """\
You are a verifier. Grade two candidate responses to the same user request, \
candidate A and candidate B, each one on its own.

# Grading scale

Give each candidate exactly one letter from A to T. The 20 letters are strictly \
ordered: A is the best grade, T the worst, and every letter is a little worse \
than the one before it.
- A: fully satisfies every criterion.
- B, C, D: satisfies the criteria, with minor issues.
- E, F, G: above average, mostly correct.
- H, I, J: uncertain, leaning towards success.
- K, L, M: uncertain, leaning towards failure.
- N, O, P: below average, with significant issues.
- Q, R, S: failed, with some partial progress.
- T: complete failure.

# Evaluation criteria

{criteria}

# Rules

- Grade only against the evaluation criteria above. The user request defines \
what is required.
- Do not believe what a candidate says about itself (that it is correct, \
complete or verified); judge what it actually delivers.
- Grade candidate A and candidate B independently. The grades are not a \
ranking: both candidates may get the same letter.

# Output format

First write a short analysis of both candidates. Then write the two grades, \
each exactly once and on its own line, in this form:
<score_A>LETTER_A_TO_T</score_A>
<score_B>LETTER_A_TO_T</score_B>
where LETTER_A_TO_T is replaced by one capital letter from A to T. Write \
nothing after these two lines.

# User request

{user}

# Candidate A

{candidate_a}

# Candidate B

{candidate_b}
"""


class PairwisePrompt(PromptConstructor):
    """Criteria, the user request and both candidates of the current turn (§5.7).

    ``swapped``: the reference is candidate A and the agent's answer B (the position check).
    """

    def __init__(self, swapped: bool = False) -> None:
        self.swapped = swapped

    def prompt(self, turn: TurnPrefix) -> str:
        """The verifier prompt, after Go's input checks in Go's order."""
        if not turn.actuals:
            raise OperatorError("actuals is empty")
        if not turn.expecteds:
            raise OperatorError("expecteds is empty")
        metric = turn.metric
        if metric is None:
            raise OperatorError("eval metric is nil")
        if turn.llm_judge is None:
            raise OperatorError("llm judge criterion is required")
        actual, expected = current_pair(turn)
        if expected.final_response is None:
            raise OperatorError(f"expected final response is required for {NAME}")
        if actual.final_response is None:
            raise OperatorError(f"actual final response is required for {NAME}")
        criteria = go_trim(rubric_block(metric))
        if not criteria:
            raise OperatorError("llm judge rubrics are required")
        first, second = message_text(actual.final_response), message_text(expected.final_response)
        if self.swapped:
            first, second = second, first
        return PROMPT.format(
            criteria=criteria,
            user=message_text(actual.user_content),
            candidate_a=first,
            candidate_b=second,
        )


def label_index(text: str) -> int | None:
    """0 for ``A`` … 19 for ``T`` when ``text`` is one such letter (any case, spaces around)."""
    normalized = go_trim(text).upper()
    # Go compares one byte: a single non-ASCII character is never a label.
    if len(normalized) != 1 or not normalized.isascii():
        return None
    index = ord(normalized) - ord("A")
    return index if 0 <= index < GRANULARITY else None


def label_value(index: int) -> float:
    """The quality of a grade: A = 1.0 down to T = 0.0 in equal steps."""
    return 1 - index / (GRANULARITY - 1)


def _label_after(token: str, prefix: str) -> int | None:
    if not token.startswith(prefix):
        return None
    return label_index(token[len(prefix) :])


def distribution(token: TokenLogprob, prefix_length: int = 0) -> dict[int, float]:
    """Grade → logprob at one position: the token's own grade, then the best alternative per grade.

    ``prefix_length`` characters of the token belong to the tag; only
    candidates starting with that same text count, and the rest is the grade.
    """
    prefix = token.token[:prefix_length]
    found: dict[int, float] = {}
    own = _label_after(token.token, prefix)
    if own is not None:
        found[own] = token.logprob
    alternatives: Sequence[TopLogprob] = token.top_logprobs
    for top in alternatives:
        index = _label_after(top.token, prefix)
        # Go's "not present or greater": a NaN already there stays (and is reported below).
        if index is not None and (index not in found or top.logprob > found[index]):
            found[index] = top.logprob
    return found


def expected_score(found: dict[int, float]) -> float:
    """Softmax over the grades present, weighted by their quality."""
    best = -math.inf
    for logprob in found.values():
        if math.isnan(logprob):
            raise OperatorError("score token logprob is NaN")
        if logprob == math.inf:
            # Only from JSON like 1e400, which Go's decoder refuses; its softmax is NaN.
            raise OperatorError("score token logprob is positive infinity")
        best = max(best, logprob)
    if best == -math.inf:
        raise OperatorError("score token logprobs are all negative infinity")
    weights = {index: math.exp(logprob - best) for index, logprob in found.items()}
    total = sum(weights.values())
    return sum(weight * label_value(index) for index, weight in weights.items()) / total


def expected_quality(tokens: Sequence[TokenLogprob], tag: str) -> float:
    """The expected quality of the grade right after the first ``tag`` in the token stream."""
    if not tokens:
        raise OperatorError("token logprobs are empty")
    text = ""
    for position, token in enumerate(tokens):
        before = len(text)
        text += token.token
        # Only an occurrence that ends inside this token is new.
        start = text.find(tag, max(0, before - len(tag) + 1))
        if start < 0:
            continue
        end = start + len(tag)
        if end < len(text):
            # The token goes on past the tag: the grade is the rest of this same token.
            found = distribution(token, end - before)
        elif position + 1 >= len(tokens):
            raise OperatorError("score token is missing after tag")
        else:
            found = distribution(tokens[position + 1])
        if not found:
            raise OperatorError("score token logprobs are missing after tag")
        return expected_score(found)
    raise OperatorError("score tag is missing")


def pairwise_score(score_a: float, score_b: float) -> float:
    """``0.5 + (s_A − s_B)/2`` clamped to [0, 1]; above 0.5 candidate A is better."""
    return min(1.0, max(0.0, TIE + (score_a - score_b) / 2))


class PairwiseScorer:
    """Grades of both candidates from the logprobs → the comparison score."""

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """Read both tags' grade distributions; the reply text is never parsed."""
        if reply is None or not reply.logprobs:
            raise OperatorError(
                "logprobs are missing (the judge reply has no token logprobs: set "
                '"logprobs": true and "top_logprobs": 20 in the judge generationConfig)'
            )
        qualities: list[float] = []
        for tag, label in ((SCORE_A_TAG, "score_A"), (SCORE_B_TAG, "score_B")):
            try:
                qualities.append(expected_quality(reply.logprobs, tag))
            except OperatorError as exc:
                raise OperatorError(f"{label}: {exc}") from None
        score_a, score_b = qualities
        score = pairwise_score(score_a, score_b)
        reason = f"Computed from score_A {score_a:.4f} and score_B {score_b:.4f} log probabilities."
        return ScoreResult(score=score, reason=reason, value=numeric(score))


_LOGPROBS_HINT = 'set "logprobs": true and "top_logprobs": 20'
# criterion.positionCheck (agenteval's own key): ask every turn again with the candidates
# swapped and record in details.positionCheck whether the preferred answer flipped.
POSITION_CHECK = "positionCheck"


def preference(score: float, agent_first: bool) -> str:
    """Which answer a comparison score prefers: ``agent``, ``reference`` or ``tie``."""
    if score == TIE:
        return "tie"
    first_wins = score > TIE
    return "agent" if first_wins == agent_first else "reference"


def position_check_enabled(metric: EvalMetric) -> bool:
    """Whether the metric asks for the position-bias check."""
    criterion = metric.criterion
    return criterion is not None and (criterion.model_extra or {}).get(POSITION_CHECK) is True


@register_evaluator
class PairwiseVerifier(VotingJudge):
    """Compares the agent's answer (A) with the reference (B) from the judge's grade logprobs."""

    name = NAME
    description = "LLM-as-a-Verifier pairwise preference evaluator"
    # Each turn scores 0.5 + (quality A - quality B) / 2, clamped to 0..1; then the mean.
    score_range = UNIT_RANGE
    prompt_class = PairwisePrompt
    scorer_class = PairwiseScorer

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """The comparison; with ``positionCheck`` each turn is asked again in swapped order."""
        result = await super().aevaluate(metric, actuals, expecteds, context)
        if not position_check_enabled(metric):
            return result
        from agenteval.errors import JudgeError
        from agenteval.judge import JudgeRequest

        llm_judge = metric.criterion.llm_judge if metric.criterion else None
        model = llm_judge.judge_model if llm_judge else None
        sampler = JudgeSampler(
            metric.metric_name, judge_session(context), resolved_settings(model), 1, context
        )
        swapped_prompt = PairwisePrompt(swapped=True)
        for index, turn in enumerate(result.turns):
            if turn.status is EvalStatus.NOT_EVALUATED:
                continue
            prefix = TurnPrefix(actuals[: index + 1], expecteds[: index + 1], metric)
            check: dict[str, object]
            try:
                request = JudgeRequest.user_prompt(sampler.settings, swapped_prompt.prompt(prefix))
                swapped = PairwiseScorer().score(await sampler.ask(request), metric).score
            except (JudgeError, OperatorError) as exc:
                check = {"error": str(exc)}  # the check could not be made; the score stands
            else:
                forward, backward = preference(turn.score, True), preference(swapped, False)
                check = {
                    "swappedScore": swapped,
                    "preferred": [forward, backward],
                    "flipped": forward != backward,
                }
            turn.details = turn.details.model_copy(update={POSITION_CHECK: check})
        return result

    def check_llm_judge(self, metric: EvalMetric, llm_judge: LLMCriterion) -> Iterable[ConfigIssue]:
        """Without ``logprobs: true`` every reply lacks the logprobs the score is made of."""
        model = llm_judge.judge_model
        if model is None:
            return []  # reported by the judge-config check
        lacking = capability_issue(metric, LOGPROBS)
        if lacking is not None:
            return [lacking]
        generation = model.generation_config or {}
        where = f"{JUDGE_MODEL}.generationConfig"
        if generation.get("logprobs") is not True:
            return [
                ConfigIssue(
                    f"{where}.logprobs",
                    f"{NAME} needs the judge's token logprobs",
                    f"{_LOGPROBS_HINT} in generationConfig",
                )
            ]
        if generation.get("top_logprobs") is None:
            return [
                ConfigIssue(
                    f"{where}.top_logprobs",
                    "without top_logprobs only the sampled grade letter counts",
                    '"top_logprobs": 20 gives the full distribution over the 20 grades',
                    warning=True,
                )
            ]
        return []

    def check_case(self, metric: EvalMetric, case: EvalCase) -> Iterable[ConfigIssue]:
        """The reference answers and rubrics this case needs (case rubrics count)."""
        issues = missing_reference_answers(
            case,
            f"expected final response is required for {NAME}",
            f"{NAME} compares the agent's answer with the reference answer",
        )
        if not go_trim(rubric_block(metric)):
            issues.append(
                ConfigIssue(
                    "rubrics",
                    "llm judge rubrics are required",
                    "the verifier grades against criterion.llmJudge.rubrics; add rubrics "
                    "to the metric or to this case",
                )
            )
        return issues
