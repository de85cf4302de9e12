"""Up-front checks of the report destinations, so a bad path fails before any judge call.

A report file goes to a regular file (written through a temp file and a rename), to
``-``, or to one of the places a caller obviously means: ``/dev/stdout``,
``/dev/stderr``, ``/dev/fd/N`` and ``/proc/self/fd/N`` (the caller's own descriptors,
e.g. ``--json >(jq .)``), ``/dev/null`` and a terminal (``/dev/tty``, ``/dev/pts/N``).
A FIFO is taken when something reads it: opening it without blocking fails with ENXIO
when nothing does, and writing would then wait forever; one with a reader is kept open
until the report is written (:func:`agenteval.report.atomic_write.hold_open`), so the
reader does not see the end of the file early.  Any other device (``/dev/full``,
``/dev/zero``, a disk), a socket, or a directory is refused, as is a place nothing can
be created in.  A disk that fills up while writing is only found then: that report is
named and the run exits 3 with every other report written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from agenteval.errors import ConfigError, Problem
from agenteval.report.atomic_write import hold_open, is_stdout

# The caller's own open descriptors: written through as given.
_OWN_DESCRIPTORS = re.compile(r"/dev/(?:stdout|stderr|fd/\d+)|/proc/self/fd/\d+")
# Linux device numbers: /dev/tty (5, 0); pseudo-terminals /dev/pts/N (majors 136-143);
# virtual consoles /dev/ttyN (4, 0-63).
_TTY = (5, 0)
_PTS_MAJORS = range(136, 144)
_CONSOLE_MAJOR = 4
_DEVICE_HINT = "give a file, -, /dev/stdout, /dev/stderr, /dev/null or a terminal"


def check_output_dir(flag: str, directory: Path) -> list[Problem]:
    """Problems with ``directory`` as the place for result files (created later if missing)."""
    if directory.exists() and not directory.is_dir():
        return [Problem(str(directory), "", f"{flag} is not a directory", "give a directory")]
    return _probe(flag, directory)


def check_output_file(flag: str, path: Path) -> list[Problem]:
    """Problems with ``path`` as a report file (see the module docstring for what is taken)."""
    if is_stdout(path) or _OWN_DESCRIPTORS.fullmatch(os.path.abspath(path)):
        return []
    try:
        info: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return [Problem(str(path), "", f"{flag}: {exc.strerror or exc}")]
    if info is None or stat.S_ISREG(info.st_mode):
        return _probe(flag, Path(os.path.realpath(path)).parent)
    if stat.S_ISDIR(info.st_mode):
        return [Problem(str(path), "", f"{flag} is a directory", "give a file name")]
    if stat.S_ISFIFO(info.st_mode):
        return _fifo_problems(flag, path)
    if stat.S_ISCHR(info.st_mode) and _writable_device(info):
        return []
    kind = "a socket" if stat.S_ISSOCK(info.st_mode) else "a device"
    return [Problem(str(path), "", f"{flag}: {kind}, not a file", _DEVICE_HINT)]


def _writable_device(info: os.stat_result) -> bool:
    """/dev/null or a terminal: the devices a report is obviously meant for."""
    null = os.stat(os.devnull)
    if info.st_rdev == null.st_rdev:
        return True
    major, minor = os.major(info.st_rdev), os.minor(info.st_rdev)
    return (
        (major, minor) == _TTY or major in _PTS_MAJORS or (major == _CONSOLE_MAJOR and minor < 64)
    )


def _fifo_problems(flag: str, path: Path) -> list[Problem]:
    """None when something reads the FIFO (it is then held open); else why not."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            return [
                Problem(
                    str(path),
                    "",
                    f"{flag}: a FIFO nothing reads (writing would wait forever)",
                    "start its reader first, or give a file",
                )
            ]
        return [Problem(str(path), "", f"{flag}: {exc.strerror or exc}")]
    hold_open(path, fd)
    return []


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


@contextlib.contextmanager
def write_refused(path: Path) -> Iterator[None]:
    """Writing ``path`` inside: an OSError (a disk that fills up, a directory made since the
    check) becomes the located one-line ``path: cannot write: reason`` (exit 2)."""
    try:
        yield
    except OSError as exc:
        raise ConfigError(
            [Problem(str(path), "", f"cannot write: {exc.strerror or exc}")]
        ) from None


__all__ = [
    "check_output_dir",
    "check_output_file",
    "check_outputs",
    "write_refused",
]
