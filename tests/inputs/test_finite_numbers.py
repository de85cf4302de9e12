"""Non-finite numbers located in parsed JSON, with and without the text gate."""

from __future__ import annotations

import json
import re

import pydantic_core
import pytest

from agenteval.inputs.finite_numbers import FiniteJsonHooks, non_finite_numbers


def test_every_non_finite_number_is_located_in_document_order() -> None:
    data = pydantic_core.from_json(
        '[{"threshold": NaN, "c": {"t": [1, Infinity, -Infinity]}}, {"x": 1e400, "ok": 1e308}]'
    )
    found = [(p.path, p.message) for p in non_finite_numbers(data, "m.json")]
    assert found == [
        ("[0].threshold", "nan is not a finite number"),
        ("[0].c.t[1]", "inf is not a finite number"),
        ("[0].c.t[2]", "-inf is not a finite number"),
        ("[1].x", "inf is not a finite number"),
    ]


def test_a_bare_non_finite_document_is_located_at_the_root() -> None:
    (problem,) = non_finite_numbers(float("nan"), "x.json")
    assert problem.path == "$"


def test_overflowing_exponents_are_found_through_the_text_gate() -> None:
    # With its text, a document is walked only when the text may hold such a literal:
    # every spelling of an overflowing exponent must pass the gate, after any text.
    literals = ["1e400", "1E+0400", "1.5e309", "-7e0999", "12345E+00400"]
    for literal in literals:
        text = f'{{"note": "née 北京 e+000", "args": {{"v": [0, {literal}]}}, "ok": 9e99}}'
        data = pydantic_core.from_json(text)
        found = [(p.path, p.message) for p in non_finite_numbers(data, "e.json", text)]
        sign = "-" if literal.startswith("-") else ""
        assert found == [("args.v[1]", f"{sign}inf is not a finite number")], literal


def test_finite_exponents_and_look_alikes_pass_the_gate_unwalked() -> None:
    for text in ['{"v": 1e-400}', '{"v": 9e99}', '{"v": "1e400"}', '{"v": "e400 4e0"}']:
        assert non_finite_numbers(pydantic_core.from_json(text), "e.json", text) == [], text


def test_the_json_hooks_refuse_what_go_refuses_in_the_readers_words() -> None:
    hooks = FiniteJsonHooks("{literal} is not JSON ({first!r})", "{literal} is beyond float64")
    decode = {"parse_constant": hooks.parse_constant, "parse_float": hooks.parse_float}
    assert json.loads('{"a": 1.5e3, "b": -2.0}', **decode) == {"a": 1500.0, "b": -2.0}
    for text, message in [
        ("NaN", "NaN is not JSON ('N')"),
        ("-Infinity", "-Infinity is not JSON ('-')"),
        ("[1e400]", "1e400 is beyond float64"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            json.loads(text, **decode)


def test_integers_beyond_float64_are_found_through_the_text_gate() -> None:
    # Go reads every JSON number as a float64 and refuses these; Python keeps an exact int.
    big = "1" + "0" * 400
    text = f'{{"args": {{"n": [0, -{big}]}}, "max": 1{"0" * 308}, "flag": true}}'
    data = pydantic_core.from_json(text)
    found = [(p.path, p.message) for p in non_finite_numbers(data, "i.json", text)]
    # 1e308 as an integer is finite: only the 401-digit one is refused.
    assert found == [("args.n[1]", "an integer of 401 digits is not a finite number")]
