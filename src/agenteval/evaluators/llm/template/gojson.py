"""Go ``encoding/json`` output as the template judge renders it (llm-evaluators.md §5.8.2, §9.4).

Template sources and JSONPath results are written like Go's encoder with
``SetEscapeHTML(false)``: compact, ``<`` ``>`` ``&`` kept literal, U+2028 and
U+2029 still escaped (Go does that unconditionally), map keys sorted, floats in
Go's shortest form (``18`` not ``18.0``, ``1e-7``, ``1e+21``).  Struct-shaped
objects keep their declared key order through :class:`Struct`.

Number inputs mean different things by origin, as in Go:

* :class:`JSONNumber` is a number literal read with ``UseNumber`` (the JSONPath
  source): written back exactly as it was read (``1.0`` stays ``1.0``);
* a Python ``int`` or ``float`` is a number Go decoded into ``float64`` (tool
  arguments and results of an ``executionTrace``): written in Go's float form,
  so ``9007199254740993`` becomes ``9007199254740992`` like in Go.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from agenteval.errors import FormatError

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
