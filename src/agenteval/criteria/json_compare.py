"""JSON comparison of tool data and final-response JSON (formats.md §3.5)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import pydantic_core

from agenteval.criteria import named
from agenteval.criteria.compare import run_named_compare
from agenteval.criteria.schema_patterns import re2_problem, with_re2
from agenteval.criteria.verdict import MATCH, Verdict, mismatch
from agenteval.inputs.finite_numbers import may_overflow, non_finite_numbers
from agenteval.inputs.go_escapes import go_escapes
from agenteval.schema.gojson import json_kind
from agenteval.schema.metric import JSONCriterion
from agenteval.steps.record import Recorder, listening

DEFAULT_NUMBER_TOLERANCE = 1e-6

_PREVIEW_CHARS = 120
# Tuples of classes: isinstance with them is faster than with ``int | float`` unions.
_NUMBERS = (int, float)
_ARRAYS = (list, tuple)
_CONTAINERS = (dict, list, tuple)
_UNSET: Any = object()


class JSONDifference:
    """Where and how two JSON values differ; rendered only when someone reads the reason."""

    __slots__ = ("actual", "detail", "expected", "path", "what")

    def __init__(self, what: str, detail: str = "", actual: Any = None, expected: Any = None):
        self.what = what
        self.detail = detail
        self.actual = actual
        self.expected = expected
        # Segments are appended while unwinding the recursion, so innermost first.
        self.path: list[str | int] = []

    def at(self, segment: str | int) -> JSONDifference:
        """Prefix the location with one more key or index (called from the inside out)."""
        self.path.append(segment)
        return self

    def location(self) -> str:
        """The JSON path of the difference, e.g. ``$.items[0].name``."""
        parts = ["$"]
        for segment in reversed(self.path):
            if isinstance(segment, int):
                parts.append(f"[{segment}]")
            elif segment.isidentifier():
                parts.append(f".{segment}")
            else:
                parts.append(f"[{json.dumps(segment, ensure_ascii=False)}]")
        return "".join(parts)

    def __str__(self) -> str:
        where = self.location()
        if self.what != "value":
            return f"{self.what} at {where}: {self.detail}"
        kind_a, kind_e = json_kind(self.actual), json_kind(self.expected)
        shown_a, shown_e = _preview(self.actual), _preview(self.expected)
        if kind_a != kind_e:
            shown_a, shown_e = f"{kind_a} {shown_a}", f"{kind_e} {shown_e}"
            return f"type mismatch at {where}: actual {shown_a} vs expected {shown_e}"
        return f"value mismatch at {where}: {shown_a} vs {shown_e}"


def _preview(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= _PREVIEW_CHARS else text[:_PREVIEW_CHARS] + "…"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# Python's json accepts NaN and Infinity; JSON (and Go) do not.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json_text(text: str) -> Any:
    """Parse exactly one JSON value (surrounding whitespace allowed); raise ValueError."""
    if not text.strip():
        raise ValueError("empty text is not JSON")
    try:
        # A third of the stdlib decoder's time; the same values (big ints stay ints, floats
        # round alike, the last duplicate key wins) and no NaN or Infinity.
        return pydantic_core.from_json(text, allow_inf_nan=False, cache_strings=False)
    except ValueError:
        # The stdlib decoder words the error users see.  pydantic-core refuses a lone
        # surrogate escape ("\\ud800"); Go's decoder reads it as U+FFFD, so we do too.
        return _DECODER.decode(go_escapes(text))


def _same_scalar(a: Any, e: Any, tolerance: float) -> bool:
    # bool is an int in Python; in JSON it never equals a number (formats.md §0.1.3).
    if a.__class__ is bool or e.__class__ is bool:
        return a.__class__ is e.__class__ and a == e
    if isinstance(a, _NUMBERS) and isinstance(e, _NUMBERS):
        try:
            return abs(a - e) <= tolerance
        except OverflowError:  # an int too large for a float against a float
            return False
    if isinstance(a, str):
        return isinstance(e, str) and a == e
    return a.__class__ is e.__class__ and bool(a == e)


def _key_difference(
    a: dict[str, Any], e: dict[str, Any], ignored: dict[str, Any]
) -> JSONDifference | None:
    for key in a:
        if key not in e and ignored.get(key) is not True:
            return JSONDifference("key mismatch", f"key {key} in actual but not in expected")
    for key in e:
        if key not in a and ignored.get(key) is not True:
            return JSONDifference("key mismatch", f"key {key} in expected but not in actual")
    return None


_NONE_TYPE = type(None)


def exact_difference(a: Any, e: Any, tolerance: float) -> JSONDifference | None:
    """The first difference between two JSON values under exact comparison, or None."""
    # Hot path (every tool pair): dispatch on the exact classes that json.loads produces and
    # leave subclasses, tuples and mixed types to the general comparison.
    cls = a.__class__
    other = e.__class__
    if cls is dict and other is dict:
        return _object_difference(a, e, tolerance)
    if cls is list and other is list:
        return _array_difference(a, e, tolerance)
    if cls is other and (cls is str or cls is bool or cls is _NONE_TYPE):
        return None if a == e else JSONDifference("value", actual=a, expected=e)
    if (cls is float or cls is int) and (other is float or other is int):
        try:
            if abs(a - e) <= tolerance:
                return None
        except OverflowError:  # an int too large for a float, against a float
            pass
        return JSONDifference("value", actual=a, expected=e)
    return _general_difference(a, e, tolerance)


def _object_difference(
    a: dict[str, Any], e: dict[str, Any], tolerance: float
) -> JSONDifference | None:
    if a.keys() != e.keys():
        return _key_difference(a, e, {})
    return _members_difference(a.items(), e, tolerance)


def _array_difference(
    a: Sequence[Any], e: Sequence[Any], tolerance: float
) -> JSONDifference | None:
    if len(a) != len(e):
        return JSONDifference("array length mismatch", f"actual({len(a)}) != expected({len(e)})")
    return _members_difference(enumerate(a), e, tolerance)


def _members_difference(
    members: Iterable[tuple[Any, Any]], e: Any, tolerance: float
) -> JSONDifference | None:
    """The first difference among an object's or array's members (key or index, value).

    One loop for both: the two copies it replaced were 2-8 % faster (min of 15 x 20,000
    compares: a flat object 0.86 -> 0.88 µs, 22 array items 2.23 -> 2.34 µs, a nested
    10-item document 14.4 -> 15.5 µs) -- under 0.1 % of a case's scoring, not worth two
    copies of the rule.
    """
    for segment, value in members:
        expected = e[segment]
        cls = value.__class__
        # Inline test for equal scalars of one class: a call per leaf costs more than the rest.
        if cls is expected.__class__:
            if cls is str or cls is bool or cls is _NONE_TYPE:
                if value == expected:
                    continue
            elif (cls is float or cls is int) and abs(value - expected) <= tolerance:
                continue
        found = exact_difference(value, expected, tolerance)
        if found is not None:
            return found.at(segment)
    return None


def _general_difference(a: Any, e: Any, tolerance: float) -> JSONDifference | None:
    if a is None or e is None:
        return None if a is e else JSONDifference("value", actual=a, expected=e)
    if isinstance(a, dict):
        if not isinstance(e, dict):
            return JSONDifference("value", actual=a, expected=e)
        return _object_difference(a, e, tolerance)
    if isinstance(a, _ARRAYS):
        if not isinstance(e, _ARRAYS):
            return JSONDifference("value", actual=a, expected=e)
        return _array_difference(a, e, tolerance)
    if isinstance(e, _CONTAINERS) or not _same_scalar(a, e, tolerance):
        return JSONDifference("value", actual=a, expected=e)
    return None


def _ignoring_difference(
    a: Any, e: Any, tree: dict[str, Any] | None, tolerance: float
) -> JSONDifference | None:
    # Trees only descend through objects: anything else is compared exactly.
    if not tree or not isinstance(a, dict) or not isinstance(e, dict):
        return exact_difference(a, e, tolerance)
    found = _key_difference(a, e, tree)
    if found is not None:
        return found
    for key, value in a.items():
        entry = tree.get(key)
        if entry is True:
            continue
        child = entry if isinstance(entry, dict) else None
        found = _ignoring_difference(value, e[key], child, tolerance)
        if found is not None:
            return found.at(key)
    return None


def _only_difference(
    a: Any, e: Any, tree: dict[str, Any], tolerance: float
) -> JSONDifference | None:
    if not isinstance(a, dict) or not isinstance(e, dict):
        return exact_difference(a, e, tolerance)
    for key, entry in tree.items():
        if entry is False:
            continue
        if entry is not True and not isinstance(entry, dict):
            return JSONDifference(
                "invalid onlyTree", f"onlyTree[{key}] must be a bool or an object"
            )
        if key not in a:
            return JSONDifference("key mismatch", f"key {key} in onlyTree but not in actual")
        if key not in e:
            return JSONDifference("key mismatch", f"key {key} in onlyTree but not in expected")
        if entry is True:
            found = exact_difference(a[key], e[key], tolerance)
        else:
            found = _only_difference(a[key], e[key], entry, tolerance)
        if found is not None:
            return found.at(key)
    return None


def _canonical(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@lru_cache(maxsize=256)
def _validator(canonical: str) -> Any:
    """A compiled validator for a schema given as canonical JSON, or the reason it is invalid."""
    # jsonschema takes ~50 ms to import; only runs whose criteria carry a schema pay for it.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    schema = json.loads(canonical)
    if isinstance(schema, dict) and "$schema" in schema:
        uri = schema["$schema"]
        cls = validator_for(schema, default=None) if isinstance(uri, str) else None
        if cls is None:
            return f"unsupported $schema {uri!r}"
    elif isinstance(schema, dict | bool):
        cls = Draft202012Validator
    else:
        return f"a JSON Schema must be an object or a boolean, not {json_kind(schema)}"
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        return f"{exc.message} (at {exc.json_path})"
    refused = re2_problem(schema)
    if refused is not None:
        return refused
    from jsonschema import validators

    return validators.extend(with_re2(cls), {"multipleOf": _multiple_of})(schema)


def _go_rational(number: float) -> Fraction:
    """A JSON number as Go's jsonschema holds it: ``big.Rat`` of ``fmt.Sprint``, so a float
    is its shortest decimal (19.99 is 1999/100, not the binary float)."""
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def _multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``multipleOf`` on exact decimals, as Go's jsonschema checks it (``Quo(...).IsInt()``).

    jsonschema divides binary floats: 19.99 was not a multiple of 0.01.
    """
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "number"):
        return
    try:
        failed = (_go_rational(instance) / _go_rational(divisor)).denominator != 1
    except (ValueError, OverflowError):  # an infinite instance (1e400): no decimal to divide
        failed = True
    if failed:
        yield ValidationError(f"{instance!r} is not a multiple of {divisor}")


def _compiled_schema(schema: Any) -> Any:
    try:
        key = _canonical(schema)
    except (TypeError, ValueError) as exc:
        return f"schema is not JSON: {exc}"
    return _validator(key)


def check_schema(schema: Any) -> str | None:
    """Why ``schema`` is not a usable JSON Schema, or None when it is."""
    compiled = _compiled_schema(schema)
    return compiled if isinstance(compiled, str) else None


def _schema_failure(schema: Any, value: Any) -> str | None:
    validator = _compiled_schema(schema)
    if isinstance(validator, str):
        return f"invalid json schema: {validator}"
    try:
        if validator.is_valid(value):
            return None
        from jsonschema.exceptions import best_match  # imported by _validator already

        error = best_match(validator.iter_errors(value))
    except Exception as exc:  # e.g. an unresolvable $ref: the schema cannot be applied
        return f"json schema validation failed: {exc}"
    return f"json schema validation failed: {error.message} (at {error.json_path})"


def json_outcome(
    criterion: JSONCriterion, actual: Any, expected: Any, *, raw_text: bool
) -> JSONDifference | str | None:
    """None on a match, else the difference or the reason (formats.md §3.5 steps 1-8)."""
    outcome = _json_outcome(criterion, actual, expected, raw_text=raw_text)
    recorder = listening()
    if recorder is not None:
        _record_json(recorder, criterion, actual, expected, raw_text, outcome)
    return outcome


def _parsed_or_text(value: Any, raw_text: bool) -> tuple[Any, bool]:
    """(value, parsed): a raw text parsed as JSON when it is JSON, else kept as it is."""
    if not raw_text:
        return value, True
    try:
        return parse_json_text(value), True
    except (ValueError, TypeError, RecursionError):
        return value, False


def _record_json(
    recorder: Recorder,
    criterion: JSONCriterion,
    actual: Any,
    expected: Any,
    raw_text: bool,
    outcome: JSONDifference | str | None,
) -> None:
    """What one JSON comparison used and found, for ``agenteval explain``."""
    actual_value, actual_parsed = _parsed_or_text(actual, raw_text)
    expected_value, expected_parsed = _parsed_or_text(expected, raw_text)
    data: dict[str, Any] = {
        "strategy": criterion.match_strategy or "exact",
        "numberTolerance": (
            DEFAULT_NUMBER_TOLERANCE
            if criterion.number_tolerance is None
            else criterion.number_tolerance
        ),
        "toleranceIsDefault": criterion.number_tolerance is None,
        "ignoreTree": criterion.ignore_tree,
        "onlyTree": criterion.only_tree,
        "schema": criterion.schema_ is not None,
        "valid": criterion.valid,
        "compareName": criterion.compare_name or None,
        "ignore": criterion.ignore,
        "rawText": raw_text,
        "actual": actual_value,
        "actualParsed": actual_parsed,
        "expected": expected_value,
        "expectedParsed": expected_parsed,
        "ok": outcome is None,
    }
    if isinstance(outcome, JSONDifference):
        data["difference"] = {
            "path": outcome.location(),
            "what": outcome.what,
            "detail": outcome.detail,
            "actual": outcome.actual,
            "expected": outcome.expected,
        }
    data["reason"] = "" if outcome is None else str(outcome)
    recorder.add("json", data)


def _beyond_float64(text: str, value: Any) -> str | None:
    """Why Go cannot compare the JSON ``text`` that Python read as ``value``, or None.

    json.go's comparison decodes raw text into float64 (no ``UseNumber``), which refuses a
    number beyond ±1.8e308 ("cannot unmarshal number 1e400 into Go value of type float64"):
    Python reads ``1e400`` as infinity and ``1`` with 400 zeros as an exact int.
    """
    # The parser refused NaN and Infinity already: only a long literal can overflow.
    if not may_overflow(text.encode("utf-8", "surrogatepass")):
        return None
    found = non_finite_numbers(value, "")
    if not found:
        return None
    return f"number at {found[0].path} is beyond float64 (Go cannot decode it)"


def _raw_value(text: str, side: str, parsed: Any = _UNSET) -> tuple[Any, str | None]:
    """``text`` (``parsed`` when read already) as Go's comparison reads it, or why it cannot
    be (``parse <side> raw json: ...``)."""
    if parsed is _UNSET:
        try:
            parsed = parse_json_text(text)
        except ValueError as exc:
            return None, f"parse {side} raw json: {exc}"
    beyond = _beyond_float64(text, parsed)
    if beyond is not None:
        return None, f"parse {side} raw json: {beyond}"
    return parsed, None


def _json_outcome(
    criterion: JSONCriterion, actual: Any, expected: Any, *, raw_text: bool
) -> JSONDifference | str | None:
    if criterion.ignore:
        return None
    only_tree, ignore_tree = criterion.only_tree, criterion.ignore_tree
    if only_tree and ignore_tree:
        return "onlyTree and ignoreTree cannot be set at the same time"
    if criterion.compare_name:
        return run_named_compare(named.json_compares, criterion.compare_name, actual, expected)
    parsed = _UNSET
    schema_subject = actual
    if criterion.valid and (raw_text or isinstance(actual, str)):
        # Decoded objects, arrays, numbers, bools and null are JSON by construction.
        try:
            schema_subject = parse_json_text(actual)
        except ValueError as exc:
            return f"parse actual raw json: {exc}"
        if raw_text:
            parsed = schema_subject
    if criterion.schema_ is not None:
        if raw_text and parsed is _UNSET:
            try:
                parsed = schema_subject = parse_json_text(actual)
            except ValueError as exc:
                return f"parse actual raw json: {exc}"
        failure = _schema_failure(criterion.schema_, schema_subject)
        if failure is not None:
            return failure
    strategy = criterion.match_strategy
    if strategy == "skip":
        return None
    if raw_text:
        parsed, failure = _raw_value(actual, "actual", parsed)
        if failure is not None:
            return failure
        expected, failure = _raw_value(expected, "expected")
        if failure is not None:
            return failure
        actual = parsed
    if strategy not in ("", "exact"):
        return f"invalid match strategy {strategy}"
    tolerance = criterion.number_tolerance
    if tolerance is None:
        tolerance = DEFAULT_NUMBER_TOLERANCE
    try:
        if only_tree:
            return _only_difference(actual, expected, only_tree, tolerance)
        return _ignoring_difference(actual, expected, ignore_tree, tolerance)
    except RecursionError:
        return "values are nested too deeply to compare"


def json_matches(criterion: JSONCriterion, actual: Any, expected: Any, *, raw_text: bool) -> bool:
    """Whether ``actual`` satisfies the criterion against ``expected``."""
    return json_outcome(criterion, actual, expected, raw_text=raw_text) is None


def check_json(
    criterion: JSONCriterion | None, actual: Any, expected: Any, *, raw_text: bool
) -> Verdict:
    """Compare two JSON values (or, with ``raw_text``, two JSON texts) under a JSON criterion."""
    if criterion is None:
        return MATCH
    outcome = json_outcome(criterion, actual, expected, raw_text=raw_text)
    return MATCH if outcome is None else mismatch(str(outcome))
