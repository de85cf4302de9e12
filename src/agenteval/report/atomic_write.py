"""File writes for every report file (result JSON, JUnit, Markdown) that respect the target.

* A regular file (or a path that does not exist yet) is written through a temp file in
  the same directory and a rename: a reader never sees half a file, and an interrupted
  write leaves the previous file in place and no temp file behind.
* A symlink is followed: its target is replaced the same way, the link stays.
* Anything else that already exists (a device such as ``/dev/full`` or ``/dev/stdout``,
  a FIFO, a socket) and ``-`` are written through: renaming over them would replace a
  device node or a pipe with a regular file.
* A directory is refused with ``IsADirectoryError`` naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO

STDOUT_PATH = "-"


def is_stdout(path: Path | str) -> bool:
    """True for the path ``-``, which means standard output."""
    return str(path) == STDOUT_PATH


def write_bytes_atomic(path: Path | str, payload: bytes) -> Path:
    """Write ``payload`` to ``path`` (see the module docstring for how); returns the path."""
    given = Path(path)
    if is_stdout(path):
        sys.stdout.flush()
        _write_all(sys.stdout.buffer, payload)
        return given
    try:
        info: os.stat_result | None = os.stat(given)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(given))
    if info is not None and not stat.S_ISREG(info.st_mode):
        # The kernel follows /dev/stdout -> /proc/self/fd/1 -> pipe; a path lookup would not.
        with open(given, "wb") as handle:
            _write_all(handle, payload)
        return given
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    _replace(target, payload)
    return given


def _write_all(handle: IO[bytes], payload: bytes) -> None:
    handle.write(payload)
    handle.flush()


def _replace(target: Path, payload: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        # Also on KeyboardInterrupt (a second Ctrl-C): never leave a temp file behind.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)


def write_text_atomic(path: Path | str, text: str) -> Path:
    """:func:`write_bytes_atomic` of UTF-8 ``text``; lone surrogates (from loaded text) become "?"."""
    return write_bytes_atomic(path, text.encode("utf-8", "replace"))


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; not possible on every platform.
    flags = getattr(os, "O_DIRECTORY", None)
    if flags is None:
        return
    try:
        fd = os.open(directory, os.O_RDONLY | flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = ["STDOUT_PATH", "is_stdout", "write_bytes_atomic", "write_text_atomic"]
