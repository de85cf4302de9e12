"""Decode a JSON judge reply the way Go's typed ``encoding/json`` does (llm-evaluators.md §4.4).

The reply text is trimmed, an optional leading code fence is removed, and the
text must hold exactly one JSON value.  That value is then read against a small
field spec, replicating what decoding into a Go struct implies: object keys
match field names case-insensitively (the last matching key wins), unknown
keys are ignored, ``null`` means absent, and types are strict (``"1"`` and
``true`` are not numbers).  Every type problem is found before a scorer
validates anything, as in Go where decoding fails before validation runs.

Tested in tests/evaluators/llm/operators/test_rubrics.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from agenteval.evaluators.llm.operators.registry import OperatorError
from agenteval.inputs.finite_numbers import FiniteJsonHooks
from agenteval.schema.gojson import json_kind

if TYPE_CHECKING:
    from agenteval.judge import JudgeReply

NUMBER = "number"
STRING = "string"
BOOLEAN = "boolean"

_FENCES = ("```json", "```JSON", "```")
_JSON_SPACE = " \t\n\r"


@dataclass(frozen=True)
class ArrayOf:
    """A JSON array whose items follow ``item``."""

    item: Spec


@dataclass(frozen=True)
class ObjectOf:
    """A JSON object read as these fields (name → spec); other keys are ignored."""

    fields: Mapping[str, Spec]


Spec: TypeAlias = str | ArrayOf | ObjectOf


class JsonObject:
    """A decoded JSON object that keeps every key/value pair in document order."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs

    def field(self, name: str) -> Any:
        """The value a Go struct field ``name`` receives: last case-insensitive match, else None."""
        wanted = name.casefold()
        value: Any = None
        for key, item in self.pairs:
            if key == name or key.casefold() == wanted:
                value = item
        return value


class DecodeError(OperatorError):
    """The reply is not the JSON the scorer expects (``unmarshal response json: ...``)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"unmarshal response json: {detail}")


def reply_text(reply: JudgeReply | None) -> str:
    """Steps 1–3: the trimmed reply text with one leading code fence removed."""
    if reply is None:
        raise OperatorError("response is nil")
    text = reply.text.strip()
    if not text:
        raise OperatorError("empty response text")
    if text.startswith("```"):
        # Only these three spellings are stripped; "```Json" leaves its word behind.
        for fence in _FENCES:
            if text.startswith(fence):
                text = text[len(fence) :]
                break
        if text.endswith("```"):
            text = text[:-3]
        text = text.strip()
    return text


# Go's decoder's words for a constant it refuses and a number beyond float64.
_HOOKS = FiniteJsonHooks(
    "invalid character {first!r} looking for beginning of value", "number {literal} out of range"
)


_DECODER = json.JSONDecoder(
    object_pairs_hook=JsonObject,
    parse_float=_HOOKS.parse_float,
    parse_constant=_HOOKS.parse_constant,
)


def parse_value(text: str) -> Any:
    """Step 4: exactly one JSON value (objects as :class:`JsonObject`), or ``DecodeError``."""
    try:
        value, end = _DECODER.raw_decode(text)
    except ValueError as exc:
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise DecodeError(detail) from None
    rest = text[end:].lstrip(_JSON_SPACE)
    if rest:
        raise DecodeError(f"invalid character {rest[0]!r} after top-level value")
    return value


def unmarshal_reply(reply: JudgeReply | None, fields: Mapping[str, Spec]) -> dict[str, Any]:
    """Decode the reply as an object with ``fields``; absent or null fields are ``None``."""
    value = parse_value(reply_text(reply))
    decoded: dict[str, Any] = read_as(value, ObjectOf(fields), "")
    return decoded


def read_as(value: Any, spec: Spec, where: str) -> Any:
    """``value`` checked against ``spec``; objects become dicts of their spec's fields."""
    if value is None:
        if isinstance(spec, ObjectOf):
            # Go leaves a struct untouched for null: every field stays absent.
            return dict.fromkeys(spec.fields)
        return None
    if isinstance(spec, ObjectOf):
        if not isinstance(value, JsonObject):
            raise _mismatch(value, "object", where)
        return {
            name: read_as(value.field(name), sub, _join(where, name))
            for name, sub in spec.fields.items()
        }
    if isinstance(spec, ArrayOf):
        if not isinstance(value, list):
            raise _mismatch(value, "array", where)
        return [read_as(item, spec.item, f"{where}[{i}]") for i, item in enumerate(value)]
    return _scalar(value, spec, where)


def _scalar(value: Any, kind: str, where: str) -> Any:
    if kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _mismatch(value, NUMBER, where)
        try:
            return float(value)
        except OverflowError:
            raise DecodeError(f"number {value} out of range for {where}") from None
    if kind == STRING:
        if not isinstance(value, str):
            raise _mismatch(value, STRING, where)
        return value
    if kind == BOOLEAN:
        if not isinstance(value, bool):
            raise _mismatch(value, BOOLEAN, where)
        return value
    raise ValueError(f"unknown field kind {kind!r}")


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def json_type(value: Any) -> str:
    """Go's JSON type name of a decoded value (a reply's ``JsonObject`` or a plain mapping)."""
    if isinstance(value, JsonObject):
        return "object"
    kind = json_kind(value)
    if kind == "boolean":
        return "bool"
    return kind if kind in ("object", "array", "string") else "number"


def _mismatch(value: Any, expected: str, where: str) -> DecodeError:
    target = f"field {where}" if where else "the reply"
    return DecodeError(f"cannot unmarshal {json_type(value)} into {target} of type {expected}")
