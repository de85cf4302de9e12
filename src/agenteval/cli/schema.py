"""``agenteval schema KIND``: print the JSON Schema of a file kind.

Tested in tests/schema/test_json_schema.py.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from functools import partial
from typing import Annotated

import typer

from agenteval.cli.guard import exit_with
from agenteval.cli.options import VerboseOpt


class SchemaKind(StrEnum):
    """The file kinds ``agenteval schema`` prints."""

    EVALSET = "evalset"
    METRICS = "metrics"
    RESULT = "result"
    RUN = "run"


def schema(
    kind: Annotated[SchemaKind, typer.Argument(help="evalset, metrics, result or run.")],
    verbose: VerboseOpt = False,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a file kind, for editors and CI checks."""
    exit_with(verbose, partial(print_schema, kind))


def print_schema(kind: SchemaKind) -> int:
    """Write the schema of ``kind`` to stdout; 0."""
    from agenteval.schema.json_schema import json_schema_text

    sys.stdout.write(json_schema_text(kind.value))
    return 0


__all__ = ["SchemaKind", "print_schema", "schema"]
