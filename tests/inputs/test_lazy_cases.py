"""Planned cases: lazy (bytes and spans) and loaded (models) behave alike."""

from __future__ import annotations

import json

import pydantic_core

from agenteval.checks.evalset_stream import check_evalset_stream
from agenteval.inputs.lazy_cases import LazyCases, LoadedCases, OwnTurns, PlannedCases
from agenteval.inputs.unknown_keys import Strictness
from agenteval.schema.evalset import EvalSet

CASES = [
    {"evalId": "a", "evalMode": "trace", "actualConversation": [{"invocationId": "t1"}]},
    None,
    {"evalId": "b", "conversation": [{"userContent": {"role": "user", "content": "Grüße"}}]},
    {"evalId": "c", "sessionInput": {"appName": "x", "userId": "u", "state": {"k": [1, 2.5]}}},
]
DOCUMENT = json.dumps({"evalSetId": "s", "evalCases": CASES}, ensure_ascii=False).encode()


def lazy(document: bytes = DOCUMENT) -> LazyCases:
    streamed = check_evalset_stream(
        document,
        "s.evalset.json",
        Strictness.DEFAULT,
        all_metrics=[],
        selected=[],
        metrics_file="m.json",
        traces=None,
    )
    assert streamed is not None
    return streamed.cases


def loaded() -> LoadedCases:
    return LoadedCases.of_evalset(EvalSet.model_validate_json(DOCUMENT))


def test_lazy_cases_equal_the_whole_read_and_are_new_objects_on_each_pass() -> None:
    cases, reference = lazy(), loaded()
    assert len(cases) == len(reference) == 3
    first, second = list(cases), list(cases)
    assert first == second == list(reference)
    assert all(a is not b for a, b in zip(first, second, strict=True))
    assert cases[1] == reference[1]
    assert cases[-1].eval_id == "c"
    assert cases.ids == reference.ids == ["a", "b", "c"]


def test_indices_in_evalcases_skip_null_entries() -> None:
    for cases in (lazy(), loaded()):
        assert [(i, c.eval_id) for i, c in cases.indexed()] == [(0, "a"), (2, "b"), (3, "c")]


def test_narrowing_keeps_file_order_and_every_id() -> None:
    cases: PlannedCases
    for cases in (lazy(), loaded()):
        narrowed = cases.where({"c", "a"}.__contains__)
        assert [c.eval_id for c in narrowed] == ["a", "c"]
        assert list(narrowed.selected_ids()) == ["a", "c"]
        assert [i for i, _ in narrowed.indexed()] == [0, 3]
        assert narrowed.ids == ["a", "b", "c"]  # all of the file, for --resume's order
        again = narrowed.where(lambda eval_id: eval_id != "a")
        assert [c.eval_id for c in again] == ["c"]
        assert len(cases.where(lambda eval_id: False)) == 0
        assert [c.eval_id for c in cases[1:]] == ["b", "c"]


def test_a_lazy_case_is_the_case_validated_from_its_parsed_value() -> None:
    # Built from the span's JSON text; the checks validated the parsed value: the same
    # fields set, numbers, nulls as defaults and a key given twice (its last value).
    case = (
        '{"evalId": "x", "evalId": "y", "evalMode": null, "creationTimestamp": 1700000000,'
        ' "conversation": [null, {"usage": {"inputTokens": null, "outputTokens": 3},'
        ' "tools": [{"name": "t", "arguments": {"n": 1e400, "big": 123456789012345678901234,'
        ' "k": 1, "k": [2.5, -0.0]}}], "userContent": {"content": "\\u00e9\\ud83d\\ude00"}}],'
        ' "sessionInput": {"state": null}, "rubrics": [{"content": {"text": null}}]}'
    )
    document = f'{{"evalCases": [{case}]}}'.encode()
    (lazy_case,) = lazy(document)
    (whole,) = EvalSet.model_validate(pydantic_core.from_json(document)).cases()
    dump = {"exclude_unset": True, "by_alias": True}
    assert repr(lazy_case.model_dump(**dump)) == repr(whole.model_dump(**dump))
    assert lazy_case.model_dump(**dump)["evalId"] == "y"


def test_cases_scoring_their_own_turns_are_known_without_building_one() -> None:
    cases = [
        {"evalId": "t", "evalMode": "trace", "actualConversation": [{"invocationId": "t1"}]},
        {"evalId": "own", "actualConversation": [{"invocationId": "o1"}]},
        {"evalId": "plain", "conversation": [{"invocationId": "p1"}]},
        {"evalId": "bare", "evalMode": "trace"},
    ]
    document = json.dumps({"evalSetId": "s", "evalCases": cases}).encode()
    reference = LoadedCases.of_evalset(EvalSet.model_validate_json(document))
    expected = OwnTurns(frozenset({"t", "bare"}), frozenset({"t", "own"}))
    for planned in (lazy(document), reference):
        assert planned.own_turns == expected
        # A narrower selection still knows them: the warnings read the selected ids.
        assert planned.where({"own"}.__contains__).own_turns == expected
        assert planned[1:].own_turns == expected


def test_a_case_with_a_lone_surrogate_escape_reads_as_when_read_whole() -> None:
    # Checked case by case and read again from its bytes, as Go reads it: U+FFFD.
    document = b'{"evalSetId": "s", "evalCases": [{"evalId": "a\\ud800", "evalMode": "trace"}]}'
    (case,) = list(lazy(document))
    assert case.eval_id == "a\ufffd"
    assert lazy(document).ids == ["a\ufffd"]
