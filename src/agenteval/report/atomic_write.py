"""Atomic file writes for every report file (result JSON, JUnit, Markdown)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path | str, payload: bytes) -> Path:
    """Write ``payload`` to ``path`` via a temp file in the same directory and a rename.

    A reader (or a CI step collecting the file) never sees half a file, and an
    interrupted write leaves the previous file in place; returns the path.
    """
    target = Path(path)
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
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)
    return target


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


__all__ = ["write_bytes_atomic", "write_text_atomic"]
