"""Atomic text-file writes for the report files (JUnit, Markdown)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_text_atomic(path: Path | str, text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` via a temp file and a rename; returns the path.

    A reader (or a CI step collecting the file) never sees half a file, and an
    interrupted write leaves the previous file in place.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            # Lone surrogates (from loaded text) cannot be UTF-8; they become "?".
            handle.write(text.encode("utf-8", "replace"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return target


__all__ = ["write_text_atomic"]
