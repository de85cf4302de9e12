"""The agent's spend as ``runs.agent_*`` columns: sums as the run document's, unknown as NULL,
and the top-level ``agentUsage`` found in a stored result document read in pieces."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agenteval.schema.gojson import model_to_go_json_bytes
from agenteval.store.agent_spend import (
    agent_columns,
    agent_usage_of,
    document_keys_usage,
    summed_usage,
    top_level_usage,
)
from store.store_support import AGENT_SPENT, scripted_result, with_agent_usage

COLUMNS = {
    "agent_turns": 3,
    "agent_turns_without_usage": 0,
    "agent_inference_calls": 6,
    "agent_input_tokens": 7000,
    "agent_output_tokens": 1100,
    "agent_unpriced_turns": 0,
    "agent_cost_usd": 0.00171,
}


def _case_usage(eval_id: str) -> object:
    """One case's agentUsage as `run` wrote it (store_support's turns, built-in prices)."""
    result = with_agent_usage(scripted_result(1))
    (case,) = [c for c in result.case_results() if c.eval_id == eval_id]
    return (case.model_extra or {})["agentUsage"]


def test_eval_sets_are_summed_in_decimal_as_the_run_document_sums_them() -> None:
    steady, broken = _case_usage("steady"), _case_usage("broken")
    assert (steady["costUsd"], broken["costUsd"]) == (0.00054, 0.00117)  # type: ignore[index]
    # Floats added would store 0.0017100000000000001, a cent fraction off the document's.
    assert 0.00054 + 0.00117 != 0.00171
    assert agent_columns([steady, None, broken]) == COLUMNS
    assert agent_usage_of(COLUMNS) == AGENT_SPENT


def test_no_usage_is_unknown_never_zero() -> None:
    nothing = dict.fromkeys(COLUMNS)
    assert agent_columns([]) == nothing
    assert agent_columns([None, {"unrelated": 1}, {"turns": 0}]) == nothing
    assert agent_usage_of(nothing) is None
    assert summed_usage([None, None]) is None


def test_an_unpriced_turn_makes_the_cost_unknown_not_a_partial_sum() -> None:
    priced = _case_usage("steady")
    unpriced = with_agent_usage(scripted_result(1), "acme:house-model").agent_usage
    assert unpriced is not None and unpriced["unpricedTurns"] == 3
    values = agent_columns([priced, unpriced])
    assert values["agent_unpriced_turns"] == 3
    assert values["agent_cost_usd"] is None  # $0.00054 is known, the whole is not
    assert values["agent_turns"] == 5 and values["agent_input_tokens"] == 2000 + 7000


def test_a_group_sums_its_members_and_an_unknown_cost_stays_unknown() -> None:
    whole = agent_usage_of(COLUMNS)
    assert summed_usage([whole, None, whole]) == {
        **AGENT_SPENT,
        "turns": 6,
        "inferenceCalls": 12,
        "inputTokens": 14000,
        "outputTokens": 2200,
        "costUsd": 0.00342,
    }
    unknown = agent_usage_of({**COLUMNS, "agent_unpriced_turns": 1, "agent_cost_usd": None})
    summed = summed_usage([whole, unknown])
    assert summed is not None and summed["costUsd"] is None and summed["unpricedTurns"] == 1


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


@pytest.mark.parametrize("size", [1, 7, 4096, 1 << 20])
def test_the_top_level_usage_of_a_document_read_in_pieces_of_any_size(size: int) -> None:
    document = model_to_go_json_bytes(with_agent_usage(scripted_result(1)))
    # Each case carries its own agentUsage before the eval set's.
    assert document.count(b'"agentUsage"') == 3
    assert top_level_usage(_pieces(document, size)) == AGENT_SPENT


def test_a_document_without_a_top_level_usage_gives_none() -> None:
    with_cases = json.loads(model_to_go_json_bytes(with_agent_usage(scripted_result(1))))
    del with_cases["agentUsage"]
    for document in (
        with_cases,
        json.loads(model_to_go_json_bytes(scripted_result(1))),
        {"summary": {"agentUsage": {"turns": 1}}},
        {"a": [{"agentUsage": {"turns": 1}}], "b": 1},
        {"reason": 'said "agentUsage": {"turns": 1}'},
    ):
        data = json.dumps(document).encode()
        assert top_level_usage(_pieces(data, 5)) is None, document
    # Written by another tool: spaces and line breaks around the key are read too.
    pretty = json.dumps({"evalCaseResults": [], "agentUsage": {"turns": 2}}, indent=2).encode()
    assert top_level_usage([pretty]) == {"turns": 2}
    assert top_level_usage([b'{"agentUsage": {"turns": 2}, "x": [1, {"y": 2}]}\n']) == {"turns": 2}
    assert top_level_usage([b'{"agentUsage": {"turns"']) is None  # cut short


def test_the_trailer_kept_by_run_store() -> None:
    keys = json.dumps({"header": {}, "trailer": {"warnings": [], "agentUsage": AGENT_SPENT}})
    assert document_keys_usage(keys) == AGENT_SPENT
    assert document_keys_usage(json.dumps({"header": {}, "trailer": {"warnings": []}})) is None
    assert document_keys_usage("not json") is None
    assert document_keys_usage("[1]") is None


def test_a_group_sums_as_agent_usage_sums() -> None:
    parts = [_case_usage("steady"), _case_usage("broken"), _case_usage("steady")]
    members = [agent_usage_of(agent_columns([part])) for part in parts]
    assert summed_usage(members) == agent_usage_of(agent_columns(parts))
