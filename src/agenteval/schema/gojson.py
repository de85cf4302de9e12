"""Go ``encoding/json`` output: the one home of every Go-compatible JSON text agenteval writes.

Three writers of Go's encoder share the value rules here (map keys sorted, floats in
Go's shortest form, lone surrogates as U+FFFD, U+2028/U+2029 always escaped):

* :func:`encode` — compact, ``SetEscapeHTML(false)``: template sources and JSONPath
  results in template judge prompts (llm-evaluators.md §5.8.2, §9.4);
* :func:`marshal` / :func:`marshal_indent` — Go's default ``json.Marshal`` /
  ``MarshalIndent`` with ``<`` ``>`` ``&`` escaped: grounding context and
  knowledge-recall evidence in judge prompts (§9.4);
* :func:`to_go_json` / :func:`model_to_go_json_bytes` — result files
  (formats.md §0.2, §1): ``MarshalIndent`` with a 2-space indent, serialised by
  orjson / pydantic's core for speed and then HTML-escaped (dict order kept: the
  models carry Go's struct order).

Number inputs of :func:`encode` mean different things by origin, as in Go:

* :class:`JSONNumber` is a number literal read with ``UseNumber`` (the JSONPath
  source): written back exactly as it was read (``1.0`` stays ``1.0``);
* a Python ``int`` or ``float`` is a number Go decoded into ``float64`` (tool
  arguments and results of an ``executionTrace``): written in Go's float form,
  so ``9007199254740993`` becomes ``9007199254740992`` like in Go.

Struct-shaped objects keep their declared key order through :class:`Struct`.
Tested in tests/schema/test_gojson.py.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import orjson
from pydantic import BaseModel

from agenteval.errors import FormatError
from agenteval.schema.base import DumpMemo, dump, dump_json, dump_json_bytes

# Go's decoder turns invalid UTF-16 escapes into U+FFFD; Python keeps lone surrogates.
_SURROGATE = re.compile("[\ud800-\udfff]")


class GoJSONError(FormatError):
    """A value Go's encoder would refuse (NaN, infinities, numbers beyond float64)."""


class JSONNumber:
    """A JSON number literal kept as written (Go's ``json.Number``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JSONNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"JSONNumber({self.text!r})"


class Struct:
    """An object written with its keys in the given order (a Go struct, not a map)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: Sequence[tuple[str, Any]]) -> None:
        self.pairs = tuple(pairs)


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, as Go's JSON decoder stores them."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def format_float(value: float) -> str:
    """A float64 as Go's encoding/json writes it."""
    if math.isnan(value) or math.isinf(value):
        raise GoJSONError(f"json: unsupported value: {_go_special(value)}")
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        # repr already has Go's shape here (shortest digits, 2+ exponent digits);
        # Go then drops the zero of a one-digit negative exponent.
        text = repr(value)
        if len(text) >= 4 and text[-4] == "e" and text[-3] == "-" and text[-2] == "0":
            text = text[:-2] + text[-1]
        return text
    return format(Decimal(repr(value)).normalize(), "f")


def _go_special(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "+Inf" if value > 0 else "-Inf"


def quote_string(text: str) -> str:
    """A JSON string literal without HTML escaping (U+2028/U+2029 still escaped)."""
    encoded = json.dumps(clean_text(text), ensure_ascii=False)
    if "\u2028" in encoded:
        encoded = encoded.replace("\u2028", "\\u2028")
    if "\u2029" in encoded:
        encoded = encoded.replace("\u2029", "\\u2029")
    return encoded


class _Text:
    """Already encoded output waiting on the work stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def encode(value: Any) -> str:
    """``value`` as compact Go JSON (see the module docstring); no recursion, any depth."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Text):
            out.append(item.text)
        elif isinstance(item, str):
            out.append(quote_string(item))
        elif item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, JSONNumber):
            out.append(item.text)
        elif isinstance(item, int):
            try:
                out.append(format_float(float(item)))
            except OverflowError as exc:
                raise GoJSONError(f"json: number {item} overflows float64") from exc
        elif isinstance(item, float):
            out.append(format_float(item))
        elif isinstance(item, Mapping | Struct):
            _push_object(stack, item)
        elif isinstance(item, list | tuple):
            _push_array(stack, item)
        else:
            raise GoJSONError(f"json: unsupported type: {type(item).__name__}")
    return "".join(out)


def _push_object(stack: list[Any], item: Mapping[str, Any] | Struct) -> None:
    if isinstance(item, Struct):
        pairs = list(item.pairs)
    else:
        # Go sorts map keys by their UTF-8 bytes, which is code point order.
        cleaned = {clean_text(k): v for k, v in item.items()}
        pairs = sorted(cleaned.items())
    stack.append(_Text("}"))
    for index in range(len(pairs) - 1, -1, -1):
        key, member = pairs[index]
        stack.append(member)
        prefix = quote_string(key) + ":"
        stack.append(_Text("," + prefix if index else prefix))
    stack.append(_Text("{"))


def _push_array(stack: list[Any], item: Sequence[Any]) -> None:
    stack.append(_Text("]"))
    for index in range(len(item) - 1, -1, -1):
        stack.append(item[index])
        if index:
            stack.append(_Text(","))
    stack.append(_Text("["))


# Go's default encoder escapes these so the output is safe inside HTML/JS; outside strings
# JSON has none of them, so a plain replace is exact.  U+2028/U+2029 are escaped even
# with SetEscapeHTML(false) (quote_string does it for encode's output).
_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _go_escape(text: str) -> str:
    # Plain replaces run in C; these characters can only occur inside JSON strings.
    for char, escape in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escape)
    return text


def marshal(value: Any) -> str:
    """``json.Marshal(value)``: compact, HTML-escaped; raises ``GoJSONError``."""
    return _go_escape(encode(value))


def marshal_indent(value: Any, indent: str = "  ") -> str:
    """``json.MarshalIndent(value, "", indent)``: Go's ``Indent`` over :func:`marshal`."""
    return indent_json(marshal(value), indent)


def indent_json(compact: str, indent: str = "  ") -> str:
    """Re-indent compact JSON like Go's ``json.Indent``: empty ``{}`` / ``[]`` stay closed."""
    out: list[str] = []
    depth = 0
    # After an opening bracket the newline waits: a closing bracket next means "empty".
    pending = False
    in_string = False
    escaped = False
    for char in compact:
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "}]":
            depth -= 1
            if pending:
                pending = False
            else:
                out.append("\n" + indent * depth)
            out.append(char)
            continue
        if pending:
            out.append("\n" + indent * depth)
            pending = False
        if char in "{[":
            out.append(char)
            depth += 1
            pending = True
        elif char == ",":
            out.append(",\n" + indent * depth)
        elif char == ":":
            out.append(": ")
        else:
            if char == '"':
                in_string = True
            out.append(char)
    return "".join(out)


def to_go_json(data: Any) -> str:
    """Plain JSON data as Go's encoding/json MarshalIndent writes it, newline at the end.

    2-space indent, raw UTF-8 except ``<`` ``>`` ``&`` U+2028 U+2029
    (escaped); dict key order is kept.  Floats are written in shortest
    round-trip form; result scores arrive here already as ints when integral
    (``schema.result.go_number``), so they read ``1`` like Go's.  Free-form data
    keeps the number form it was read with.
    """
    return to_go_json_bytes(data).decode("utf-8")


def to_go_json_bytes(data: Any) -> bytes:
    """:func:`to_go_json` as UTF-8 bytes, the form files are written in.

    orjson writes floats and strings exactly as pydantic's core does (checked over
    350,000 floats, random strings with every control character: no difference), so
    plain data written here and models written by :func:`model_to_go_json_bytes` give
    the same text.
    """
    try:
        data = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        # orjson refuses lone surrogates; the stdlib encoder writes them and we clean up after.
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
        return _go_escape(_SURROGATE.sub("\\\\ufffd", text)).encode("utf-8") + b"\n"
    return _go_escape_bytes(data) + b"\n"


def model_to_go_json(model: BaseModel) -> str:
    """A result model as Go-layout JSON text, serialised in pydantic's core for speed."""
    try:
        text = dump_json(model)
    except ValueError:
        # Lone surrogates in loaded text: take the slower path that cleans them up.
        return to_go_json(dump(model))
    return _go_escape(text) + "\n"


# _GO_ESCAPES in UTF-8; UTF-8 is self-synchronising, so each byte string occurs only as its
# character.  U+2028 and U+2029 (E2 80 A8/A9) are looked for only when an E2 byte occurs:
# a one-byte search runs at memchr speed, a three-byte one is several times slower.
_GO_BYTE_ESCAPES = [(c.encode("utf-8"), e.encode("ascii")) for c, e in _GO_ESCAPES.items()]


def _go_escape_bytes(data: bytes) -> bytes:
    lead = b"\xe2" in data
    for raw, escape in _GO_BYTE_ESCAPES:
        if (len(raw) == 1 or lead) and raw in data:
            data = data.replace(raw, escape)
    return data


def model_to_go_json_bytes(model: BaseModel, memo: DumpMemo | None = None) -> bytes:
    """``model_to_go_json`` as UTF-8 bytes, without decoding and re-encoding a large text.

    A 10,000-case result is ~70 MB: the str round trip (decode, append the newline,
    encode) cost ~0.2 s of writing it.  ``memo``: see :func:`~agenteval.schema.base.dump_json_bytes`.
    """
    try:
        data = dump_json_bytes(model, memo)
    except ValueError:
        # Lone surrogates in loaded text: take the slower path that cleans them up.
        return to_go_json(dump(model)).encode("utf-8", "replace")
    return _go_escape_bytes(data) + b"\n"


# Checked in this order: bool is an int, so it goes before the numbers.
_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),
    ((int, float), "number"),
    (str, "string"),
    ((list, tuple), "array"),
    ((Mapping, Struct), "object"),
)


def json_kind(value: Any) -> str:
    """A decoded value's JSON kind (null, boolean, number, string, array, object) or type name."""
    for types, kind in _KINDS:
        if isinstance(value, types):
            return kind
    return type(value).__name__


def go_quote(text: str) -> str:
    """``text`` quoted like Go's ``%q`` (``strconv.Quote``), for error messages."""
    parts = ['"']
    for char in text:
        code = ord(char)
        if char in ('"', "\\"):
            parts.append("\\" + char)
        elif char.isprintable():
            parts.append(char)
        elif char in _NAMED_ESCAPES:
            parts.append(_NAMED_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            parts.append(f"\\x{code:02x}")
        elif code < 0x10000:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(f"\\U{code:08x}")
    parts.append('"')
    return "".join(parts)


_NAMED_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}
