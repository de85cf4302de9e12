"""Calling a named compare function (formats.md §3.11) as a criterion would.

Tested in tests/evaluators/test_deterministic_evaluators.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenteval.registry import Registry


def run_named_compare(
    registry: Registry[Callable[[Any, Any], bool]], name: str, actual: Any, expected: Any
) -> str | None:
    """None when the named function accepts the pair, else the reason it did not."""
    func = registry.get(name)
    if func is None:
        # Callers validate names up front; this only happens when a registry changed since.
        return f"unknown {registry.kind} function {name!r}"
    try:
        accepted = func(actual, expected)
    except Exception as exc:  # a plugin may raise anything; its message is the reason
        return str(exc) or type(exc).__name__
    if not _is_verdict(accepted):
        # Read as a truth value, "no" (or any non-empty text, list, ...) was a match: green.
        return f"{registry.kind} function {name!r} returned {accepted!r}, not True or False"
    return None if accepted else f"{registry.kind} function {name!r} returned false"


def _is_verdict(value: object) -> bool:
    """Whether ``value`` is a truth value (True, False, 1, 0, numpy's bools), not text or data."""
    if isinstance(value, str | bytes):
        return False
    try:
        return bool(value in (True, False))
    except Exception:  # an object whose == raises (an array): not a verdict
        return False
