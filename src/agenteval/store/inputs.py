"""Stored runs where a command takes result files: ``show @latest``, ``diff @branch:main new.json``.

Every argument that names a stored run (``@latest``, ``@RUN_ID``, ``@branch:NAME``) and
is not an existing file is exported from the store (``--store``, ``$AGENTEVAL_STORE`` or
the project file) into a temp directory for the duration of the command, and the command
reads it like any result file: its run document, or a run group's merged result files.

Tested in tests/cli/test_store_commands.py.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from agenteval.errors import ConfigError, Problem
from agenteval.store.baselines import ReferenceProblem, is_reference, resolve
from agenteval.store.connection import open_for_reading
from agenteval.store.export import materialize


def _names_stored_run(path: Path | str) -> bool:
    return is_reference(str(path)) and not Path(path).exists()


def has_references(paths: Sequence[Path | str]) -> bool:
    """Whether any argument names a stored run."""
    return any(_names_stored_run(path) for path in paths)


@contextmanager
def stored_inputs(
    paths: Sequence[Path], flag: str | None, pinned: dict[str, str] | None = None
) -> Iterator[list[Path]]:
    """``paths`` with every stored-run reference replaced by an exported copy of that run.

    ``pinned`` (when given) receives each exported copy's path mapped to ``@RUN_ID``: the
    name that still means this run after the command (``@latest`` moves on, the copy is
    deleted), for what a command prints for later, such as an ``agenteval explain`` line.
    """
    if not has_references(paths):
        yield list(paths)
        return
    first = next(str(p) for p in paths if _names_stored_run(p))
    store = open_for_reading(flag, first)
    try:
        with tempfile.TemporaryDirectory(prefix="agenteval-stored-") as tmp:
            replaced: list[Path] = []
            for index, path in enumerate(paths):
                if not _names_stored_run(path):
                    replaced.append(path)
                    continue
                try:
                    with store.transaction() as conn:
                        run = resolve(conn, str(path))
                except ReferenceProblem as problem:
                    raise ConfigError(
                        [Problem(str(path), "", problem.message, problem.hint)]
                    ) from None
                copy = materialize(store, run, Path(tmp) / str(index))
                replaced.append(copy)
                if pinned is not None:
                    pinned[str(copy)] = f"@{run.id}"
            yield replaced
    finally:
        store.close()


__all__ = ["has_references", "stored_inputs"]
