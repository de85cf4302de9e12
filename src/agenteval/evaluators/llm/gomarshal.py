"""Go's default ``encoding/json`` output for judge prompts (llm-evaluators.md §9.4).

The hallucination grounding context and the knowledge-recall evidence are
written the way Go's ``json.Marshal`` / ``json.MarshalIndent`` write them:
``<``, ``>`` and ``&`` escaped as ``\\u003c`` ``\\u003e`` ``\\u0026`` (HTML-safe,
Go's default), map keys sorted, floats in Go's shortest form, struct-shaped
objects in their declared order (:class:`~.template.gojson.Struct`).  The value
encoding itself is the template judge's :func:`~.template.gojson.encode`; this
module adds the HTML escaping and Go's ``Indent``.
"""

from __future__ import annotations

from typing import Any

from agenteval.evaluators.llm.template.gojson import GoJSONError, Struct, encode

__all__ = ["GoJSONError", "Struct", "marshal", "marshal_indent"]

# Outside strings compact JSON has none of these, so a plain replace is exact.
_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))


def marshal(value: Any) -> str:
    """``json.Marshal(value)``: compact, HTML-escaped; raises ``GoJSONError``."""
    text = encode(value)
    for char, escape in _HTML_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text


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
