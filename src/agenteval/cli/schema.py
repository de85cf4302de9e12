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
    PRICES = "prices"
    LABELS = "labels"
    CONFIG = "config"


def schema(
    ctx: typer.Context,
    kind: Annotated[
        SchemaKind, typer.Argument(help="evalset, metrics, result, run, prices, labels or config.")
    ],
    verbose: VerboseOpt = False,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a file kind, for editors and CI checks."""
    exit_with(verbose, partial(print_schema, kind, ctx))


def print_schema(kind: SchemaKind, ctx: typer.Context | None = None) -> int:
    """Write the schema of ``kind`` to stdout; 0 (``config``: read off ``run``'s options)."""
    from agenteval.schema.json_schema import json_schema_text

    if kind is SchemaKind.CONFIG:
        from agenteval.config.run_settings import config_json_schema_text

        if ctx is None:
            raise ValueError("the config schema is read off the run command: give its context")
        run_command = ctx.find_root().command.get_command(ctx, "run")  # type: ignore[attr-defined]
        sys.stdout.write(config_json_schema_text(run_command))
        return 0
    sys.stdout.write(json_schema_text(kind.value))
    return 0


__all__ = ["SchemaKind", "print_schema", "schema"]
