"""agenteval.criteria.schema_patterns: JSON Schema regexes in RE2, refused when RE2 cannot take them."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, Draft201909Validator, Draft202012Validator

from agenteval.criteria.schema_patterns import re2_problem, with_re2
from cli_process import run_cli

EVIL = "^(a+)+$"
SUBJECT = "a" * 34 + "!"


def test_redos_pattern_is_linear_in_re2() -> None:
    validator = with_re2(Draft202012Validator)({"type": "string", "pattern": EVIL})
    assert not validator.is_valid(SUBJECT)  # Python's re takes minutes on this one
    assert validator.is_valid("a" * 50)


def test_redos_pattern_properties_and_additional_properties() -> None:
    schema = {"type": "object", "patternProperties": {EVIL: {"type": "integer"}},
              "additionalProperties": False}  # fmt: skip
    validator = with_re2(Draft202012Validator)(schema)
    errors = [e.message for e in validator.iter_errors({SUBJECT: 1, "aaa": "x"})]
    assert sorted(errors) == sorted(
        [f"{SUBJECT!r} does not match any of the regexes: {EVIL!r}", "'x' is not of type 'integer'"]
    )


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"pattern": "^[a-z]+$"}, "Abc"),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2, "c": 3}),
        ({"patternProperties": {"^x": {}}, "additionalProperties": False}, {"y": 1, "x1": 2}),
        ({"patternProperties": {"^x": {"type": "string"}}}, {"x": 1}),
        ({"additionalProperties": {"type": "string"}}, {"k": 1}),
    ],
)
@pytest.mark.parametrize("cls", [Draft202012Validator, Draft7Validator])
def test_messages_match_jsonschema(cls: type, schema: dict[str, object], instance: object) -> None:
    ours = [(e.message, list(e.path)) for e in with_re2(cls)(schema).iter_errors(instance)]
    theirs = [(e.message, list(e.path)) for e in cls(schema).iter_errors(instance)]
    assert ours == theirs


UNEVALUATED_REDOS = """
from jsonschema import Draft201909Validator, Draft202012Validator
from agenteval.criteria.schema_patterns import with_re2
EVIL, SUBJECT = "^(a+)+$", "a" * 34 + "!"
schema = {"patternProperties": {EVIL: {}}, "unevaluatedProperties": False}
nested = {  # reached through $ref, allOf, if/then and dependentSchemas
    "$defs": {"p": {"patternProperties": {EVIL: {"type": "integer"}}}},
    "allOf": [{"$ref": "#/$defs/p"}],
    "if": {"required": ["k"]},
    "then": {"patternProperties": {EVIL: {}}},
    "dependentSchemas": {"d": {"patternProperties": {EVIL: {}}}},
    "unevaluatedProperties": False,
}
for cls in (Draft202012Validator, Draft201909Validator):
    validator = with_re2(cls)(schema)
    print(validator.is_valid({"a" * 50: 1}))
    print([e.message for e in validator.iter_errors({SUBJECT: 1})])
    print(with_re2(cls)(nested).is_valid({SUBJECT: 1, "k": 1, "d": 1}))
"""


def test_redos_pattern_next_to_unevaluated_properties_finishes() -> None:
    """jsonschema's unevaluatedProperties walk matched patternProperties with Python's re."""
    done = subprocess.run(
        [sys.executable, "-c", UNEVALUATED_REDOS],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    refused = repr([f"Unevaluated properties are not allowed ({SUBJECT!r} was unexpected)"])
    assert done.stdout.splitlines() == ["True", refused, "False"] * 2


def _case(schema: object, *instances: object) -> list[tuple[object, object]]:
    return [(schema, instance) for instance in instances]


# Every branch of the evaluated-keys walk, with instances that pass and fail it.
UNEVALUATED_CASES = [
    *_case({"properties": {"a": {}}, "unevaluatedProperties": False}, {"a": 1}, {"a": 1, "b": 2, "c": 3}),
    *_case({"patternProperties": {"^x": {}, "y$": {}}, "unevaluatedProperties": False},
           {"x1": 1, "ay": 2}, {"x1": 1, "z": 2}, {}),
    *_case({"patternProperties": {"^x": {"type": "string"}}, "unevaluatedProperties": {"type": "integer"}},
           {"x": "s", "n": 1}, {"x": 1, "n": "s", "m": "t"}),
    *_case({"additionalProperties": {"type": "integer"}, "unevaluatedProperties": False},
           {"a": 1}, {"a": "s"}),
    *_case({"additionalProperties": True, "unevaluatedProperties": False}, {"a": 1}),
    *_case({"allOf": [{"properties": {"a": {}}}, {"patternProperties": {"^b": {}}}],
            "unevaluatedProperties": False}, {"a": 1, "b1": 2}, {"a": 1, "c": 2}),
    *_case({"anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                      {"patternProperties": {"^b": {"type": "integer"}}}],
            "unevaluatedProperties": False}, {"a": 1, "b": 2}, {"a": "s", "b": 2}, {"a": "s", "b": "t"}),
    *_case({"oneOf": [{"patternProperties": {"^a": {"type": "integer"}}},
                      {"properties": {"b": {}}, "required": ["b"]}],
            "unevaluatedProperties": False}, {"a1": 1}, {"a1": 1, "b": 1}, {"b": 1, "c": 1}),
    *_case({"if": {"patternProperties": {"^a": {"type": "integer"}}},
            "then": {"patternProperties": {"^t": {}}},
            "else": {"properties": {"e": {}}},
            "unevaluatedProperties": False}, {"a": 1, "t": 1}, {"a": "s", "e": 1}, {"a": "s", "t": 1}),
    *_case({"dependentSchemas": {"d": {"patternProperties": {"^x": {}}}},
            "properties": {"d": {}}, "unevaluatedProperties": False}, {"d": 1, "x": 1}, {"x": 1}),
    *_case({"$defs": {"p": {"patternProperties": {"^[0-9]+$": {"type": "integer"}}}},
            "$ref": "#/$defs/p", "unevaluatedProperties": {"type": "string"}},
           {"12": 1, "a": "s"}, {"12": 1, "a": 1, "b": 2}),
    *_case({"properties": {"o": {"patternProperties": {"^k": {}}, "unevaluatedProperties": False}}},
           {"o": {"k1": 1}}, {"o": {"k1": 1, "z": 2}}),
    *_case({"unevaluatedProperties": {"type": "integer", "minimum": 3}}, {"a": 3}, {"a": "s", "b": 1}),
    *_case({"patternProperties": {"^é|[ü]$": {}}, "unevaluatedProperties": False},
           {"é1": 1, "xü": 2}, {"e": 1}),
    *_case({"patternProperties": {"^x": {}}, "unevaluatedProperties": False}, "not an object", [1]),
]  # fmt: skip
DYNAMIC_CASES = [
    *_case({"$id": "https://example.com/root", "$dynamicAnchor": "n",
            "patternProperties": {"^p": {}},
            "properties": {"c": {"$dynamicRef": "#n"}}, "unevaluatedProperties": False},
           {"p": 1, "c": {"p": 2}}, {"c": {"q": 2}}),
]  # fmt: skip
RECURSIVE_CASES = [
    *_case({"$id": "https://example.com/root", "$recursiveAnchor": True,
            "patternProperties": {"^p": {}},
            "properties": {"c": {"$recursiveRef": "#"}}, "unevaluatedProperties": False},
           {"p": 1, "c": {"p": 2}}, {"c": {"q": 2}}),
]  # fmt: skip


def _verdicts(validator: object, instance: object) -> list[tuple[str, list[object], str]]:
    errors = validator.iter_errors(instance)  # type: ignore[attr-defined]
    return sorted((e.message, list(e.path), e.validator) for e in errors)


@pytest.mark.parametrize(
    ("cls", "schema", "instance"),
    [(Draft202012Validator, s, i) for s, i in UNEVALUATED_CASES + DYNAMIC_CASES]
    + [(Draft201909Validator, s, i) for s, i in UNEVALUATED_CASES + RECURSIVE_CASES],
)
def test_unevaluated_properties_verdicts_match_jsonschema(
    cls: type, schema: dict[str, object], instance: object
) -> None:
    """jsonschema's own validator is the reference on every schema Python's re handles."""
    theirs = cls(schema)
    ours = with_re2(cls)(schema)
    assert ours.is_valid(instance) == theirs.is_valid(instance)
    assert _verdicts(ours, instance) == _verdicts(theirs, instance)


KEYS = ["a", "b", "b1", "c", "x", "x1", "ay", "z", "12", "t", "e", "k", "d", "p", "q", "n", "é1"]
VALUES: list[object] = [1, 5, "s", None, True, 2.5, [1], {"p": 1}, {"q": 2}, {"k1": 1, "z": 2}]


@pytest.mark.parametrize("cls", [Draft202012Validator, Draft201909Validator])
def test_unevaluated_properties_on_random_objects_match_jsonschema(cls: type) -> None:
    """Seeded random objects against every schema above: the same verdicts and messages."""
    rng = random.Random(13)
    schemas = [s for s, _ in UNEVALUATED_CASES + DYNAMIC_CASES + RECURSIVE_CASES]
    verdicts = set()
    for schema in schemas:
        ours, theirs = with_re2(cls)(schema), cls(schema)
        for _ in range(25):
            keys = rng.sample(KEYS, rng.randint(0, 5))
            instance = {key: rng.choice(VALUES) for key in keys}
            verdicts.add(theirs.is_valid(instance))
            assert _verdicts(ours, instance) == _verdicts(theirs, instance), (schema, instance)
    assert verdicts == {True, False}


def test_the_cases_exercise_both_verdicts() -> None:
    for cls in (Draft202012Validator, Draft201909Validator):
        verdicts = {cls(s).is_valid(i) for s, i in UNEVALUATED_CASES}
        assert verdicts == {True, False}


def test_regexes_re2_cannot_take_are_refused_with_their_place() -> None:
    assert re2_problem({"properties": {"a": {"pattern": r"(a)\1"}}}) == (
        "regex '(a)\\\\1' at $.properties.a.pattern is not supported (RE2 syntax, linear time): "
        "invalid escape sequence: \\1"
    )
    assert "at $.items[0].patternProperties" in (
        re2_problem({"items": [{"patternProperties": {"(?=x)": {}}}]}) or ""
    )
    assert re2_problem({"pattern": EVIL, "properties": {"p": {"pattern": "^a$"}}}) is None


def write_metric(tmp_path: Path, criterion: Mapping[str, object]) -> None:
    metric = {"metricName": "m", "evaluatorName": "final_response_avg_score", "threshold": 1}
    (tmp_path / "s.metrics.json").write_text(json.dumps([{**metric, "criterion": criterion}]))


@pytest.mark.parametrize(
    ("schema", "answer", "reason"),
    [
        ({"pattern": EVIL}, SUBJECT, "does not match"),
        ({"patternProperties": {EVIL: {}}, "unevaluatedProperties": False}, {SUBJECT: 1},
         "Unevaluated properties are not allowed"),
    ],
)  # fmt: skip
def test_cli_redos_schema_finishes(
    tmp_path: Path, schema: dict[str, object], answer: object, reason: str
) -> None:
    """The hostile-input case: validate says OK and run scores the case, both at once."""
    turn = {"userContent": {"role": "user", "content": "q"},
            "finalResponse": {"role": "assistant", "content": json.dumps(answer)}}  # fmt: skip
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [
        {"evalId": "c", "evalMode": "trace", "actualConversation": [turn],
         "conversation": [turn], "sessionInput": {}}]}))  # fmt: skip
    criterion = {"finalResponse": {"json": {"valid": True, "schema": schema}}}
    write_metric(tmp_path, criterion)
    for command in ("validate", "run"):
        done = run_cli([command, "--evalset", str(evalset)], timeout=60)
        assert done.returncode == (0 if command == "validate" else 1), done.stdout + done.stderr
    assert reason in done.stdout


def test_cli_backreference_schema_is_a_located_error(tmp_path: Path) -> None:
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": []}))
    criterion = {"finalResponse": {"json": {"schema": {"pattern": r"(a)\1"}}}}
    write_metric(tmp_path, criterion)
    done = run_cli(["validate", "--evalset", str(evalset)], timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "s.metrics.json" in done.stderr and "$.pattern is not supported" in done.stderr
