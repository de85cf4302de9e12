"""JSON criterion: formats.md §3.5, the §5.5 vectors, D1-D4 of §5.6, and properties."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenteval.criteria import json_compare, named
from agenteval.criteria.json_compare import check_json, check_schema
from agenteval.schema.metric import JSON_STRATEGIES, JSONCriterion


def crit(**fields: Any) -> JSONCriterion:
    return JSONCriterion.model_validate(fields)


def ok(criterion: JSONCriterion, actual: Any, expected: Any, *, raw: bool = False) -> bool:
    return check_json(criterion, actual, expected, raw_text=raw).ok


def reason(criterion: JSONCriterion, actual: Any, expected: Any, *, raw: bool = False) -> str:
    verdict = check_json(criterion, actual, expected, raw_text=raw)
    assert not verdict.ok
    return verdict.reason


EXACT = crit()

# §5.5 exact comparison vectors.


def test_raw_text_key_order_does_not_matter() -> None:
    assert ok(EXACT, '{"a":1,"b":[2,3]}', '{"b":[2,3],"a":1}', raw=True)
    assert ok(EXACT, '  {"a": 1.0}\n', '{"a":1}', raw=True)


@pytest.mark.parametrize(
    ("tolerance", "actual", "expected", "matches"),
    [
        (None, 0.3000005, 0.3, True),
        (None, 0.301, 0.3, False),
        (0, 1.0000001, 1.0, False),
        (0, 2, 2.0, True),
        (0.2, 1.1, 1.0, True),
        (-0.1, 1.0, 1.0, False),
        (None, 10.0000004, 10, True),
    ],
)
def test_number_tolerance(
    tolerance: float | None, actual: float, expected: float, matches: bool
) -> None:
    criterion = crit(numberTolerance=tolerance)
    assert ok(criterion, {"value": actual}, {"value": expected}) is matches


def test_negative_tolerance_fails_even_identical_numbers() -> None:
    value = {"n": 1.0}
    assert not ok(crit(numberTolerance=-0.1), value, value)
    assert ok(crit(numberTolerance=-0.1), {"s": "x"}, {"s": "x"})


def test_arrays() -> None:
    assert ok(EXACT, [0.3000005], [0.3])
    assert reason(EXACT, [1], [1, 2]) == "array length mismatch at $: actual(1) != expected(2)"
    assert reason(EXACT, [1.0], [2.0]) == "value mismatch at $[0]: 1.0 vs 2.0"
    assert not ok(EXACT, [1, 2], [2, 1])


def test_type_mismatches() -> None:
    assert "type mismatch" in reason(EXACT, {"k": "v"}, "x")
    assert "type mismatch" in reason(EXACT, "x", {"k": "v"})
    assert "type mismatch" in reason(EXACT, [1], "x")
    assert "type mismatch" in reason(EXACT, "x", [1])
    assert not ok(EXACT, 1, "1")
    assert ok(EXACT, "ok", "ok")


def test_nulls() -> None:
    assert ok(EXACT, None, None)
    assert not ok(EXACT, None, "x")
    assert not ok(EXACT, "x", None)
    assert ok(EXACT, "null", "null", raw=True)


def test_missing_key_is_named() -> None:
    assert "key b in expected but not in actual" in reason(EXACT, {"a": 1}, {"a": 1, "b": 2})
    assert "key b in actual but not in expected" in reason(EXACT, {"a": 1, "b": 2}, {"a": 1})


def test_reason_names_the_json_path() -> None:
    assert reason(EXACT, {"a": 1}, {"a": 2}) == "value mismatch at $.a: 1 vs 2"
    found = reason(EXACT, {"m": {"list": [{"x y": "p"}]}}, {"m": {"list": [{"x y": "q"}]}})
    assert found == 'value mismatch at $.m.list[0]["x y"]: "p" vs "q"'
    nested = reason(EXACT, {"meta": {"id": 1}}, {"meta": {"id": 1, "t": 2}})
    assert nested == "key mismatch at $.meta: key t in expected but not in actual"


# §5.6 derived vectors.


def test_d1_bool_is_not_a_number() -> None:
    assert not ok(EXACT, {"a": True}, {"a": 1})
    assert not ok(EXACT, {"a": False}, {"a": 0})
    assert not ok(EXACT, {"a": 1.0}, {"a": True})
    assert not ok(crit(numberTolerance=5), True, 1)
    assert ok(EXACT, {"a": True}, {"a": True})
    assert "actual boolean true vs expected number 1" in reason(EXACT, {"a": True}, {"a": 1})


def test_d2_null_member_differs_from_absent_member() -> None:
    assert "key a in actual but not in expected" in reason(EXACT, {"a": None}, {})
    assert ok(EXACT, {"a": None}, {"a": None})


def test_d3_ignore_tree_does_not_enter_arrays() -> None:
    criterion = crit(ignoreTree={"items": {"t": True}})
    assert reason(criterion, {"items": [{"t": 1}]}, {"items": [{"t": 2}]}) == (
        "value mismatch at $.items[0].t: 1 vs 2"
    )


def test_d4_ignored_key_may_be_missing_on_one_side() -> None:
    criterion = crit(ignoreTree={"time": True})
    assert ok(criterion, {"city": "x", "time": "t1"}, {"city": "x"})
    assert ok(criterion, {"city": "x"}, {"city": "x", "time": "t1"})


# ignoreTree (§3.5).

WEATHER_ACTUAL = {
    "city": "Shanghai",
    "time": "2025-03-01T12:00:00Z",
    "meta": {"time": "12:00", "id": "ticket-1"},
}
WEATHER_EXPECTED = {"city": "Shanghai", "meta": {"id": "ticket-1"}}


def test_ignore_tree_nested() -> None:
    criterion = crit(ignoreTree={"time": True, "meta": {"time": True}})
    assert ok(criterion, WEATHER_ACTUAL, WEATHER_EXPECTED)
    beijing = dict(WEATHER_ACTUAL, city="Beijing")
    assert reason(criterion, beijing, WEATHER_EXPECTED) == (
        'value mismatch at $.city: "Beijing" vs "Shanghai"'
    )


def test_ignore_tree_extra_nested_key_fails() -> None:
    criterion = crit(ignoreTree={"meta": {"time": True}})
    actual = {"meta": {"id": "1", "time": "12:00", "country": "CN"}}
    assert "key country in actual but not in expected" in reason(
        criterion, actual, {"meta": {"id": "1"}}
    )
    assert ok(criterion, {"meta": {"id": "1", "time": "12:00"}}, {"meta": {"id": "1"}})


def test_ignore_tree_entries_other_than_true_ignore_nothing() -> None:
    assert not ok(crit(ignoreTree={"skip": "true"}), {"skip": "x"}, {})
    assert not ok(crit(ignoreTree={"skip": False}), {"skip": "x"}, {})
    assert not ok(crit(ignoreTree={"skip": 1}), {"skip": "x"}, {})
    meta = crit(ignoreTree={"meta": "true"})
    assert not ok(meta, {"meta": {"id": "1", "time": "a"}}, {"meta": {"id": "1", "time": "b"}})


def test_ignore_tree_both_directions_and_number_tolerance() -> None:
    criterion = crit(ignoreTree={"skipActual": True, "skipExpected": True})
    assert ok(criterion, {"keep": "v", "skipActual": "x"}, {"keep": "v", "skipExpected": "y"})
    tolerant = crit(ignoreTree={"skip": True})
    assert ok(tolerant, {"skip": 123.456, "value": 10.0000004}, {"skip": 200.0, "value": 10})


def test_ignore_tree_on_non_objects_compares_exactly() -> None:
    criterion = crit(ignoreTree={"a": True})
    assert ok(criterion, [1, 2], [1, 2])
    assert not ok(criterion, [{"a": 1}], [{"a": 2}])
    assert not ok(criterion, {"a": 1}, "x")


# onlyTree (§3.5).


def test_only_tree_top_level() -> None:
    criterion = crit(onlyTree={"city": True})
    assert ok(
        criterion,
        {"city": "Shanghai", "time": "now"},
        {"city": "Shanghai", "unexpectedKey": "ignored"},
    )


def test_only_tree_nested_compares_only_selected_leaf() -> None:
    criterion = crit(onlyTree={"meta": {"id": True}})
    actual = {"city": "Beijing", "meta": {"id": "ticket-1", "time": "12:00", "country": "CN"}}
    expected = {"city": "Shanghai", "meta": {"id": "ticket-1", "time": "ignored"}}
    assert ok(criterion, actual, expected)
    assert reason(criterion, {"meta": {"id": "t1"}}, {"meta": {"id": "t2"}}) == (
        'value mismatch at $.meta.id: "t1" vs "t2"'
    )


def test_only_tree_true_compares_whole_subtree() -> None:
    criterion = crit(onlyTree={"meta": True})
    same = {"id": "1", "extra": "x"}
    assert ok(criterion, {"meta": same, "other": 1}, {"meta": dict(same), "unexpected": 2})
    assert "key extra in actual but not in expected" in reason(
        criterion, {"meta": same}, {"meta": {"id": "1"}}
    )
    assert "key extra in expected but not in actual" in reason(
        criterion, {"meta": {"id": "1"}}, {"meta": same}
    )
    assert ok(criterion, {"meta": None}, {"meta": None})
    assert not ok(criterion, {"meta": None}, {"meta": "x"})
    assert "type mismatch" in reason(criterion, {"meta": {"id": "1"}}, {"meta": "x"})


def test_only_tree_selected_key_must_exist_on_both_sides() -> None:
    nested = crit(onlyTree={"meta": {"id": True}})
    assert "key meta in onlyTree but not in expected" in reason(nested, {"meta": {"id": "1"}}, {})
    assert "key meta in onlyTree but not in actual" in reason(nested, {}, {"meta": {"id": "1"}})
    leaf = crit(onlyTree={"missing": True})
    assert "key missing in onlyTree but not in actual" in reason(leaf, {}, {"missing": "v"})


def test_only_tree_invalid_entry() -> None:
    criterion = crit(onlyTree={"meta": "true"})
    found = reason(criterion, {"meta": {"id": "1"}}, {"meta": {"id": "1"}})
    assert "onlyTree[meta] must be a bool or an object" in found


def test_only_tree_false_entry_is_skipped() -> None:
    criterion = crit(onlyTree={"skip": False, "keep": True})
    assert ok(criterion, {"keep": "v", "skip": "x"}, {"keep": "v", "skip": "y"})
    assert not ok(criterion, {"keep": "v"}, {"keep": "w"})


def test_only_tree_on_non_objects_and_nulls() -> None:
    criterion = crit(onlyTree={"keep": True})
    assert ok(criterion, "x", "x")
    assert ok(criterion, None, None)
    assert not ok(criterion, None, "x")
    assert not ok(criterion, "x", None)
    assert "type mismatch" in reason(criterion, {"keep": "v"}, "x")
    assert "type mismatch" in reason(criterion, "x", {"keep": "v"})


def test_trees_are_exclusive_only_when_both_non_empty() -> None:
    both = crit(onlyTree={"keep": True}, ignoreTree={"skip": True})
    assert reason(both, {"keep": "v"}, {"keep": "v"}) == (
        "onlyTree and ignoreTree cannot be set at the same time"
    )
    empty_only = crit(onlyTree={}, ignoreTree={"skip": True})
    assert ok(empty_only, {"keep": "v", "skip": "x"}, {"keep": "v"})
    empty_ignore = crit(ignoreTree={}, onlyTree={"keep": True})
    assert ok(empty_ignore, {"keep": "v", "other": "x"}, {"keep": "v", "other": "y"})


# Steps 1-8: ignore, compareName, valid, schema, skip, parsing, strategy.


def test_valid_with_skip() -> None:
    criterion = crit(valid=True, matchStrategy="skip")
    assert ok(criterion, '{"a":1}', "not checked", raw=True)
    assert reason(criterion, "not json", "", raw=True).startswith("parse actual raw json: ")
    assert not ok(criterion, "{} {}", "", raw=True)
    assert not ok(criterion, "", "", raw=True)
    assert not ok(criterion, "NaN", "", raw=True)
    # Tool data: a string is parsed, anything already decoded is JSON.
    assert ok(criterion, '{"a":1}', None)
    assert not ok(criterion, "not json", None)
    assert ok(criterion, {"a": 1}, None)
    assert ok(criterion, 3, None)


def test_valid_with_exact() -> None:
    criterion = crit(valid=True, matchStrategy="exact")
    assert ok(criterion, '{"a":1}', '{"a":1}', raw=True)
    assert not ok(criterion, '{"a":1}', '{"a":2}', raw=True)


def test_valid_and_schema_use_the_parsed_value() -> None:
    criterion = crit(valid=True, schema={"const": "Paris"}, matchStrategy="skip")
    assert ok(criterion, '"Paris"', None)
    assert reason(criterion, "Paris", None).startswith("parse actual raw json")


def test_valid_and_schema_keep_large_integers_exact() -> None:
    criterion = crit(valid=True, schema={"const": 9007199254740993}, matchStrategy="skip")
    assert ok(criterion, "9007199254740993", None)
    assert "json schema validation failed" in reason(criterion, "9007199254740992", None)


def test_schema_multiple_of_uses_exact_decimals_as_go() -> None:
    """santhosh-tekuri/jsonschema v6 (json.go's ``validateJSONSchema``) checks multipleOf in
    validator.go ``numValidate`` as ``new(big.Rat).Quo(num(), MultipleOf).IsInt()``, with
    ``num()`` = ``big.Rat.SetString(fmt.Sprintf("%v", v))``: the shortest decimal of the
    number, so 19.99 is a multiple of 0.01 (score 1).  Python jsonschema divides binary
    floats (19.99 / 0.01 = 1998.9999999999998) and failed it."""
    cents = crit(schema={"multipleOf": 0.01}, matchStrategy="skip")
    for price in ("19.99", "0.07", "0.57", "7", "1e2"):
        assert ok(cents, price, "", raw=True), price
        assert ok(cents, json.loads(price), None), price  # tool data: a decoded float
    assert "0.575 is not a multiple of 0.01" in reason(cents, "0.575", "", raw=True)
    thirds = crit(schema={"items": {"multipleOf": 3}}, matchStrategy="skip")
    assert ok(thirds, [9, 9.0, -3, 0], None)
    assert "4.5 is not a multiple of 3" in reason(thirds, [9, 4.5], None)
    assert ok(crit(schema={"multipleOf": 0.1}, matchStrategy="skip"), 0.3, None)


def test_schema_on_raw_text() -> None:
    schema = {
        "type": "object",
        "required": ["answer"],
        "properties": {"answer": {"type": "string"}},
    }
    criterion = crit(schema=schema, matchStrategy="skip")
    assert ok(criterion, '{"answer":"Paris"}', "{}", raw=True)
    found = reason(criterion, '{"answer":123}', "{}", raw=True)
    assert found.startswith("json schema validation failed: ")
    assert "$.answer" in found
    assert reason(criterion, "not json", "", raw=True).startswith("parse actual raw json")


def test_schema_on_decoded_values_validates_strings_as_strings() -> None:
    criterion = crit(schema={"type": "string"}, matchStrategy="skip")
    assert ok(criterion, "Paris", None)
    assert "json schema validation failed" in reason(criterion, 1.0, None)


def test_schema_is_draft_2020_12_by_default() -> None:
    criterion = crit(
        schema={"type": "array", "prefixItems": [{"type": "string"}]}, matchStrategy="skip"
    )
    assert ok(criterion, '["Paris"]', None, raw=True)
    assert "json schema validation failed" in reason(criterion, "[1]", None, raw=True)


def test_schema_dollar_schema_is_honoured() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    criterion = crit(schema=draft7, matchStrategy="skip")
    assert ok(criterion, ["Paris"], None)
    assert not ok(criterion, [1], None)
    # The same array-form "items" is not a valid 2020-12 schema.
    assert check_schema({"items": [{"type": "string"}]}) is not None
    assert "unsupported $schema" in (check_schema({"$schema": "https://example.com/s"}) or "")


def test_invalid_schemas_are_mismatches() -> None:
    for schema in ("{", {"type": 123}, 5):
        assert check_schema(schema) is not None
        found = reason(crit(schema=schema), {"answer": "Paris"}, {"answer": "Paris"})
        assert found.startswith("invalid json schema: ")
    assert check_schema({}) is None
    assert check_schema(True) is None
    assert check_schema({"type": "object"}) is None


def test_schema_validators_are_cached_by_canonical_json() -> None:
    first = json_compare._compiled_schema({"type": "object", "required": ["a"]})
    second = json_compare._compiled_schema({"required": ["a"], "type": "object"})
    assert first is second


def test_raw_text_parse_errors_name_the_side() -> None:
    assert reason(EXACT, "not json", "{}", raw=True).startswith("parse actual raw json: ")
    assert reason(EXACT, "{}", "", raw=True).startswith("parse expected raw json: ")
    assert reason(EXACT, "{}", "{} {}", raw=True).startswith("parse expected raw json: ")
    # Tool data strings are compared as strings, never parsed.
    assert not ok(EXACT, '{"a":1}', {"a": 1})
    assert ok(EXACT, "not json", "not json")


def test_raw_text_lone_surrogate_escapes_read_as_replacement_character() -> None:
    """json.go's ``parseRawJSON`` decodes with encoding/json, which reads an invalid UTF-16
    escape as U+FFFD (``Unmarshal``'s documented rule), so "\\ud800" and "\\udc00" are the
    same string and the turn matches; they used to stay two different lone surrogates."""
    assert ok(EXACT, r'{"a": "\ud800"}', r'{"a": "\udc00"}', raw=True)
    assert ok(EXACT, r'["x\ud800y"]', '["x\ufffdy"]', raw=True)
    assert ok(EXACT, r'"\ud83d\ude00"', '"\U0001f600"', raw=True)  # a pair stays one character
    assert "value mismatch" in reason(EXACT, r'"\ud800"', '"?"', raw=True)
    schema = crit(valid=True, schema={"const": "\ufffd"}, matchStrategy="skip")
    assert ok(schema, r'"\udfff"', None)


def test_raw_text_numbers_beyond_float64_cannot_be_compared() -> None:
    """json.go's ``normalizeInputs`` -> ``parseRawJSON`` decodes into ``any`` (float64, no
    UseNumber): encoding/json refuses ``1e400`` and a 401-digit integer ("cannot unmarshal
    number ... into Go value of type float64"), so the turn is a mismatch (score 0) even
    when both sides are the same text; the exact Python int used to make it a match."""
    big = "1" + "0" * 400
    assert reason(EXACT, big, big, raw=True) == (
        "parse actual raw json: number at $ is beyond float64 (Go cannot decode it)"
    )
    assert reason(EXACT, f'{{"a": [{big}]}}', f'{{"a": [{big}]}}', raw=True).startswith(
        "parse actual raw json: number at a[0] is beyond float64"
    )
    assert reason(EXACT, "[1]", "[-1e400]", raw=True).startswith("parse expected raw json: ")
    # Only the comparison decodes into float64; valid and schema read numbers with
    # UseNumber (rawJSONValue, schemaValue), which keeps them.
    assert ok(crit(valid=True, schema={"type": "integer"}, matchStrategy="skip"), big, "")
    # Numbers near the limit, and such text inside strings or keys, are fine.
    assert ok(EXACT, "1.7976931348623157e308", "1.7976931348623157e308", raw=True)
    assert ok(EXACT, '{"1e400": "1e400"}', '{"1e400": "1e400"}', raw=True)


def test_skip_and_unknown_strategy() -> None:
    assert ok(crit(matchStrategy="skip"), "not json", "not checked", raw=True)
    assert (
        reason(crit(matchStrategy="invalid"), {"k": "v"}, {"k": "v"})
        == "invalid match strategy invalid"
    )
    assert frozenset({"", "exact", "skip"}) == JSON_STRATEGIES


def test_ignore_and_absent_criterion() -> None:
    assert ok(crit(ignore=True, onlyTree={"a": True}, ignoreTree={"b": True}), 1, 2)
    assert check_json(None, 1, 2, raw_text=False).ok


def test_named_compare(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Any, Any]] = []

    def same_keys(actual: Any, expected: Any) -> bool:
        seen.append((actual, expected))
        return (
            isinstance(actual, dict)
            and isinstance(expected, dict)
            and actual.keys() == expected.keys()
        )

    monkeypatch.setitem(named.json_compares, "same_keys", same_keys)
    criterion = crit(compareName="same_keys", valid=True, matchStrategy="skip")
    assert ok(criterion, {"a": 1}, {"a": 2})
    assert "returned false" in reason(criterion, {"a": 1}, {"b": 1})
    # Raw final-response text reaches the function unparsed.
    assert not ok(criterion, '{"a":1}', '{"a":1}', raw=True)
    assert seen[-1] == ('{"a":1}', '{"a":1}')


def test_named_compare_raise_and_tree_conflict_order(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def boom(actual: Any, expected: Any) -> bool:
        calls.append(1)
        raise ValueError("boom")

    monkeypatch.setitem(named.json_compares, "boom", boom)
    assert reason(crit(compareName="boom"), "a", "a") == "boom"
    conflict = crit(compareName="boom", onlyTree={"k": True}, ignoreTree={"s": True})
    assert "onlyTree and ignoreTree" in reason(conflict, {}, {})
    assert calls == [1]  # the conflict is reported before the function runs
    assert "missing_function" in reason(crit(compareName="missing_function"), 1, 1)


# Properties.

LEAVES = st.sampled_from([None, True, False, 0, 1, 1.0, 2.5, "", "1", "a"])
SMALL_JSON = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=12,
)
ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=25,
)
TOLERANCES = st.sampled_from([0.0, 1e-6, 0.5, 3.0])


def go_model(value: Any) -> Any:
    """An independent model of Go's decoded values: numbers as tagged floats, bools apart."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, dict):
        return ("object", {key: go_model(item) for key, item in value.items()})
    if isinstance(value, list):
        return ("array", [go_model(item) for item in value])
    return (type(value).__name__, value)


@given(ANY_JSON, TOLERANCES)
def test_equality_is_reflexive(value: Any, tolerance: float) -> None:
    assert ok(crit(numberTolerance=tolerance), value, copy.deepcopy(value))


@given(SMALL_JSON, SMALL_JSON, TOLERANCES)
def test_equality_is_symmetric(a: Any, b: Any, tolerance: float) -> None:
    criterion = crit(numberTolerance=tolerance)
    assert ok(criterion, a, b) == ok(criterion, b, a)


@given(SMALL_JSON, SMALL_JSON)
def test_exact_equality_agrees_with_the_go_value_model(a: Any, b: Any) -> None:
    assert ok(crit(numberTolerance=0), a, b) == (go_model(a) == go_model(b))


@given(ANY_JSON, ANY_JSON)
def test_raw_text_agrees_with_decoded_values(a: Any, b: Any) -> None:
    assert ok(EXACT, json.dumps(a), json.dumps(b), raw=True) == ok(EXACT, a, b)


def test_deeply_nested_values_do_not_crash() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    assert reason(EXACT, deep, deep) == "values are nested too deeply to compare"
