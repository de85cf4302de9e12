"""Reading ``executionTrace`` steps for template sources (formats.md §2.11, llm-evaluators.md §5.8.2).

The trace is kept as raw JSON.  It is read the way Go's decoder fills the
``trace.Trace`` struct: keys match field names case-insensitively (``Steps``,
``steps``, ``STEPS``) and a later matching key overrides an earlier one; a
``null`` list is empty and a ``null`` element is the zero value.  A value of
the wrong JSON type is reported as a malformed trace (Go would not have loaded
the file).

Tested in tests/evaluators/llm/template/test_bindings.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenteval.errors import CaseError
from agenteval.schema.gojson import GoJSONError, Struct, encode, go_quote


class TraceError(CaseError):
    """The trace has no usable step, or a field of the wrong type; the message is one line."""


def member(obj: Mapping[str, Any], name: str) -> Any:
    """The value of struct field ``name`` in a JSON object, matched like Go's decoder."""
    folded = name.casefold()
    found = None
    for key, value in obj.items():
        if key.casefold() == folded:
            found = value
    return found


def _object(value: Any, where: str) -> Mapping[str, Any] | None:
    if value is None or isinstance(value, Mapping):
        return value
    raise TraceError(f"executionTrace is malformed: {where} is not an object")


def _list(value: Any, where: str) -> Sequence[Any]:
    if value is None:
        return ()
    if isinstance(value, list):
        return value
    raise TraceError(f"executionTrace is malformed: {where} is not a list")


def _string(obj: Mapping[str, Any] | None, name: str, where: str) -> str:
    value = member(obj, name) if obj is not None else None
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise TraceError(f"executionTrace is malformed: {where}.{name} is not a string")


def select_step(trace: Any, field: str, node_id: str, index: int) -> Mapping[str, Any]:
    """The last step whose ``NodeID`` equals ``node_id`` exactly, with Go's errors."""
    where = f"actual.{field}"
    if trace is None:
        raise TraceError(f"executionTrace is empty for {where} at invocation index {index}")
    root = _object(trace, "executionTrace")
    assert root is not None
    found: Mapping[str, Any] | None = None
    for position, raw in enumerate(_list(member(root, "Steps"), "Steps")):
        step = _object(raw, f"Steps[{position}]")
        # A null step is Go's zero Step, whose empty NodeID never matches a required id.
        if step is not None and _string(step, "NodeID", f"Steps[{position}]") == node_id:
            found = step
    if found is None:
        raise TraceError(
            f"trace step not found for {where} nodeID {go_quote(node_id)} "
            f"at invocation index {index}"
        )
    return found


def snapshot_text(step: Mapping[str, Any], field: str, node_id: str, index: int) -> str:
    """``Input.Text`` (traceStepInput) or ``Output.Text`` (traceStepOutput); empty is an error."""
    name = "Input" if field == "traceStepInput" else "Output"
    snapshot = _object(member(step, name), f"step {name}")
    text = _string(snapshot, "Text", f"step {name}")
    if not text:
        raise TraceError(
            f"trace snapshot is empty for actual.{field} nodeID {go_quote(node_id)} "
            f"at invocation index {index}"
        )
    return text


def tools_json(step: Mapping[str, Any]) -> str:
    """The step's tool calls as ``[{"id","name","arguments","result","error"}]`` (Go omit rules)."""
    values: list[Struct] = []
    for position, raw in enumerate(_list(member(step, "Tools"), "step Tools")):
        where = f"step Tools[{position}]"
        tool = _object(raw, where)
        pairs: list[tuple[str, Any]] = []
        for key, name in (("id", "ID"), ("name", "Name")):
            text = _string(tool, name, where)
            if text:
                pairs.append((key, text))
        for key, name in (("arguments", "Arguments"), ("result", "Result")):
            # Go omits an `any` field only when it is nil: {} and "" are kept.
            value = member(tool, name) if tool is not None else None
            if value is not None:
                pairs.append((key, value))
        error = _string(tool, "Error", where)
        if error:
            pairs.append(("error", error))
        values.append(Struct(pairs))
    try:
        return encode(values)
    except GoJSONError as exc:
        raise TraceError(f"marshal trace step tools: {exc}") from None


def skills_json(step: Mapping[str, Any]) -> str:
    """The step's loaded skills as ``[{"name"}]`` in load order (``{}`` for an empty name)."""
    values: list[Struct] = []
    for position, raw in enumerate(_list(member(step, "Skills"), "step Skills")):
        where = f"step Skills[{position}]"
        name = _string(_object(raw, where), "Name", where)
        values.append(Struct([("name", name)] if name else []))
    return encode(values)
