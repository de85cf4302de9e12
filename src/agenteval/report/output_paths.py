"""Up-front checks of the report destinations, so a bad path fails before any judge call."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from agenteval.errors import Problem
from agenteval.report.atomic_write import is_stdout


def check_output_dir(flag: str, directory: Path) -> list[Problem]:
    """Problems with ``directory`` as the place for result files (created later if missing)."""
    if directory.exists() and not directory.is_dir():
        return [Problem(str(directory), "", f"{flag} is not a directory", "give a directory")]
    return _probe(flag, directory)


def check_output_file(flag: str, path: Path) -> list[Problem]:
    """Problems with ``path`` as a report file: a directory, or a place nothing can be written."""
    if is_stdout(path):
        return []
    try:
        info: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return [Problem(str(path), "", f"{flag}: {exc.strerror or exc}")]
    if info is not None and stat.S_ISDIR(info.st_mode):
        return [Problem(str(path), "", f"{flag} is a directory", "give a file name")]
    if info is not None and not stat.S_ISREG(info.st_mode):
        return []  # a device or FIFO is written through; opening a FIFO now would block
    return _probe(flag, Path(os.path.realpath(path)).parent)


def check_outputs(
    directories: Mapping[str, Path | None], files: Mapping[str, Path | None]
) -> list[Problem]:
    """Every problem with the given ``{flag: directory}`` and ``{flag: file}`` destinations."""
    problems: list[Problem] = []
    for flag, directory in directories.items():
        if directory is not None:
            problems.extend(check_output_dir(flag, directory))
    for flag, path in files.items():
        if path is not None:
            problems.extend(check_output_file(flag, path))
    return problems


def _probe(flag: str, directory: Path) -> list[Problem]:
    """Create and remove a file where the report will go (mode bits do not stop root; this does)."""
    existing = directory
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        return [
            Problem(str(directory), "", f"{flag}: cannot create it: {existing} is not a directory")
        ]
    try:
        fd, name = tempfile.mkstemp(prefix=".agenteval-probe.", dir=existing)
    except OSError as exc:
        return [
            Problem(
                str(directory), "", f"{flag}: cannot write in {existing}: {exc.strerror or exc}"
            )
        ]
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)
    return []


__all__ = ["check_output_dir", "check_output_file", "check_outputs"]
