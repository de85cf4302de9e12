"""JSON Schema regexes evaluated with RE2: linear time, so no schema can hang a run.

jsonschema evaluates ``pattern``, ``patternProperties`` and the pattern parts of
``additionalProperties`` and ``unevaluatedProperties`` with Python's backtracking
``re``: ``^(a+)+$`` against 34 a's and a "!" ran for minutes and a first Ctrl-C did
not stop it.  The validator classes here replace those four keywords with RE2
versions (same verdicts and messages as jsonschema's own), and :func:`re2_problem`
refuses, up front, a schema whose regexes RE2 cannot compile (backreferences,
lookaround).  jsonschema uses no other regex on instance data: ``propertyNames``
descends into ``pattern``, and ``format`` is not asserted (no format checker).
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


def _evaluated_keys(validator: Any, instance: Any, schema: Any, *, draft2019: bool) -> set[str]:
    """The keys of ``instance`` that ``schema`` evaluates, as jsonschema finds them.

    jsonschema's ``find_evaluated_property_keys_by_schema`` (and its draft 2019-09
    twin) with the ``patternProperties`` part matched by RE2.  The library calls
    ``re.search`` from inside that recursion, so the whole walk is restated here.
    """
    if validator.is_type(schema, "boolean"):
        return set()
    keys: set[str] = set()

    def under(resolved: Any) -> None:
        inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        keys.update(_evaluated_keys(inner, instance, resolved.contents, draft2019=draft2019))

    def within(subschema: Any) -> None:
        keys.update(_evaluated_keys(validator, instance, subschema, draft2019=draft2019))

    if (ref := schema.get("$ref")) is not None:
        under(validator._resolver.lookup(ref))
    if draft2019:
        if "$recursiveRef" in schema:
            from referencing.jsonschema import lookup_recursive_ref

            under(lookup_recursive_ref(validator._resolver))
        for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
            value = schema.get(keyword)
            if validator.is_type(value, "boolean") and value:
                keys.update(instance)
            elif validator.is_type(value, "object"):
                keys.update(name for name in value if name in instance)
    else:
        if (dynamic := schema.get("$dynamicRef")) is not None:
            under(validator._resolver.lookup(dynamic))
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys.update(properties.keys() & instance.keys())
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(keyword)) is not None:
                keys.update(
                    key
                    for key, value in instance.items()
                    if next(validator.descend(value, subschema), None) is None
                )
    if "patternProperties" in schema:
        patterns = list(schema["patternProperties"])
        keys.update(key for key in instance if any(_search(p, key) for p in patterns))
    if "dependentSchemas" in schema:
        for name, subschema in schema["dependentSchemas"].items():
            if name in instance:
                within(subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if next(validator.descend(instance, subschema), None) is None:
                within(subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            within(schema["if"])
            if "then" in schema:
                within(schema["then"])
        elif "else" in schema:
            within(schema["else"])
    return keys


def _unevaluated_properties(draft2019: bool) -> Any:
    """The ``unevaluatedProperties`` keyword of one draft (jsonschema's messages)."""

    def keyword(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        if not validator.is_type(instance, "object"):
            return
        evaluated = _evaluated_keys(validator, instance, schema, draft2019=draft2019)
        failed: list[str] = []
        for key in instance:
            if key not in evaluated:
                # One entry per error, as jsonschema lists them.
                failed += (
                    key
                    for _ in validator.descend(
                        instance[key], unevaluated, path=key, schema_path=key
                    )
                )
        if not failed:
            return
        if unevaluated is False:
            failed = sorted(failed, key=str)
            message = "Unevaluated properties are not allowed ({} {} unexpected)"
        else:
            message = (
                "Unevaluated properties are not valid under the given schema "
                "({} {} unevaluated and invalid)"
            )
        verb = "was" if len(failed) == 1 else "were"
        yield ValidationError(message.format(", ".join(repr(k) for k in failed), verb))

    return keyword


@lru_cache(maxsize=16)
def with_re2(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with its regex keywords evaluated by RE2."""
    from jsonschema import validators

    keywords: dict[str, Any] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    if "unevaluatedProperties" in cls.VALIDATORS:
        # 2020-12 resolves $dynamicRef; 2019-09 has $recursiveRef and older rules.
        draft2019 = "$dynamicRef" not in cls.VALIDATORS
        keywords["unevaluatedProperties"] = _unevaluated_properties(draft2019)
    return validators.extend(cls, keywords)


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
