"""Registries of named extensions (formats.md §3.11): compare functions and tokenizers.

JSON cannot carry code, so a criterion names an implementation that a plugin
registered here.  Names are resolved before any case runs; an unknown name is
a configuration error.

Tested in tests/evaluators/test_deterministic_evaluators.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenteval.registry import Registry
from agenteval.schema.evalset import Invocation

TextCompare = Callable[[str, str], bool]
JSONCompare = Callable[[Any, Any], bool]
TurnCompare = Callable[[Invocation, Invocation], bool]
Tokenizer = Callable[[str], list[str]]

text_compares: Registry[TextCompare] = Registry("text compare")
json_compares: Registry[JSONCompare] = Registry("json compare")
turn_compares: Registry[TurnCompare] = Registry("turn compare")
tokenizers: Registry[Tokenizer] = Registry("tokenizer")
