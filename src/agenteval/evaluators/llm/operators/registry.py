"""Operator errors and the name → operator registries plugins extend."""

from __future__ import annotations

import json
from typing import Generic, TypeVar

T = TypeVar("T")


class OperatorError(Exception):
    """An operator cannot produce its output; the message is Go's error text."""


def quoted(text: str) -> str:
    """``text`` in double quotes with escapes, like Go's ``%q`` for printable text."""
    return json.dumps(text, ensure_ascii=False)


class NamedOperators(Generic[T]):
    """Operators of one kind by name (e.g. samples aggregators)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, operator: T) -> T:
        """Add (or replace) ``operator`` under ``name``; returns it."""
        if not name:
            raise ValueError(f"a {self.kind} needs a name")
        self._items[name] = operator
        return operator

    def get(self, name: str) -> T | None:
        """The operator registered under ``name``, if any."""
        return self._items.get(name)

    def resolve(self, name: str) -> T:
        """The operator registered under ``name``, or ``unsupported <kind> "<name>"``."""
        operator = self._items.get(name)
        if operator is None:
            raise OperatorError(f"unsupported {self.kind} {quoted(name)}")
        return operator

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)
