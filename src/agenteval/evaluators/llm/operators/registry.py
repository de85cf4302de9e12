"""Operator errors and the name → operator registries plugins extend (llm-evaluators.md §5.8.1).

Tested in tests/evaluators/llm/operators/test_samples.py.
"""

from __future__ import annotations

from typing import TypeVar

from agenteval.errors import CaseError
from agenteval.registry import Registry, quoted

__all__ = ["OperatorError", "RegistrationError", "operator_registry", "quoted"]

T = TypeVar("T")


class OperatorError(CaseError):
    """An operator cannot produce its output; the message is Go's error text."""


class RegistrationError(OperatorError, ValueError):
    """An operator cannot be registered (empty name, no operator); Go's text."""


def operator_registry(kind: str, nil_kind: str = "") -> Registry[T]:
    """A registry of one judge-operator kind raising Go's texts as operator errors."""
    return Registry(
        kind, nil_kind, registration_error=RegistrationError, lookup_error=OperatorError
    )
