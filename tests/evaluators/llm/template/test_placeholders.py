"""Double-brace placeholders of the template prompt (llm-evaluators.md §5.8.2, §11 scenario 47)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.evaluators.llm.template.placeholders import (
    Literal,
    Placeholder,
    UnresolvedPlaceholders,
    parse,
    placeholder_tokens,
    placeholders,
    render,
    required_placeholders,
)

QUESTION = "Question: {{question}}\nAnswer: {{answer}}\nReference: {{reference}}"
VALUES = {
    "question": "What is the capital of France?",
    "answer": "Paris",
    "reference": "Paris",
}


def test_scenario_47_renders_bound_values() -> None:
    rendered = render(QUESTION, VALUES)
    assert rendered == ("Question: What is the capital of France?\nAnswer: Paris\nReference: Paris")
    assert "Answer: Paris" in rendered and "Reference: Paris" in rendered


def test_scenario_47_unbound_placeholder_is_an_error_naming_it() -> None:
    with pytest.raises(UnresolvedPlaceholders) as caught:
        render(QUESTION + "\n{{missing}}", VALUES)
    assert str(caught.value) == "prompt: unresolved placeholders: {{missing}}"
    assert caught.value.tokens == ["{{missing}}"]


def test_unresolved_tokens_are_raw_unique_and_sorted() -> None:
    with pytest.raises(UnresolvedPlaceholders) as caught:
        render("{{b}} {{ a }} {{b}} {{a}} {{c?}}", {})
    assert str(caught.value) == "prompt: unresolved placeholders: {{ a }}, {{a}}, {{b}}"


def test_inner_whitespace_is_trimmed() -> None:
    assert render("{{ question }}|{{\tquestion\n}}", {"question": "Q"}) == "Q|Q"


def test_optional_placeholders() -> None:
    # Bound: the value; unbound: dropped silently.
    assert render("a={{a?}} b={{ b? }}.", {"a": "1"}) == "a=1 b=."
    # The '?' must end the trimmed name; "city ?" is not a placeholder at all.
    assert render("literal={{ city ? }}", {"city": "x"}) == "literal={{ city ? }}"


def test_names_may_hold_punctuation() -> None:
    prompt = "file {{artifact.file.txt}} slug {{invalid-name}} user {{user:name}}"
    values = {"artifact.file.txt": "report.md", "invalid-name": "release-1", "user:name": "ann"}
    assert render(prompt, values) == "file report.md slug release-1 user ann"
    assert placeholders(prompt) == ["artifact.file.txt", "invalid-name", "user:name"]


@pytest.mark.parametrize(
    "candidate",
    ["{{}}", "{{ }}", "{{a b}}", "{{?}}", "{{a??}}", "{{a?b}}", "{{'a'}}", '{{"a"}}', "{{`a`}}"],
)
def test_invalid_candidates_stay_literal(candidate: str) -> None:
    prompt = f"x {candidate} y"
    assert render(prompt, {"a": "V", "a b": "V", "": "V"}) == prompt
    assert placeholders(prompt) == []


def test_invalid_candidate_is_not_scanned_again() -> None:
    # "{{{x}}": the candidate runs from the first "{{" to the next "}}" with inner
    # text "{x", which is invalid; the inner "{{x}}" is never looked at.
    assert render("{{{x}}", {"x": "V"}) == "{{{x}}"
    assert placeholders("{{{x}}") == []
    # After an invalid candidate scanning resumes behind its "}}".
    assert render("{{a b}}{{x}}", {"x": "V"}) == "{{a b}}V"


def test_unclosed_braces_are_text() -> None:
    assert render("prefix {{name}", {"name": "V"}) == "prefix {{name}"
    assert render("{{ {{name}}", {"name": "V"}) == "{{ {{name}}"  # inner text " {{name"
    assert render("a {{ b", {}) == "a {{ b"
    assert render("}} {{x}}", {"x": "V"}) == "}} V"


def test_single_braces_are_literal() -> None:
    prompt = '{"score": 1} {name} {name?}'
    assert render(prompt, {"name": "V"}) == prompt
    assert placeholders(prompt) == []


def test_extra_closing_brace_stays() -> None:
    assert render("{{x}}}", {"x": "V"}) == "V}"


def test_values_are_inserted_verbatim_and_not_rescanned() -> None:
    assert render("{{a}} {{b}}", {"a": "{{b}}", "b": "<&>\\n"}) == "{{b}} <&>\\n"


def test_unused_values_are_fine() -> None:
    assert render("plain", {"unused": "x"}) == "plain"
    assert render("", {}) == ""


def test_go_whitespace_not_python_whitespace() -> None:
    # U+001C is whitespace to str.strip() but not to Go: it is part of the name.
    assert placeholders("{{\x1cname}}") == ["\x1cname"]
    # U+3000 (ideographic space) is whitespace to both.
    assert placeholders("{{\u3000name\u3000}}") == ["name"]
    # U+00A0 inside a name makes it invalid.
    assert placeholders("{{a\xa0b}}") == []


def test_parse_reports_positions_and_candidates() -> None:
    parts = parse("ab{{ x? }}c{{a b}}")
    assert parts == [
        Literal("ab", 0),
        Placeholder("{{ x? }}", "x", True, 2),
        Literal("c", 10),
        Literal("{{a b}}", 11, candidate=True),
    ]


def test_placeholder_name_lists() -> None:
    prompt = "{{b}} {{a?}} {{b}} {{ c }} {{a}}"
    assert [t.name for t in placeholder_tokens(prompt)] == ["b", "a", "b", "c", "a"]
    assert placeholders(prompt) == ["a", "b", "c"]
    assert required_placeholders("{{b}} {{a?}} {{c}}") == ["b", "c"]
    assert required_placeholders("{{a?}} {{a}}") == ["a"]


# A reference renderer written from the §5.8.2 rules with a regular expression.
_CANDIDATE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def reference_render(prompt: str, values: dict[str, str]) -> tuple[str, list[str]]:
    unresolved: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name = match.group(1).strip(_GO_SPACE)
        optional = name.endswith("?")
        name = name.removesuffix("?")
        if not name or any(c in _GO_SPACE + "{}'\"`?" for c in name):
            return match.group(0)
        if name in values:
            return values[name]
        if not optional:
            unresolved.add(match.group(0))
        return ""

    return _CANDIDATE.sub(replace, prompt), sorted(unresolved)


PROMPT_PIECES = st.lists(
    st.sampled_from(["{{", "}}", "{", "}", "a", "b", " ", "?", "x y", "\n", "'", "\x1c"]),
    max_size=16,
).map("".join)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(prompt=PROMPT_PIECES, bound=st.sets(st.sampled_from(["a", "b", "ab", "x"])))
def test_render_matches_a_regex_reference(prompt: str, bound: set[str]) -> None:
    values = {name: f"<{name}>" for name in bound}
    expected, unresolved = reference_render(prompt, values)
    if unresolved:
        with pytest.raises(UnresolvedPlaceholders) as caught:
            render(prompt, values)
        assert caught.value.tokens == unresolved
    else:
        assert render(prompt, values) == expected
