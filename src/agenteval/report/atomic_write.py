"""File writes for every report file (result JSON, JUnit, Markdown) that respect the target.

* A regular file (or a path that does not exist yet) is written through a temp file in
  the same directory and a rename: a reader never sees half a file, and an interrupted
  write leaves the previous file in place and no temp file behind.
* A symlink is followed: its target is replaced the same way, the link stays.
* Anything else that already exists (a device such as ``/dev/full`` or ``/dev/stdout``,
  a FIFO, a socket) and ``-`` are written through: renaming over them would replace a
  device node or a pipe with a regular file.  A FIFO the up-front check opened
  (:func:`hold_open`) is written through that descriptor, then closed.
* A directory is refused with ``IsADirectoryError`` naming the path.

:class:`StreamedFile` writes a file piece by piece under the same rules: the pieces go
to an unnamed temp file (``O_TMPFILE``, so even a killed process leaves nothing behind;
a named temp file removed on any exception where the file system has no ``O_TMPFILE``)
and only :meth:`StreamedFile.commit` puts the whole file in place.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO

STDOUT_PATH = "-"

# FIFOs found to have a reader before the run, by real path, held open until written:
# closing the probe would hand that reader its end of file before the report came.
_HELD_OPEN: dict[str, int] = {}


def hold_open(path: Path | str, fd: int) -> None:
    """Keep ``fd`` (``path`` opened for writing) until the report is written to ``path``."""
    key = os.path.realpath(path)
    if key in _HELD_OPEN:
        os.close(fd)  # one descriptor per FIFO is enough to keep its reader
        return
    _HELD_OPEN[key] = fd


def _open_through(path: Path) -> IO[bytes]:
    """``path`` opened for writing: the held descriptor if there is one, else a new one."""
    fd = _HELD_OPEN.pop(os.path.realpath(path), None)
    if fd is None:
        return open(path, "wb")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


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
    if _special(given):
        # The kernel follows /dev/stdout -> /proc/self/fd/1 -> pipe; a path lookup would not.
        with _open_through(given) as handle:
            _write_all(handle, payload)
        return given
    # A regular file: the one temp-file-and-rename path, StreamedFile's, in a single piece.
    with StreamedFile(given) as out:
        out.write(payload)
        return out.commit()


def _write_all(handle: IO[bytes], payload: bytes) -> None:
    handle.write(payload)
    handle.flush()


class StreamedFile:
    """A report file written piece by piece and put in place whole by :meth:`commit`.

    For a regular file (or a new path) the temp file lives in the target's directory and
    is linked or renamed over the target; for a device, FIFO or ``-`` it lives in the
    system temp directory and is copied through at the end (the target is opened only
    then, as :func:`write_bytes_atomic` does).  :meth:`discard` (or any exception inside
    a ``with`` block) drops it.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._through = is_stdout(path) or _special(self.path)
        self._target = self.path
        if not self._through and self.path.is_symlink():
            self._target = Path(os.path.realpath(self.path))
        directory = None if self._through else self._target.parent
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
        self._tmp_name: str | None = None
        self.handle = self._open(directory)

    def _open(self, directory: Path | None) -> IO[bytes]:
        if directory is None:
            return tempfile.TemporaryFile()
        unnamed = getattr(os, "O_TMPFILE", None)
        if unnamed is not None:
            try:
                fd = os.open(directory, unnamed | os.O_RDWR, 0o644)
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                    raise
            else:
                return os.fdopen(fd, "w+b")
        fd, self._tmp_name = tempfile.mkstemp(
            prefix=f".{self._target.name}.", suffix=".tmp", dir=directory
        )
        return os.fdopen(fd, "w+b")

    def write(self, data: bytes) -> None:
        """Append ``data``."""
        self.handle.write(data)

    def commit(self) -> Path:
        """Put the whole file in place; returns the path it was asked to write."""
        handle = self.handle
        handle.flush()
        if self._through:
            handle.seek(0)
            if is_stdout(self.path):
                sys.stdout.flush()
                shutil.copyfileobj(handle, sys.stdout.buffer, _COPY_CHUNK)
                sys.stdout.buffer.flush()
            else:
                with _open_through(self.path) as out:
                    shutil.copyfileobj(handle, out, _COPY_CHUNK)
            handle.close()
            return self.path
        try:
            os.fsync(handle.fileno())
            if self._tmp_name is None:
                self._link_in_place()
            else:
                os.chmod(self._tmp_name, 0o644)
                os.replace(self._tmp_name, self._target)
                self._tmp_name = None
        except BaseException:
            self.discard()
            raise
        handle.close()
        _fsync_dir(self._target.parent)
        return self.path

    def _link_in_place(self) -> None:
        # An O_TMPFILE file gets its name through /proc; linking it under a temp name and
        # renaming that over the target replaces an existing file in one step.
        fd, name = tempfile.mkstemp(
            prefix=f".{self._target.name}.", suffix=".tmp", dir=self._target.parent
        )
        os.close(fd)
        os.unlink(name)
        try:
            try:
                _link_open_file(self.handle.fileno(), name)
            except OSError:
                # No /proc: copy the pieces into a named temp file instead.
                with open(name, "xb") as out:
                    self.handle.seek(0)
                    shutil.copyfileobj(self.handle, out, _COPY_CHUNK)
                    out.flush()
                    os.fsync(out.fileno())
            os.chmod(name, 0o644)
            os.replace(name, self._target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
            raise

    def discard(self) -> None:
        """Drop the pieces written so far; the target is left as it was."""
        with contextlib.suppress(OSError):
            self.handle.close()
        if self._tmp_name is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._tmp_name)
            self._tmp_name = None

    def __enter__(self) -> StreamedFile:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is not None:
            self.discard()


_COPY_CHUNK = 1 << 20


def _link_open_file(fd: int, name: str) -> None:
    """Give the open file ``fd`` the name ``name`` through its ``/proc/self/fd`` entry.

    ``os.link(path, name, follow_symlinks=True)`` without a directory descriptor calls
    link(2), which on Linux links the ``/proc`` symlink itself and fails with EXDEV, so
    every result file was copied and fsynced a second time (~0.06 s for 64 MB).  With
    ``src_dir_fd`` CPython calls linkat(2) with AT_SYMLINK_FOLLOW, which follows it to
    the file.
    """
    proc_fds = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(str(fd), name, src_dir_fd=proc_fds, follow_symlinks=True)
    finally:
        os.close(proc_fds)


def _special(path: Path) -> bool:
    """True for an existing path that is neither a regular file nor a directory."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    return not stat.S_ISREG(info.st_mode)


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


__all__ = [
    "STDOUT_PATH",
    "StreamedFile",
    "hold_open",
    "is_stdout",
    "write_bytes_atomic",
    "write_text_atomic",
]
