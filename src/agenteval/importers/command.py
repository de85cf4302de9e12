"""``agenteval import adk|otel FILE… -o DIR [--force]``: other formats → trpc-agent-go eval sets.

A file that already exists in DIR (a hand-edited eval set, say) is not replaced unless
``--force`` is given: every target is checked before anything is written (exit 2 naming
each one), and with ``--force`` each file is replaced atomically (temp file and rename).
Warnings go through the run's printer: a flood of one kind is a few lines and a count.

Tested in tests/importers/test_adk.py (``import adk``) and tests/importers/test_otel.py
(``import otel``); refusals of the wrong kind in tests/inputs/test_foreign_files.py; its
errors (the problem count, -v's traceback) in tests/importers/test_command.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from agenteval.errors import ConfigError, Problem
from agenteval.importers.otel import DEFAULT_MATCH, TracesMatch, map_spans
from agenteval.inputs.foreign_files import KIND_NAMES, kind_of_file
from agenteval.inputs.input_limits import input_file_problem
from agenteval.inputs.safe_text import wrote_line
from agenteval.report.atomic_write import write_bytes_atomic
from agenteval.report.problem_console import (
    bad_input,
    bad_input_text,
    internal_error,
    print_warnings,
)
from agenteval.schema.base import dump_json_bytes
from agenteval.schema.evalset import EvalSet

if TYPE_CHECKING:
    from agenteval.importers import adk

import_app = typer.Typer(
    name="import",
    help="Convert Google ADK eval files or OpenTelemetry traces into trpc-agent-go eval sets.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

FilesArg = Annotated[list[Path], typer.Argument(metavar="FILE", help="Files to convert.")]
OutOpt = Annotated[
    Path,
    typer.Option(
        "--output",
        "-o",
        metavar="DIR",
        help="Directory to write the eval sets (and metric files) into.",
    ),
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", help="Every warning, and tracebacks on errors.")
]
ForceOpt = Annotated[
    bool,
    typer.Option("--force", help="Replace files that already exist in DIR (each atomically)."),
]
ADK_KINDS = ("adk-evalset", "adk-legacy", "adk-result")


def _guarded(verbose: bool, body: Callable[[], None]) -> None:
    """Run ``body``, its errors said as every command says them (report/problem_console)."""
    try:
        body()
    except ConfigError as exc:
        bad_input(exc.problems, exc.warnings, exc.causes if verbose else (), verbose=verbose)
    except OSError as exc:  # a file that cannot be read or written is bad input
        where = f"{exc.filename}: " if exc.filename is not None else ""
        bad_input_text(f"{where}{exc.strerror or exc}", verbose)
    except (typer.Exit, typer.Abort):
        raise
    except Exception as exc:
        internal_error(exc, verbose)


Output = tuple[EvalSet, list[dict[str, Any]] | None]


def _targets(out: Path, evalset: EvalSet, metrics: list[dict[str, Any]] | None) -> list[Path]:
    """The files one eval set becomes: its eval set, and its metric file when it has one."""
    paths = [out / f"{evalset.eval_set_id}.evalset.json"]
    if metrics is not None:
        paths.append(out / f"{evalset.eval_set_id}.metrics.json")
    return paths


def _write_all(out: Path, outputs: list[Output], force: bool) -> list[list[Path]]:
    """Write every output, refusing (before writing any) to replace a file unless ``force``."""
    if not force:
        existing = [
            path
            for evalset, metrics in outputs
            for path in _targets(out, evalset, metrics)
            if os.path.lexists(path)
        ]
        if existing:
            raise ConfigError(
                [
                    Problem(
                        str(path), "", "already exists; not replaced", "pass --force to replace it"
                    )
                    for path in existing
                ]
            )
    out.mkdir(parents=True, exist_ok=True)
    return [_write(out, evalset, metrics) for evalset, metrics in outputs]


def _write(out: Path, evalset: EvalSet, metrics: list[dict[str, Any]] | None) -> list[Path]:
    paths = _targets(out, evalset, metrics)
    write_bytes_atomic(paths[0], dump_json_bytes(evalset) + b"\n")
    if metrics is not None:
        text = json.dumps(metrics, indent=2, ensure_ascii=False) + "\n"
        write_bytes_atomic(paths[1], text.encode("utf-8"))
    return paths


def _report(written: list[tuple[Path, int]]) -> None:
    out = Console(highlight=False, soft_wrap=True)
    for path, cases in written:
        suffix = f" ({cases} case{'s' if cases != 1 else ''})" if cases >= 0 else ""
        out.print(f"{wrote_line(path)}{suffix}", markup=False, highlight=False)


def _adk_file(path: Path) -> adk.Imported:
    """One ADK file converted, or ConfigError saying why it cannot be."""
    # Imported here, as in the commands below: other commands (a run's start-up) do not
    # build the ADK format's models.
    from agenteval.importers import adk

    refused = input_file_problem(path)
    if refused is not None:
        raise ConfigError([refused])
    kind = kind_of_file(path)
    if kind is None:
        raise ConfigError([_not_adk(path)])
    if kind not in ADK_KINDS:
        hint = "use agenteval import otel" if kind.startswith("otlp") else ""
        raise ConfigError([Problem(str(path), "", KIND_NAMES[kind], hint)])
    return adk.import_adk_file(path, kind)


def _not_adk(path: Path) -> Problem:
    """The problem of a file that is no ADK file, naming the kind it is (an eval set, a
    traces file …) with where it goes, as --traces and --evalset name theirs; ConfigError
    when it is no JSON at all."""
    from agenteval.importers import adk
    from agenteval.inputs.file_kind import HINTS, first_line_kind, kind_of, wrong_kind_message
    from agenteval.inputs.loading import read_text

    try:
        found = kind_of(adk.load_json(path))
    except ConfigError:
        # JSON lines (a --traces file) are no one document: named by their first line.
        line_kind = first_line_kind(read_text(path))
        if line_kind is None:
            raise  # a file that is no JSON says what is wrong with it
        found = line_kind
    if found in HINTS:
        message, hint = wrong_kind_message("a Google ADK eval file", found)
        return Problem(str(path), "", message, hint)
    return Problem(str(path), "", "not a Google ADK eval file")


@import_app.command("adk")
def import_adk(
    files: FilesArg, output: OutOpt, force: ForceOpt = False, verbose: VerboseOpt = False
) -> None:
    """Google ADK eval sets (both key styles), legacy *.test.json and eval results → eval sets + metrics from test_config.json."""

    def body() -> None:
        from agenteval.importers import adk

        problems: list[Problem] = []
        imports: list[adk.Imported] = []
        for path in files:
            try:
                imports.append(_adk_file(path))
            except ConfigError as exc:
                problems.extend(exc.problems)
        if problems:
            raise ConfigError(problems)
        evalsets = [(e, imp) for imp in imports for e in imp.evalsets]
        # Ids become file names: made safe and distinct before anything is written.
        old_ids = [e.eval_set_id for e, _ in evalsets]
        adk.distinct_ids([e for e, _ in evalsets])
        outputs = [
            (evalset, imp.metrics.get(old))
            for (evalset, imp), old in zip(evalsets, old_ids, strict=True)
        ]
        written: list[tuple[Path, int]] = []
        for (evalset, _), paths in zip(outputs, _write_all(output, outputs, force), strict=True):
            written.append((paths[0], len(evalset.cases())))
            written.extend((p, -1) for p in paths[1:])
        # All imports' warnings under one bound, as every command prints them.
        print_warnings([w for imp in imports for w in imp.warnings], verbose=verbose)
        _report(written)

    _guarded(verbose, body)


@import_app.command("otel")
def import_otel(
    files: FilesArg,
    output: OutOpt,
    traces_match: Annotated[
        TracesMatch,
        typer.Option(
            "--traces-match",
            help="Span attribute that names a case: session id, gen_ai.conversation.id, or agenteval.eval_id.",
        ),
    ] = DEFAULT_MATCH,
    force: ForceOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """OTLP JSON / protobuf trace files → trace-mode eval sets, one case per session."""

    def body() -> None:
        from agenteval.importers import adk
        from agenteval.importers.otel_traces import (  # protobuf: loaded only here
            evalset_from_spans,
            nothing_to_import,
            span_warnings,
            trace_set_id,
        )
        from agenteval.inputs.otlp_file import read_spans  # protobuf: loaded only here

        sets: list[EvalSet] = []
        warnings: list[Problem] = []
        problems: list[Problem] = []
        for path in files:
            refused = input_file_problem(path)
            if refused is not None:
                problems.append(refused)
                continue
            kind = kind_of_file(path)
            if kind is not None and not kind.startswith("otlp"):
                problems.append(
                    Problem(str(path), "", KIND_NAMES[kind], "use agenteval import adk")
                )
                continue
            try:
                read = read_spans(path)
            except ConfigError as exc:  # every file is checked before one is written
                problems.extend(exc.problems)
                continue
            mapping = map_spans(read.spans, traces_match)
            warnings.extend(span_warnings(str(path), read, mapping))
            empty = nothing_to_import(str(path), read, mapping, traces_match)
            if empty is not None:
                problems.append(empty)
            sets.append(evalset_from_spans(trace_set_id(path), mapping))
        if problems:
            raise ConfigError(problems, warnings)
        adk.distinct_ids(sets)
        files_of = _write_all(output, [(s, None) for s in sets], force)
        written = [(paths[0], len(s.cases())) for s, paths in zip(sets, files_of, strict=True)]
        print_warnings(warnings, verbose=verbose)
        _report(written)

    _guarded(verbose, body)
