"""The exception tree: every exception agenteval defines joins it and is drawn in the docstring."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import agenteval
from agenteval import errors
from agenteval.errors import AgentEvalError, Problem


def project_exceptions() -> list[type[BaseException]]:
    """Every exception class defined in a module of the agenteval package."""
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(agenteval.__path__, "agenteval."):
        if info.name == "agenteval.__main__":
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == info.name:
                found.append(value)
    return found


def test_every_project_exception_joins_the_tree() -> None:
    found = project_exceptions()
    assert len(found) >= 30  # the walk really found the package's exceptions
    # Warning categories (the pytest plugin's) are not errors: drawn, but outside the tree.
    strays = [
        f"{c.__module__}.{c.__qualname__}"
        for c in found
        if not issubclass(c, AgentEvalError | Warning)
    ]
    assert strays == []


def test_the_docstring_draws_every_exception() -> None:
    drawing = errors.__doc__ or ""
    missing = [c.__qualname__ for c in project_exceptions() if c.__qualname__ not in drawing]
    assert missing == []


def test_problem_renders_the_located_line() -> None:
    assert (
        str(Problem("a.json", "evalCases[0]", "bad", "hint")) == "a.json: evalCases[0]: bad (hint)"
    )
    assert str(Problem("a.json", "", "bad")) == "a.json: bad"
    error = errors.ConfigError([Problem("a", "x", "one"), Problem("b", "", "two")])
    assert str(error) == "a: x: one\nb: two"


def test_value_errors_stay_value_errors() -> None:
    from agenteval.judge.backend import LogprobsFormatError
    from agenteval.schema.gojson import GoJSONError

    assert issubclass(GoJSONError, ValueError) and issubclass(LogprobsFormatError, ValueError)


def test_a_config_error_says_each_problem_once_in_order() -> None:
    first, second = Problem("m.json", "[0].threshold", "bad"), Problem("m.json", "[1]", "worse")
    error = errors.ConfigError([first, second, Problem("m.json", "[0].threshold", "bad")])
    assert error.problems == [first, second]
    assert str(error) == "m.json: [0].threshold: bad\nm.json: [1]: worse"
