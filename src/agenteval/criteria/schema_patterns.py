"""JSON Schema regexes evaluated with RE2: linear time, so no schema can hang a run.

jsonschema evaluates ``pattern``, ``patternProperties`` and the pattern part of
``additionalProperties`` with Python's backtracking ``re``: ``^(a+)+$`` against 34
a's and a "!" ran for minutes and a first Ctrl-C did not stop it.  The validator
classes here replace those three keywords with RE2 versions (same messages as
jsonschema's own), and :func:`re2_problem` refuses, up front, a schema whose
regexes RE2 cannot compile (backreferences, lookaround).

Not covered: ``unevaluatedProperties`` next to ``patternProperties`` still goes
through jsonschema's own helper.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from agenteval.criteria.text import compile_regex


def _search(pattern: str, text: str) -> bool:
    return compile_regex(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = {
        key
        for key in instance
        if key not in properties and not any(_search(p, key) for p in patterns)
    }
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            listed = ", ".join(repr(each) for each in sorted(patterns))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {listed}")
        else:
            names = sorted(extras, key=str)
            verb = "was" if len(names) == 1 else "were"
            joined = ", ".join(repr(name) for name in names)
            yield ValidationError(
                f"Additional properties are not allowed ({joined} {verb} unexpected)"
            )


@lru_cache(maxsize=16)
def with_re2(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with its regex keywords evaluated by RE2."""
    from jsonschema import validators

    return validators.extend(
        cls,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )


def re2_problem(schema: Any, where: str = "$") -> str | None:
    """Why RE2 cannot take a regex of ``schema`` (with its JSON path), or None."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            found = re2_problem(item, f"{where}[{index}]")
            if found:
                return found
        return None
    if not isinstance(schema, dict):
        return None
    regexes: list[tuple[str, str]] = []
    if isinstance(schema.get("pattern"), str):
        regexes.append((schema["pattern"], f"{where}.pattern"))
    if isinstance(schema.get("patternProperties"), dict):
        regexes += [(p, f"{where}.patternProperties") for p in schema["patternProperties"]]
    for pattern, at in regexes:
        try:
            compile_regex(pattern)
        except ValueError as exc:
            return f"regex {pattern!r} at {at} is not supported (RE2 syntax, linear time): {exc}"
    for key, value in schema.items():
        found = re2_problem(value, f"{where}.{key}")
        if found:
            return found
    return None


__all__ = ["re2_problem", "with_re2"]
