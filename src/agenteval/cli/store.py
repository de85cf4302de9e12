"""``agenteval store add`` and ``agenteval store export``: results into a run store and back.

The work is done in :mod:`agenteval.store.commands`; this module parses the flags.

Tested in tests/cli/test_store_commands.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agenteval.cli.guard import exit_with, stdout
from agenteval.cli.options import QuietOpt, StoreOpt, VerboseOpt

store_app = typer.Typer(
    help="Bring result files into a run store, or write a stored run back out.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@dataclass(frozen=True, slots=True)
class AddSettings:
    """The flags of ``agenteval store add``."""

    results: tuple[Path, ...]
    store: str | None = None
    commit: str | None = None
    branch: str | None = None
    run_group: str | None = None
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class ExportSettings:
    """The flags of ``agenteval store export``."""

    run_ref: str
    output: Path | None = None
    json_file: Path | None = None
    store: str | None = None
    quiet: bool = False


@store_app.command("add")
def store_add(
    results: Annotated[
        list[Path],
        typer.Argument(help="Result files, --json run documents or directories to store."),
    ],
    store: StoreOpt = None,
    commit: Annotated[
        str | None, typer.Option("--commit", metavar="SHA", help="The commit they were made at.")
    ] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", metavar="NAME", help="The branch they were made on.")
    ] = None,
    run_group: Annotated[
        str | None,
        typer.Option("--run-group", metavar="ID", help="Part of this run group (e.g. a shard)."),
    ] = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Store existing results: each run document is one run, the result files together one more."""
    settings = AddSettings(tuple(results), store, commit, branch, run_group, quiet)
    exit_with(verbose, partial(add_results, settings))


def add_results(settings: AddSettings) -> int:
    """Store the results the settings name; the exit code."""
    from agenteval.store.commands import add_command

    return add_command(
        settings.store,
        list(settings.results),
        stdout(),
        commit=settings.commit,
        branch=settings.branch,
        run_group=settings.run_group,
        quiet=settings.quiet,
    )


@store_app.command("export")
def store_export(
    run_ref: Annotated[
        str,
        typer.Argument(
            metavar="RUN", help="A run id (or @RUN_ID), a run group, @latest or @branch:NAME."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="DIR", help="Write its result files here, as run wrote them."
        ),
    ] = None,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Write its --json run document here."),
    ] = None,
    store: StoreOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Write a stored run back out: result files byte for byte as run wrote them (a group: merged)."""
    settings = ExportSettings(run_ref, output, json_file, store, quiet)
    exit_with(verbose, partial(export_results, settings))


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


__all__ = ["AddSettings", "ExportSettings", "add_results", "export_results", "store_app"]
