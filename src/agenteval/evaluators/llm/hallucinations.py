"""``llm_hallucinations``: is every claim of the final answer grounded in the trace? (§5.2)

Per turn: (A) the grounding context of every turn so far (:mod:`.grounding`);
(B) one extra judge call, made through the pipeline's ``ask``, that splits the
current final answer into numbered claims; (C) the per-sample judge call that
labels each claim against the context.  The reply is plain text blocks
(``ID`` / ``Reason`` / ``Label`` / ``Verdict``) scored by
:class:`HallucinationScorer`: the share of claims that are supported or not
applicable, with one ``rubricScores`` entry per claim.  Expected turns are not
used, so the metric needs no reference answers.  A failed segmentation call
makes the turn ``not_evaluated`` like a failed sample call, with the reason
``build segmented sentences: execute segmentation judge: ...``.

How the prompts were designed (our own wording; they state every rule of §5.2):

- Segmentation asks for a mechanical task and says so: copy the answer's
  claims in order, word for word, one ``<sentence>`` element per line, with
  list items split apart and short stylistic or process sentences kept as
  claims of their own (the validator labels those ``not_applicable``, which
  is better than silently dropping them).  It forbids any text outside the
  tags because every ``<sentence>`` match becomes a numbered claim, and it
  fixes the output for an empty answer (``[EMPTY_RESPONSE]``) so that an empty
  answer still yields exactly one claim.
- Validation gives the context first and the claims second, then the rules
  in order of how often judges break them: the context is the only evidence
  (no outside knowledge, no common sense, and the answer cannot support
  itself); "not fully supported" means ``unsupported``; the given ids are
  reused as they are (the scorer does not renumber).  The five labels are
  defined one by one, with ``disputed`` for a context that both supports and
  contradicts a claim and ``not_applicable`` for greetings, filler and
  statements about the process, and the label → verdict mapping is stated
  explicitly.  The block format comes last, with a blank line between blocks
  because the parser ends a block's verdict at a blank line; the empty-answer
  case has its own fixed block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agenteval.errors import JudgeError
from agenteval.evaluators.base import UNIT_RANGE
from agenteval.evaluators.llm.grounding import grounding_context
from agenteval.evaluators.llm.operators.constructors import (
    JudgeAsk,
    TurnPrefix,
    message_text,
)
from agenteval.evaluators.llm.operators.registry import OperatorError, quoted
from agenteval.evaluators.llm.operators.scorers import ScoreResult, rubric_mean
from agenteval.evaluators.llm.pipeline import VotingJudge
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import RubricScore

if TYPE_CHECKING:
    from agenteval.judge import ChatMessage, JudgeReply, StructuredOutput

EMPTY_ANSWER = "[EMPTY_RESPONSE]"
LABELS = "supported|unsupported|contradictory|disputed|not_applicable"

SEGMENTATION_PROMPT = """\
Split the answer below into its individual claims. This is a copying task: do \
not judge, fix, summarise or explain anything.

Rules:
- Go through the answer from start to end and keep the original order.
- One claim is one sentence. Each bullet point or numbered list item is a \
claim of its own, even without a full stop.
- Copy every claim exactly as written: same words, same punctuation, same \
numbers. Drop only the list markers.
- Short stylistic or process sentences (greetings, "Let me check that", \
"Hope this helps") are claims too; keep each as its own claim.
- Write each claim on its own line as <sentence>claim</sentence>.
- Write nothing outside the <sentence> elements.
- If the answer is empty, write exactly one line: \
<sentence>[EMPTY_RESPONSE]</sentence>

<final_answer>
{answer}
</final_answer>
"""

VALIDATION_PROMPT = """\
You check an AI agent's answer for hallucinations. The answer has been split \
into numbered sentences. Decide for each sentence whether the context \
supports it.

<context>
{context}
</context>

<segmented_sentences>
{sentences}
</segmented_sentences>

Rules:
1. The context is your only evidence. Do not use outside knowledge or common \
sense, and do not use the answer itself (other sentences included) as \
evidence for a sentence.
2. Be strict: a sentence that the context does not fully support is not \
supported.
3. Judge every sentence, and use the ids exactly as given: do not renumber, \
merge or skip sentences.
4. Keep each reason short and point to the part of the context it rests on.

Labels (use exactly one per sentence: {labels}):
- supported: the context fully supports the sentence.
- unsupported: the context does not contain enough to support the sentence.
- contradictory: the context contradicts the sentence.
- disputed: the context contains evidence both for and against the sentence.
- not_applicable: the sentence makes no factual claim (a greeting, stylistic \
filler, or a statement about the process).

Verdicts: supported and not_applicable mean yes; unsupported, contradictory \
and disputed mean no.

If the only sentence is {empty}, the agent gave no answer: write exactly one \
block with ID 1, Reason "no final answer produced", Label unsupported and \
Verdict no.

Output only the blocks below, one per sentence in order, each starting on a \
new line and separated by one blank line; write nothing else:

ID: <sentence id>
Reason: <short reason>
Label: <one label>
Verdict: <yes or no>
"""

# Go's RE2 \s is ASCII-only; Python's \s would also match Unicode spaces.
_S = r"[\t\n\f\r ]"
_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.DOTALL)
_BLOCK = re.compile(
    rf"ID:{_S}*(.*?){_S}*Reason:{_S}*(.*?){_S}*Label:{_S}*(.*?){_S}*Verdict:{_S}*(.*?)"
    rf"(?:\n{_S}*\n|\Z)",
    re.MULTILINE | re.DOTALL,
)
_LABEL_SCORES = {
    "supported": 1.0,
    "not_applicable": 1.0,
    "unsupported": 0.0,
    "contradictory": 0.0,
    "disputed": 0.0,
}


class SegmentationJudgeError(JudgeError):
    """The segmentation call failed for good; the turn is not evaluated."""


def segmented_sentences(reply_text: str) -> str:
    """The numbered ``<sentence id="k">`` blocks of a segmentation reply (ids count empty ones)."""
    matches = _SENTENCE.findall(reply_text)
    if not matches:
        raise OperatorError("no segmented sentences found in response")
    blocks = [
        f'<sentence id="{k}">\n{text.strip()}\n</sentence>'
        for k, text in enumerate(matches, start=1)
        if text.strip()
    ]
    if not blocks:
        raise OperatorError("no non-empty segmented sentences found in response")
    return "\n".join(blocks)


class HallucinationPrompt:
    """Grounding context + judge-segmented claims of the current answer; no schema."""

    async def construct(self, turn: TurnPrefix, ask: JudgeAsk) -> Sequence[ChatMessage]:
        """Steps A–C of §5.2 for the last turn of the prefix."""
        from agenteval.judge import ChatMessage, JudgeConfigError

        if not turn.actuals:
            raise OperatorError("actuals is empty")
        context = grounding_context(turn.actuals)
        actual = turn.actuals[-1]
        answer = message_text(actual.final_response if actual is not None else None)
        request = (ChatMessage("user", SEGMENTATION_PROMPT.format(answer=answer)),)
        try:
            reply = await ask(request)
        except JudgeConfigError:
            raise
        except JudgeError as exc:
            raise SegmentationJudgeError(
                f"build segmented sentences: execute segmentation judge: {exc}"
            ) from None
        try:
            sentences = segmented_sentences(reply.text)
        except OperatorError as exc:
            raise OperatorError(f"build segmented sentences: {exc}") from None
        prompt = VALIDATION_PROMPT.format(
            context=context, sentences=sentences, labels=LABELS, empty=EMPTY_ANSWER
        )
        return (ChatMessage("user", prompt),)

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        """The validation reply is plain text blocks."""
        return None


class HallucinationScorer:
    """``ID``/``Reason``/``Label``/``Verdict`` blocks → share of grounded claims (§5.2)."""

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """One rubric score per block; unknown labels are errors."""
        if reply is None:
            raise OperatorError("response is nil")
        blocks = _BLOCK.findall(reply.text)
        if not blocks:
            raise OperatorError("no sentence blocks found in response")
        scores: list[RubricScore] = []
        for position, (raw_id, raw_reason, raw_label, raw_verdict) in enumerate(blocks, 1):
            sentence_id = raw_id.strip() or str(position)
            label = raw_label.strip().lower().replace(" ", "_")
            verdict = raw_verdict.strip().lower()
            if label:
                value = _LABEL_SCORES.get(label)
                if value is None:
                    raise OperatorError(
                        f"score sentence {sentence_id}: unexpected label {quoted(label)}"
                    )
            else:
                value = 1.0 if verdict == "yes" else 0.0
            reason = raw_reason.strip()
            annotated = (f"[{label}] {reason}" if label else reason).strip()
            scores.append(RubricScore(id=sentence_id, reason=annotated, score=value))
        return rubric_mean(scores)


@register_evaluator
class HallucinationsJudge(VotingJudge):
    """Share of the answer's claims grounded in the trace; majority vote, average."""

    name = "llm_hallucinations"
    description = "LLM hallucination evaluator"
    # Each turn scores the share of its sentences the judge found supported; then the mean.
    score_range = UNIT_RANGE
    prompt_class = HallucinationPrompt
    scorer_class = HallucinationScorer
