"""agenteval's own keys: fields of the JSON Schemas and known to the unknown-key check alike."""

from __future__ import annotations

from agenteval.inputs.unknown_keys import evalset_unknown_keys, known_keys
from agenteval.schema.evalset import EvalSet
from agenteval.schema.json_schema import json_schema
from agenteval.schema.metric import Criterion
from agenteval.schema.own_keys import AGENTEVAL_KEYS


def test_own_keys_are_schema_fields_and_known_keys() -> None:
    schema = json_schema("evalset")
    assert set(AGENTEVAL_KEYS[EvalSet]) <= set(schema["properties"])
    assert {"gate", "positionCheck"} <= set(known_keys(Criterion))


def test_an_eval_sets_schema_line_is_no_unknown_key() -> None:
    data = {"$schema": "https://example.test/evalset.schema.json", "evalCases": []}
    assert evalset_unknown_keys(data, "f.json") == []
