"""Restricted JSONPath (llm-evaluators.md §6, §11 scenarios 56–57) and its property tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.evaluators.llm.template.jsonpath import PathError, compile_path, extract

# --- §11 scenario 56: success table -------------------------------------------------

SUCCESS = [
    ('{"payload":{"answer":"Paris"}}', "$.payload.answer", "Paris"),
    ('{"payload":{"evidence":{"city":"Paris"}}}', "payload.evidence", '{"city":"Paris"}'),
    ('{"items":[{"name":"first"},{"name":"second"}]}', "$.items[1].name", "second"),
    ('{"answer":"Paris"}', "$", '{"answer":"Paris"}'),
    ('{"answer":"Paris"}', "", '{"answer":"Paris"}'),
    ('{"ok":true}', "$.ok", "true"),
    ('{"ok":false}', "$.ok", "false"),
    ('{"value":null}', "$.value", "null"),
    ('{"id":9007199254740993}', "$.id", "9007199254740993"),
    ('{"rule":{"text":"x < y > z & a"}}', "$.rule", '{"text":"x < y > z & a"}'),
]


@pytest.mark.parametrize(("raw", "path", "expected"), SUCCESS)
def test_success_table(raw: str, path: str, expected: str) -> None:
    assert compile_path(path).extract(raw) == expected
    assert extract(raw, path) == expected


# --- §11 scenario 57: failure table --------------------------------------------------

FAILURE = [
    ("plain text", "$.payload.answer", "parse source json"),
    ("{} {}", "$", "multiple JSON values"),
    ("{} [", "$", "parse source json"),
    ('{"payload":{}}', "$payload.answer", "invalid root selector"),
    ('{"payload":{}}', "$.payload.", "missing key"),
    ('{"payload":{}}', "$.payload]", "unexpected ]"),
    ('{"payload":{}}', "$.payload.*", "unsupported wildcard"),
    ('{"payload":{}}', "$.payload.answer", 'key "answer" not found'),
    ('{"payload":[]}', "$.payload.answer", "expects object before key"),
    ('{"items":[]}', "$.items[0]", "index 0 out of range"),
    ('{"items":{}}', "$.items[0]", "expects array before index 0"),
    ('{"items":[]}', "$.items[0", "missing ]"),
    ('{"items":[]}', "$.items[]", "missing index"),
    ('{"items":[]}', "$.items[one]", "invalid index"),
    ('{"items":[]}', "$.items[0]name", "missing delimiter"),
]


@pytest.mark.parametrize(("raw", "path", "fragment"), FAILURE)
def test_failure_table(raw: str, path: str, fragment: str) -> None:
    with pytest.raises(PathError) as caught:
        extract(raw, path)
    assert fragment in caught.value.message
    assert "\n" not in caught.value.message


def test_failure_messages_are_gos_word_for_word() -> None:
    cases = {
        ("plain text", "$.a"): (
            "parse source json for path \"$.a\": invalid character 'p' looking for "
            "beginning of value"
        ),
        ("{} {}", "$"): 'parse source json for path "$": multiple JSON values',
        ("", "$"): 'parse source json for path "$": EOF',
        ("{}", "$payload.answer"): 'json path "$payload.answer" has invalid root selector',
        (
            '{"payload":{}}',
            "$.payload.answer",
        ): 'json path "$.payload.answer" key "answer" not found',
        ('{"items":{}}', "$.items[0]"): 'json path "$.items[0]" expects array before index 0',
        ("{}", "$.items[one]"): 'json path "$.items[one]" has invalid index "one"',
        ("{}", "$.items[0]name"): 'json path "$.items[0]name" missing delimiter before key',
    }
    for (raw, path), message in cases.items():
        with pytest.raises(PathError) as caught:
            extract(raw, path)
        assert caught.value.message == message


def test_source_errors_come_before_path_errors() -> None:
    # Go parses the source first: a bad source hides a bad path.
    with pytest.raises(PathError, match="parse source json"):
        extract("not json", "$.a[")


# --- further §6 rules ----------------------------------------------------------------


def test_grammar_corners_follow_section_6() -> None:
    doc = '{"a b":1,"\\"q\\"":2,"x$":3,"k?":4,"(":5,"list":[10,20,30]}'
    assert extract(doc, "$.a b") == "1"  # keys may hold spaces
    assert extract(doc, '$."q"') == "2"  # quotes are part of the key, not syntax
    assert extract(doc, "x$") == "3"  # a bare leading key
    assert extract(doc, ".k?") == "4"  # '.' may start a path without '$'
    assert extract(doc, "$.(") == "5"
    assert extract(doc, "list[+1]") == "20"  # Go's Atoi accepts a sign
    assert extract(doc, "$.list[002]") == "30"  # and leading zeros
    assert extract("[[1,[2]]]", "[0][1][0]") == "2"
    assert extract("7", "$") == "7"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("$.list[-1]", 'json path "$.list[-1]" index -1 out of range'),
        ("$.list[3]", 'json path "$.list[3]" index 3 out of range'),
        ("$.list.a", 'json path "$.list.a" expects object before key "a"'),
        ("$.name[0]", 'json path "$.name[0]" expects array before index 0'),
        ("$.obj[0]", 'json path "$.obj[0]" expects array before index 0'),
        ("$.none.a", 'json path "$.none.a" expects object before key "a"'),
    ],
)
def test_lookups_that_jsonpath_ng_would_answer_differently(path: str, message: str) -> None:
    # jsonpath-ng counts negative indexes from the end and finds nothing when types
    # differ; §6 gives each case its own error.
    doc = '{"list":[1,2,3],"name":"abc","obj":{"0":1},"none":null}'
    with pytest.raises(PathError) as caught:
        extract(doc, path)
    assert caught.value.message == message


@pytest.mark.parametrize(
    "index", ["1_000", "\u0661", "0x1", "1.5", " 0", "0 ", "1e2", "9223372036854775808", "--1"]
)
def test_indexes_that_go_atoi_rejects(index: str) -> None:
    # Python's int() accepts several of these (underscores, Arabic-Indic digits, spaces).
    with pytest.raises(PathError, match="has invalid index"):
        compile_path(f"$.a[{index}]")


def test_int64_bounds_of_an_index() -> None:
    assert compile_path("[9223372036854775807]").segments == (9223372036854775807,)
    assert compile_path("[-9223372036854775808]").segments == (-9223372036854775808,)
    assert compile_path("[" + "0" * 40 + "7]").segments == (7,)


def test_numbers_keep_their_literal_text() -> None:
    doc = '{"n":[1.0,1.50,-0,2E5,1e-07,12345678901234567890123,1e400]}'
    assert extract(doc, "$.n") == "[1.0,1.50,-0,2E5,1e-07,12345678901234567890123,1e400]"
    assert extract(doc, "$.n[0]") == "1.0"
    assert extract(doc, "$.n[6]") == "1e400"


def test_rendering_sorts_keys_and_does_not_escape_html() -> None:
    doc = '{"z":"<&>","a":{"y":1,"b":[true,null]},"\\u00e9":"caf\\u00e9","\\n":"\\u2028"}'
    assert extract(doc, "") == '{"\\n":"\\u2028","a":{"b":[true,null],"y":1},"z":"<&>","é":"café"}'
    assert extract(doc, "$.z") == "<&>"
    assert extract('{"s":"a\\nb\\u0001\\"c"}', "$") == '{"s":"a\\nb\\u0001\\"c"}'


def test_duplicate_keys_last_wins_and_whitespace_is_fine() -> None:
    assert extract(' \n\t{"a":1, "a" : 2}\r\n ', "$.a") == "2"


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("NaN", "invalid character 'N'"),
        ('{"a": Infinity}', "invalid character 'I'"),
        ("[1,", "parse source json"),
        ("{} x", "parse source json"),
        ('"a" "b"', "multiple JSON values"),
        ("{}}", "parse source json"),
        ("[" * 5000 + "]" * 5000, "parse source json"),
    ],
)
def test_sources_go_rejects(raw: str, fragment: str) -> None:
    with pytest.raises(PathError) as caught:
        extract(raw, "$")
    assert fragment in caught.value.message


def test_lone_surrogates_become_replacement_characters_like_go() -> None:
    assert extract('{"k":"a\\ud800b"}', "$.k") == "a\ufffdb"
    assert extract('{"\\udc00":["\\ud83d\\ude00"]}', "") == '{"\ufffd":["\U0001f600"]}'


def test_grammar_errors_name_the_position_for_validate() -> None:
    with pytest.raises(PathError) as caught:
        compile_path("$.items[*]")
    assert caught.value.describe().startswith("at character 9 ('*')")
    with pytest.raises(PathError) as caught:
        compile_path("$.payload.")
    assert caught.value.describe().startswith("at the end of the path")


# --- property tests ------------------------------------------------------------------


@dataclass(frozen=True)
class Num:
    """A number literal in a generated document (kept as text, like Go's json.Number)."""

    text: str


NUMBER_LITERALS = st.from_regex(
    r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,8})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
)
# Keys that a path can name: printable, non-empty, no '.', '[', ']' or '*'.
PATH_KEYS = st.text(
    st.characters(exclude_characters=".[]*", exclude_categories=["Cs"]), min_size=1, max_size=6
).filter(str.isprintable)
ANY_KEYS = PATH_KEYS | st.text(max_size=4)
SCALARS = st.none() | st.booleans() | NUMBER_LITERALS.map(Num) | st.text(max_size=8)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_KEYS, inner, max_size=4),
    max_leaves=20,
)
# Mostly containers at the top, so that most paths have segments to follow.
TOP_DOCUMENTS = (
    st.lists(DOCUMENTS, min_size=1, max_size=4)
    | st.dictionaries(PATH_KEYS, DOCUMENTS, min_size=1, max_size=4)
    | DOCUMENTS
)
SPACE = st.sampled_from(["", "", " ", "\n", "\t", "\r\n  "])


@st.composite
def source_text(draw: st.DrawFn, value: Any) -> str:
    """``value`` written as JSON with random whitespace and string escaping."""
    pad = draw(SPACE)
    if isinstance(value, Num):
        body = value.text
    elif isinstance(value, str):
        body = json.dumps(value, ensure_ascii=draw(st.booleans()))
    elif isinstance(value, list):
        body = "[" + ",".join(draw(source_text(v)) for v in value) + draw(SPACE) + "]"
    elif isinstance(value, dict):
        members = [
            json.dumps(k, ensure_ascii=draw(st.booleans()))
            + draw(SPACE)
            + ":"
            + draw(source_text(v))
            for k, v in value.items()
        ]
        body = "{" + ",".join(members) + draw(SPACE) + "}"
    else:
        body = json.dumps(value)
    return pad + body + draw(SPACE)


@st.composite
def segments_into(draw: st.DrawFn, doc: Any) -> list[str | int]:
    """Mostly a walk along existing members; sometimes one step that does not exist."""
    segments: list[str | int] = []
    current = doc
    while draw(st.integers(0, 7)) > 0:
        if isinstance(current, dict):
            nameable = [k for k in current if _nameable(k)]
            if not nameable:
                break
            key = draw(st.sampled_from(nameable))
            segments.append(key)
            current = current[key]
        elif isinstance(current, list) and current:
            index = draw(st.integers(0, len(current) - 1))
            segments.append(index)
            current = current[index]
        else:
            break
    if draw(st.integers(0, 4)) == 0:
        segments.append(draw(PATH_KEYS | st.integers(-3, 6)))
    return segments


def _nameable(key: str) -> bool:
    return bool(key) and key.isprintable() and not set(key) & set(".[]*")


@st.composite
def path_text(draw: st.DrawFn, segments: list[str | int]) -> str:
    """The segments written in one of the accepted spellings."""
    rooted = draw(st.booleans())
    parts = ["$"] if rooted else []
    for position, segment in enumerate(segments):
        if isinstance(segment, int):
            spelled = str(segment)
            if segment >= 0:
                spelled = draw(st.sampled_from(["", "+", "0"])) + spelled
            parts.append(f"[{spelled}]")
        elif position == 0 and not rooted and not segment.startswith("$") and draw(st.booleans()):
            parts.append(segment)  # a bare leading key
        else:
            parts.append("." + segment)
    text = "".join(parts)
    if rooted and not segments and draw(st.booleans()):
        text = ""
    return text


def reference_quote(text: str) -> str:
    """Go's %q for the printable strings the generators produce."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def reference_string(text: str) -> str:
    """A JSON string as Go's encoder writes it with HTML escaping off."""
    named = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b"}
    named |= {"\f": "\\f", "\u2028": "\\u2028", "\u2029": "\\u2029"}
    out = []
    for char in text:
        if char in named:
            out.append(named[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def reference_json(value: Any) -> str:
    if isinstance(value, Num):
        return value.text
    if isinstance(value, str):
        return reference_string(value)
    if isinstance(value, list):
        return "[" + ",".join(reference_json(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        return (
            "{" + ",".join(reference_string(k) + ":" + reference_json(value[k]) for k in keys) + "}"
        )
    return {None: "null", True: "true", False: "false"}[value]


def reference_extract(doc: Any, segments: list[str | int], path: str) -> tuple[bool, str]:
    """§6 step 3–4 by plain walking: (True, rendered) or (False, Go's error)."""
    where = f"json path {reference_quote(path)}"
    current = doc
    for segment in segments:
        if isinstance(segment, str):
            if not isinstance(current, dict):
                return False, f"{where} expects object before key {reference_quote(segment)}"
            if segment not in current:
                return False, f"{where} key {reference_quote(segment)} not found"
            current = current[segment]
        else:
            if not isinstance(current, list):
                return False, f"{where} expects array before index {segment}"
            if not 0 <= segment < len(current):
                return False, f"{where} index {segment} out of range"
            current = current[segment]
    if isinstance(current, str):
        return True, current
    return True, reference_json(current)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, Any, list[str | int]]:
    doc = draw(TOP_DOCUMENTS)
    segments = draw(segments_into(doc))
    return draw(source_text(doc)), draw(path_text(segments)), doc, segments


@settings(max_examples=600, deadline=None, derandomize=True)
@given(cases())
def test_extract_matches_the_reference_walk(case: tuple[str, str, Any, list[str | int]]) -> None:
    raw, path, doc, segments = case
    compiled = compile_path(path)
    assert list(compiled.segments) == segments
    ok, expected = reference_extract(doc, segments, path)
    if ok:
        assert compiled.extract(raw) == expected
    else:
        with pytest.raises(PathError) as caught:
            compiled.extract(raw)
        assert caught.value.message == expected


VALID_PIECES = st.lists(
    PATH_KEYS.map(lambda k: "." + k) | st.integers(0, 9).map(lambda i: f"[{i}]"), max_size=3
).map("".join)
DEFECTS = st.sampled_from(
    [
        ".*",
        ".a*b",
        "[*]",
        "[?(@.a)]",
        "[?(@.price < 10)]",
        "['a']",
        '["a"]',
        "['a.b']",
        "[0:2]",
        "[:1]",
        "[::2]",
        "..a",
        "..",
        ".",
        ".[0]",
        "[]",
        "[ 0]",
        "[0 ]",
        "[1 2]",
        "[1.5]",
        "[0x1]",
        "[1_0]",
        "[-]",
        "[0]x",
        "[0]$",
        ".a]",
        "]",
        "[0",
        "[",
        "[99999999999999999999]",
    ]
)
ROOT_DEFECTS = st.sampled_from(["$$", "$a", "$ .a", "$*", "$]", "]", "*", "a*"])


@settings(max_examples=500, deadline=None, derandomize=True)
@given(
    prefix=st.sampled_from(["$", "", "$.a", "a", "[0]", "$.x[1]"]),
    middle=VALID_PIECES,
    defect=DEFECTS,
    suffix=VALID_PIECES,
)
def test_rejected_forms_raise_path_error(
    prefix: str, middle: str, defect: str, suffix: str
) -> None:
    _assert_rejected(prefix + middle + defect + suffix)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(start=ROOT_DEFECTS, suffix=VALID_PIECES)
def test_rejected_starts_raise_path_error(start: str, suffix: str) -> None:
    _assert_rejected(start + suffix)


def _assert_rejected(path: str) -> None:
    with pytest.raises(PathError) as caught:
        compile_path(path)
    error = caught.value
    assert error.message.startswith(f"json path {json.dumps(path, ensure_ascii=False)} ")
    assert "\n" not in error.message
    assert error.position is not None and 0 <= error.position <= len(path)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(path=st.text(max_size=12), raw=st.text(max_size=12))
def test_arbitrary_text_never_raises_anything_but_path_error(path: str, raw: str) -> None:
    try:
        compiled = compile_path(path)
    except PathError as error:
        assert error.message and "\n" not in error.message
        return
    try:
        compiled.extract(raw)
    except PathError as error:
        assert error.message


def test_the_compiled_path_is_jsonpath_ngs_expression() -> None:
    from jsonpath_ng import Child, Fields, Index, Root

    compiled = compile_path("$.items[2].name")
    assert compiled.expression == Child(
        Child(Child(Root(), Fields("items")), Index(2)), Fields("name")
    )
    assert compiled.segments == ("items", 2, "name")
    assert compile_path("").expression == Root()


def test_lookups_go_through_jsonpath_ng_find(monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonpath_ng.jsonpath as engine

    calls: list[str] = []
    original = engine.Child.find

    def counting(self: Any, datum: Any) -> Any:
        calls.append(str(self))
        return original(self, datum)

    monkeypatch.setattr(engine.Child, "find", counting)
    assert compile_path("$.a[1]").extract('{"a": [10, 20]}') == "20"
    assert calls  # the value came from jsonpath-ng
    monkeypatch.setattr(engine.Child, "find", lambda self, datum: [])
    monkeypatch.setattr(engine.Fields, "find", lambda self, datum: [])
    with pytest.raises(PathError, match='key "a" not found'):
        compile_path("$.a[1]").extract('{"a": [10, 20]}')
