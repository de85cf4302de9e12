"""Number options of the command line: finite, at least a minimum.

typer checks ``min=`` but lets ``inf`` through (``nan`` fails its comparison), and an
infinite ``--judge-timeout`` ended in an ``OverflowError`` inside the HTTP client
(exit 4).  Every float option is parsed by :func:`finite_at_least` instead: ``inf``,
``-inf`` and ``nan`` are usage errors (exit 2) before anything runs; the Python API
refuses the same values in ``api.prepare`` (:func:`non_finite_options`).

Tested in tests/api/test_option_numbers.py and tests/cli/test_special_inputs.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from pydantic_core import PydanticCustomError

from agenteval.errors import Problem


def _refused(message: str) -> PydanticCustomError:
    # typer validates options with pydantic and prints an error's message as it is; a
    # plain ValueError would read "Value error, ...".
    return PydanticCustomError("option_number", message)


def finite_at_least(minimum: float) -> Callable[[str | float], float]:
    """A typer ``parser``: the option's text as a finite float of at least ``minimum``."""

    def parse(value: str | float) -> float:
        try:
            number = float(value)
        except ValueError:
            raise _refused(f"{value!r} is not a number") from None
        if not math.isfinite(number):
            raise _refused(f"must be a finite number, got {value}")
        if number < minimum:
            raise _refused(f"must be at least {minimum:g}, got {value}")
        return number

    return parse


def non_finite_options(**values: float | None) -> list[Problem]:
    """One problem per ``api.Options`` number that is infinite or nan (the Python API's check)."""
    return [
        Problem(f"Options.{name}", "", f"must be a finite number, got {value}")
        for name, value in values.items()
        if value is not None and not math.isfinite(value)
    ]


__all__ = ["finite_at_least", "non_finite_options"]
