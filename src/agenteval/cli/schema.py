"""``agenteval schema KIND``: print the JSON Schema of a file kind.

Tested in tests/schema/test_json_schema.py.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

import typer

from agenteval.cli.flags import context_settings_command
from agenteval.cli.options import VerboseOpt
from agenteval.schema.json_schema import KINDS

# Read off ``run``'s options (config/run_settings.py), not a pydantic model.
CONFIG = "config"
# The file kinds ``agenteval schema`` prints: json_schema.KINDS, then ``config``. Built from
# that tuple so a kind is named in one place; typer shows an enum as the argument's choices.
SchemaKind = StrEnum("SchemaKind", [(kind.upper(), kind) for kind in (*KINDS, CONFIG)])  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class SchemaSettings:
    """The flags of ``agenteval schema``."""

    kind: Annotated[
        SchemaKind, typer.Argument(metavar="KIND", help=f"{', '.join(KINDS)} or {CONFIG}.")
    ]
    verbose: VerboseOpt = False


def print_schema(settings: SchemaSettings, ctx: typer.Context | None = None) -> int:
    """Write the schema of the kind to stdout; 0 (``config``: read off ``run``'s options)."""
    from agenteval.schema.json_schema import json_schema_text

    if settings.kind == CONFIG:
        from agenteval.config.run_settings import config_json_schema_text

        if ctx is None:
            raise ValueError("the config schema is read off the run command: give its context")
        from agenteval.cli.program import command_named

        sys.stdout.write(config_json_schema_text(command_named(ctx, "run")))
        return 0
    sys.stdout.write(json_schema_text(settings.kind.value))
    return 0


schema = context_settings_command(
    SchemaSettings,
    print_schema,
    doc="Print the JSON Schema (draft 2020-12) of a file kind, for editors and CI checks.",
)

__all__ = ["CONFIG", "SchemaKind", "SchemaSettings", "print_schema", "schema"]
