"""Decorators that plugins use to add judge operators by name (llm-evaluators.md §5.8.1).

Each decorator takes the name a template metric will use and accepts a class
(instantiated once, without arguments), an object with the operator's method,
or a plain function with the method's signature::

    @register_response_scorer("letter_grade")
    def letter_grade(reply, metric) -> ScoreResult: ...

    @register_samples_aggregator("mean")
    class Mean:
        def aggregate(self, samples, metric) -> TurnResult: ...

Registering a name again replaces the earlier operator, built-ins included.
A scorer may declare the scores it gives (``score_range=(0.0, 1.0)``) and an
aggregator that it never leaves its inputs' range (``keeps_score_range=True``):
a template metric's threshold is then checked against the range up front, as for
the built-in operators.

Tested in tests/test_plugins.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from agenteval.evaluators.base import ScoreRange
from agenteval.evaluators.llm.operators.invocations import invocations_aggregators
from agenteval.evaluators.llm.operators.samples import samples_aggregators
from agenteval.evaluators.llm.operators.scorers import response_scorers
from agenteval.evaluators.llm.operators.structured import structured_outputs
from agenteval.registry import Registry

T = TypeVar("T")
Target = TypeVar("Target")


class _FunctionOperator:
    """Presents a plain function as an operator object with one named method."""

    def __init__(self, method: str, function: Callable[..., Any]) -> None:
        self._function = function
        # The function it presents (functools' convention): plugins.py tells by its module
        # what a plugin file registered.
        self.__wrapped__ = function
        setattr(self, method, function)

    def __repr__(self) -> str:
        return f"<operator {getattr(self._function, '__name__', self._function)!r}>"


def _operator(target: object, method: str) -> object:
    if isinstance(target, type):
        return target()
    if callable(getattr(target, method, None)):
        return target
    if callable(target):
        return _FunctionOperator(method, target)
    raise TypeError(f"{target!r} is neither a class, an object with {method}(), nor a function")


def _decorator(
    registry: Registry[T], name: str, method: str, **declared: object
) -> Callable[[Target], Target]:
    def decorate(target: Target) -> Target:
        operator = _operator(target, method)
        for key, value in declared.items():
            if value is not None:
                setattr(operator, key, value)
        registry.register(name, cast(T, operator))
        return target

    return decorate


def register_response_scorer(
    name: str, *, score_range: ScoreRange | None = None
) -> Callable[[Target], Target]:
    """Register a response scorer (``score(reply, metric) -> ScoreResult``) under ``name``."""
    return _decorator(response_scorers, name, "score", score_range=score_range)


def register_structured_output(name: str) -> Callable[[Target], Target]:
    """Register a structured-output provider (``structured_output(metric)``) under ``name``."""
    return _decorator(structured_outputs, name, "structured_output")


def register_samples_aggregator(
    name: str, *, keeps_score_range: bool | None = None
) -> Callable[[Target], Target]:
    """Register a samples aggregator (``aggregate(samples, metric) -> TurnResult``)."""
    return _decorator(samples_aggregators, name, "aggregate", keeps_score_range=keeps_score_range)


def register_invocations_aggregator(
    name: str, *, keeps_score_range: bool | None = None
) -> Callable[[Target], Target]:
    """Register an invocations aggregator (``aggregate(turns, metric) -> EvaluateResult``)."""
    return _decorator(
        invocations_aggregators, name, "aggregate", keeps_score_range=keeps_score_range
    )
