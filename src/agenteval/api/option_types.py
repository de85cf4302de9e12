"""The type of each ``api.Options`` field, checked before anything runs.

``evaluate(path, num_runs="3")`` raised a bare ``TypeError`` from a comparison deep in
the run; the command line's options come typed from typer, the Python API's from the
caller.  Each field of a plain type (``int``, ``float``, ``bool``, ``str``, optional ones,
``Sequence[str]``) is checked and every mistyped one named at once; the objects a caller
hands over (a stop signal, a progress or result sink, an environment mapping) are not.

Tested in tests/api/test_evaluation.py.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable, Collection, Iterable

from agenteval.errors import Problem


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_float(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_str(value: object) -> bool:
    # A path given as a Path works as its text everywhere a file option is read.
    return isinstance(value, str | os.PathLike)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


# What a plain annotation (as ``from __future__ import annotations`` keeps it) accepts.
_PLAIN: dict[str, tuple[Callable[[object], bool], str]] = {
    "int": (_is_int, "an int"),
    "float": (_is_float, "a float"),
    "bool": (_is_bool, "a bool"),
    "str": (_is_str, "a str"),
}


def _article(value: object) -> str:
    name = type(value).__name__
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"


def _sequence_problem(name: str, value: object) -> Problem | None:
    if isinstance(value, str | bytes):
        hint = f"give a list: {name}=[{value!r}]"
        return Problem(f"Options.{name}", "", f"must be a sequence of str, got {value!r}", hint)
    if not isinstance(value, Collection) or not all(_is_str(item) for item in value):
        got = f"{value!r} ({_article(value)})"
        return Problem(f"Options.{name}", "", f"must be a sequence of str, got {got}")
    return None


def mistyped_options(options: object) -> list[Problem]:
    """One problem per field of the dataclass ``options`` whose value is not of its type."""
    problems: list[Problem] = []
    for field in dataclasses.fields(options):  # type: ignore[arg-type]
        value = getattr(options, field.name)
        annotation = str(field.type)
        if annotation == "Sequence[str]":
            found = _sequence_problem(field.name, value)
            problems.extend([found] if found is not None else [])
            continue
        plain, optional = annotation.removesuffix(" | None"), annotation.endswith(" | None")
        if plain not in _PLAIN or (optional and value is None):
            continue
        accepts, wanted = _PLAIN[plain]
        if not accepts(value):
            message = f"must be {wanted}, got {value!r} ({_article(value)})"
            problems.append(Problem(f"Options.{field.name}", "", message))
    return problems


def unknown_options(options: type, names: Iterable[str]) -> list[Problem]:
    """One problem per keyword of ``names`` that is no field of the dataclass ``options``
    (``evaluate(path, num_run=3)`` was a bare ``TypeError`` from the dataclass), with the
    field it is most likely a typo of."""
    fields = [field.name for field in dataclasses.fields(options)]
    problems: list[Problem] = []
    for name in names:
        if name in fields:
            continue
        close = difflib.get_close_matches(name, fields, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else "see agenteval.api.Options"
        problems.append(Problem(f"Options.{name}", "", "no such option", hint))
    return problems


__all__ = ["mistyped_options", "unknown_options"]
