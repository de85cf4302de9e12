"""Registries of named extensions (formats.md §3.11): compare functions and tokenizers.

JSON cannot carry code, so a criterion names an implementation that a plugin
registered here.  Names are resolved before any case runs; an unknown name is
a configuration error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from agenteval.schema.evalset import Invocation

TextCompare = Callable[[str, str], bool]
JSONCompare = Callable[[Any, Any], bool]
TurnCompare = Callable[[Invocation, Invocation], bool]
Tokenizer = Callable[[str], list[str]]

F = TypeVar("F", bound=Callable[..., Any])


class NamedRegistry(dict[str, Any]):
    """A name → function map with a decorator for registration."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def register(self, name: str) -> Callable[[F], F]:
        """Decorator: register the function under ``name`` (last registration wins)."""

        def decorate(func: F) -> F:
            self[name] = func
            return func

        return decorate


text_compares = NamedRegistry("text compare")
json_compares = NamedRegistry("json compare")
turn_compares = NamedRegistry("turn compare")
tokenizers = NamedRegistry("tokenizer")
