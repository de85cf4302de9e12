"""``llm_rubric_knowledge_recall``: did retrieval find what each rubric item needs? (§5.6)

Required inputs as ``llm_rubric_response`` (expected turns are ignored).  The
evidence is the current turn's retrieval tool results: tools named exactly
``knowledge_search`` or ``knowledge_search_with_agentic_filter``, each result
read as Go reads a ``KnowledgeSearchResponse`` (case-insensitive keys, unknown
keys dropped, strict types, ``null`` = empty) and written back compactly in
the struct's field order, one line per tool call.  No retrieval result gives
the placeholder ``No knowledge search results were found.`` and the judge
still scores (Go degrades instead of failing, §10.2).  Schema
``rubric_knowledge_recall_scores``; scorer ``rubric_scores``.

How the prompt was designed (our own wording; it states every rule of §5.6):

- The task is split into its two questions, relevance to the user's question
  and sufficiency for each rubric item, and the scores are defined in those
  terms: 1 only when the retrieved documents directly support the item's key
  information (or the item clearly does not apply to this question), 0 when
  the support is missing, insufficient, merely on-topic or irrelevant.
- The evidence rule is the strictest of the rubric prompts: only the
  retrieved documents count, not the agent's final answer (which the judge is
  not even shown), not reasoning, not outside knowledge.
- Sufficiency gets an operational test the judge can apply: could someone who
  sees only the retrieved documents produce what the item requires?  Without
  it judges tend to accept "on the same topic" as sufficient.
- Reasons must quote the documents verbatim or nearly so and name where the
  quote sits (document id or position) when the evidence shows one; a
  conditional item may be not applicable only when the user's question makes
  that clear, and the reason must say why.
- Inputs follow §5.6's order (``<user_prompt>``/``<main_prompt>``,
  ``<retrieved_knowledge>``, ``<rubric>``), then the shared JSON contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenteval.errors import ControlFlow
from agenteval.evaluators.base import UNIT_RANGE
from agenteval.evaluators.llm.operators.constructors import TurnPrefix
from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.evaluators.llm.operators.response_json import json_type
from agenteval.evaluators.llm.rubric_judge import RubricJudge, RubricPrompt, checked_actual
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.evalset import Invocation, Tool
from agenteval.schema.gojson import GoJSONError, Struct, marshal

RETRIEVAL_TOOLS = frozenset({"knowledge_search", "knowledge_search_with_agentic_filter"})
NO_RESULTS = "No knowledge search results were found."

_RESPONSE = "tool.KnowledgeSearchResponse"
_DOC_FIELD = "KnowledgeSearchResponse.documents"
_DOCUMENTS = "Go struct field KnowledgeSearchResponse.documents of type []*tool.DocumentResult"

INSTRUCTIONS = """\
You are the grader of a retrieval step. An AI agent searched a knowledge base \
for the user's question; the documents it got back are in \
<retrieved_knowledge>. Decide two things for every item in <rubric>: are the \
retrieved documents relevant to the user's question, and are they sufficient \
to support what the item requires?

# What the scores mean

- 1: the retrieved documents directly support the key information the item \
requires, or the item is a conditional one that clearly does not apply to \
this question.
- 0: the item applies, and the retrieved documents are missing, insufficient, \
only loosely on the same topic, or irrelevant.

# Rules

1. The retrieved documents are the only trusted evidence. Do not use the \
agent's answer, anybody's reasoning, or your own knowledge to fill gaps.
2. Relevance comes first: a correct fact that does not help with the user's \
question does not support an item.
3. Test sufficiency like this: imagine someone who can see only \
<retrieved_knowledge>. If they could produce the key elements the item \
requires (entities, numbers, steps, conditions, definitions) from it alone, \
the item is supported; if anything essential is missing, it is not.
4. Quote the documents in your reason, verbatim or nearly so, and name where \
the quote comes from (document id or position) when the documents show it.
5. A conditional item may be scored 1 as not applicable only when the user's \
question makes clear that its condition does not hold; the reason must then \
say which part of the question shows it.
6. Judge each item on its own.
"""


def retrieved_knowledge(tools: Sequence[Tool | None]) -> str:
    """Every retrieval result as compact Go JSON plus ``\\n``, in call order (may be ``""``)."""
    lines: list[str] = []
    for tool in tools:
        if tool is None or tool.name not in RETRIEVAL_TOOLS:
            continue
        try:
            response = _search_response(tool.result)
        except _Mismatch as exc:
            raise OperatorError(
                f"parse tool {tool.name} response: unmarshal tool {tool.name} result: json: {exc}"
            ) from None
        try:
            lines.append(marshal(response) + "\n")
        except GoJSONError as exc:
            raise OperatorError(f"marshal tool {tool.name} response: {exc}") from None
    return "".join(lines)


class _Mismatch(ControlFlow):
    """A value of the wrong JSON type for its Go field."""


def _fields(value: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """Go's struct decoding of an object: each key sets the field it matches case-insensitively."""
    found: dict[str, Any] = {}
    for key, item in value.items():
        for name in names:
            if key == name or key.casefold() == name.casefold():
                found[name] = item
                break
    return found


def _search_response(result: Any) -> Struct:
    if result is None:
        return Struct([("documents", None)])
    if not isinstance(result, Mapping):
        raise _Mismatch(f"cannot unmarshal {json_type(result)} into Go value of type {_RESPONSE}")
    fields = _fields(result, ("documents", "message"))
    documents = fields.get("documents")
    if documents is not None and not isinstance(documents, list):
        raise _Mismatch(f"cannot unmarshal {json_type(documents)} into {_DOCUMENTS}")
    pairs: list[tuple[str, Any]] = [
        ("documents", None if documents is None else [_document(d) for d in documents])
    ]
    message = _typed(fields.get("message"), str, "KnowledgeSearchResponse.message", "string")
    if message:
        pairs.append(("message", message))
    return Struct(pairs)


def _document(value: Any) -> Struct | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise _Mismatch(f"cannot unmarshal {json_type(value)} into {_DOCUMENTS}")
    fields = _fields(value, ("id", "text", "metadata", "score"))
    doc_id = _typed(fields.get("id"), str, f"{_DOC_FIELD}.id", "string")
    text = _typed(fields.get("text"), str, f"{_DOC_FIELD}.text", "string")
    metadata = fields.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise _Mismatch(
            f"cannot unmarshal {json_type(metadata)} into Go struct field "
            f"{_DOC_FIELD}.metadata of type map[string]interface {{}}"
        )
    score = fields.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise _Mismatch(
            f"cannot unmarshal {json_type(score)} into Go struct field "
            f"{_DOC_FIELD}.score of type float64"
        )
    pairs: list[tuple[str, Any]] = [("id", doc_id)] if doc_id else []
    pairs.append(("text", text or ""))
    if metadata:
        pairs.append(("metadata", metadata))
    pairs.append(("score", float(score) if score is not None else 0.0))
    return Struct(pairs)


def _typed(value: Any, kind: type, field: str, go_type: str) -> Any:
    if value is not None and not isinstance(value, kind):
        raise _Mismatch(
            f"cannot unmarshal {json_type(value)} into Go struct field {field} of type {go_type}"
        )
    return value


class KnowledgeRecallPrompt(RubricPrompt):
    """User prompt, retrieved documents and rubrics of the current turn."""

    schema_name = "rubric_knowledge_recall_scores"
    schema_description = "Per-rubric binary scores and reasons for knowledge recall evaluation."
    instructions = INSTRUCTIONS
    sources = "Doc: quoted from <retrieved_knowledge>; User: from <user_prompt>"

    def inputs(self, turn: TurnPrefix) -> tuple[Invocation, str]:
        """The current turn and its retrieved documents."""
        actual = checked_actual(turn)
        try:
            evidence = retrieved_knowledge(actual.tools or ())
        except OperatorError as exc:
            raise OperatorError(f"extract knowledge recall: {exc}") from None
        documents = evidence or NO_RESULTS
        return actual, f"<retrieved_knowledge>\n{documents}\n</retrieved_knowledge>\n\n"


@register_evaluator
class KnowledgeRecallJudge(RubricJudge):
    """Per-rubric 0/1 verdicts on the retrieved documents, averaged; majority vote."""

    name = "llm_rubric_knowledge_recall"
    description = "LLM rubric knowledge recall evaluator"
    # Each turn scores the mean of its rubric scores, each 0..1 (Go accepts fractions); then the mean.
    score_range = UNIT_RANGE
    prompt_class = KnowledgeRecallPrompt
