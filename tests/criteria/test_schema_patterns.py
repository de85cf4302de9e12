"""agenteval.criteria.schema_patterns: JSON Schema regexes in RE2, refused when RE2 cannot take them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from agenteval.criteria.schema_patterns import re2_problem, with_re2

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


def test_regexes_re2_cannot_take_are_refused_with_their_place() -> None:
    assert re2_problem({"properties": {"a": {"pattern": r"(a)\1"}}}) == (
        "regex '(a)\\\\1' at $.properties.a.pattern is not supported (RE2 syntax, linear time): "
        "invalid escape sequence: \\1"
    )
    assert "at $.items[0].patternProperties" in (
        re2_problem({"items": [{"patternProperties": {"(?=x)": {}}}]}) or ""
    )
    assert re2_problem({"pattern": EVIL, "properties": {"p": {"pattern": "^a$"}}}) is None


def write_metric(tmp_path: Path, criterion: dict[str, object]) -> None:
    metric = {"metricName": "m", "evaluatorName": "final_response_avg_score", "threshold": 1}
    (tmp_path / "s.metrics.json").write_text(json.dumps([{**metric, "criterion": criterion}]))


def test_cli_redos_schema_finishes(tmp_path: Path) -> None:
    """The hostile-input case: validate says OK and run scores the case, both at once."""
    turn = {"userContent": {"role": "user", "content": "q"},
            "finalResponse": {"role": "assistant", "content": json.dumps(SUBJECT)}}  # fmt: skip
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [
        {"evalId": "c", "evalMode": "trace", "actualConversation": [turn],
         "conversation": [turn], "sessionInput": {}}]}))  # fmt: skip
    criterion = {"finalResponse": {"json": {"valid": True, "schema": {"pattern": EVIL}}}}
    write_metric(tmp_path, criterion)
    for command in ("validate", "run"):
        done = subprocess.run(
            [sys.executable, "-m", "agenteval", command, "--evalset", str(evalset)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == (0 if command == "validate" else 1), done.stdout + done.stderr
    assert "does not match" in done.stdout


def test_cli_backreference_schema_is_a_located_error(tmp_path: Path) -> None:
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": []}))
    criterion = {"finalResponse": {"json": {"schema": {"pattern": r"(a)\1"}}}}
    write_metric(tmp_path, criterion)
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", "validate", "--evalset", str(evalset)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "s.metrics.json" in done.stderr and "$.pattern is not supported" in done.stderr
