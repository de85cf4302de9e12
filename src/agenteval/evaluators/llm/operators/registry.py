"""Operator errors and the name → operator registries plugins extend (llm-evaluators.md §5.8.1)."""

from __future__ import annotations

import difflib
import json
from typing import Generic, TypeVar

from agenteval.errors import CaseError

T = TypeVar("T")


class OperatorError(CaseError):
    """An operator cannot produce its output; the message is Go's error text."""


class RegistrationError(OperatorError, ValueError):
    """An operator cannot be registered (empty name, no operator); Go's text."""


def quoted(text: str) -> str:
    """``text`` in double quotes with escapes, like Go's ``%q`` for printable text."""
    return json.dumps(text, ensure_ascii=False)


class NamedOperators(Generic[T]):
    """Operators of one kind by name (e.g. samples aggregators).

    ``kind`` names the operator in lookup errors (``unsupported <kind> "<name>"``)
    and in the empty-name error; ``nil_kind`` names it when ``None`` is
    registered (Go says "structured output provider is nil" but
    "structured output name is empty").
    """

    def __init__(self, kind: str, nil_kind: str = "") -> None:
        self.kind = kind
        self.nil_kind = nil_kind or kind
        self._items: dict[str, T] = {}

    def register(self, name: str, operator: T | None) -> T:
        """Add (or replace) ``operator`` under ``name``; returns it."""
        if not name:
            raise RegistrationError(f"{self.kind} name is empty")
        if operator is None:
            raise RegistrationError(f"{self.nil_kind} is nil")
        self._items[name] = operator
        return operator

    def unregister(self, name: str) -> None:
        """Forget ``name`` (tests and plugins that registered it temporarily)."""
        self._items.pop(name, None)

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

    def hint(self, name: str) -> str:
        """A 'did you mean' / 'known' hint for an unknown ``name``."""
        close = difflib.get_close_matches(name, self.names(), n=1, cutoff=0.5)
        known = ", ".join(self.names()) or "none registered"
        if close:
            return f"did you mean {quoted(close[0])}? known: {known}"
        return f"known: {known}"
