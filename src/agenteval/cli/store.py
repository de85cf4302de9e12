"""``agenteval store add`` and ``agenteval store export``: results into a run store and back.

The work is done in :mod:`agenteval.store.commands`; this module declares the flags
(``flags.py`` makes the commands of them).

Tested in tests/cli/test_store_commands.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agenteval.cli.flags import settings_command
from agenteval.cli.guard import print_warnings, stdout
from agenteval.cli.options import (
    StoreOpt,
    VerboseOpt,
    WroteQuietOpt,
    shared_option,
)
from agenteval.cli.saved_results import given_once

store_app = typer.Typer(
    help="Bring result files into a run store, or write a stored run back out.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@dataclass(frozen=True, slots=True)
class AddSettings:
    """The flags of ``agenteval store add``."""

    results: Annotated[
        tuple[Path, ...],
        typer.Argument(
            metavar="RESULT", help="Result files, --json run documents or directories to store."
        ),
    ]
    store: StoreOpt = None
    commit: Annotated[
        str | None, typer.Option("--commit", metavar="SHA", help="The commit they were made at.")
    ] = None
    branch: Annotated[str | None, shared_option("branch", "The branch they were made on.")] = None
    run_group: Annotated[
        str | None, shared_option("run-group", "Part of this run group (e.g. a shard).")
    ] = None
    quiet: WroteQuietOpt = False
    verbose: VerboseOpt = False


@dataclass(frozen=True, slots=True)
class ExportSettings:
    """The flags of ``agenteval store export``."""

    run_ref: Annotated[
        str,
        typer.Argument(
            metavar="RUN", help="A run id (or @RUN_ID), a run group, @latest or @branch:NAME."
        ),
    ]
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="DIR", help="Write its result files here, as run wrote them."
        ),
    ] = None
    json_file: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Write its --json run document here."),
    ] = None
    store: StoreOpt = None
    quiet: WroteQuietOpt = False
    verbose: VerboseOpt = False


def add_results(settings: AddSettings) -> int:
    """Store the results the settings name; the exit code."""
    from agenteval.store.commands import add_command

    given_once(settings.results)
    return add_command(
        settings.store,
        list(settings.results),
        stdout(),
        commit=settings.commit,
        branch=settings.branch,
        run_group=settings.run_group,
        quiet=settings.quiet,
        warn=partial(print_warnings, verbose=settings.verbose),
    )


def export_results(settings: ExportSettings) -> int:
    """Write the stored run back out as the settings say; the exit code."""
    from agenteval.store.commands import export_command

    return export_command(
        settings.store,
        settings.run_ref,
        stdout(),
        output=settings.output,
        json_file=settings.json_file,
        quiet=settings.quiet,
    )


store_add = store_app.command("add")(
    settings_command(
        AddSettings,
        add_results,
        doc="Store existing results: each run document is one run, the result files together one more.",
    )
)
store_export = store_app.command("export")(
    settings_command(
        ExportSettings,
        export_results,
        doc="Write a stored run back out: result files byte for byte as run wrote them (a group: merged).",
    )
)

__all__ = ["AddSettings", "ExportSettings", "add_results", "export_results", "store_app"]
