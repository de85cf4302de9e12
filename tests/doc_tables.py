"""The keys a page of docs/ documents in a table: what a command's ``--json`` output is held to."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def documented_keys(page: str, table_of: str) -> list[str]:
    """The keys in the first column of the table after the line starting ``table_of`` in
    ``docs/<page>``, in order."""
    lines = (DOCS / page).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(table_of))
    table = itertools.dropwhile(lambda line: not line.startswith("|"), lines[start:])
    rows = itertools.takewhile(lambda line: line.startswith("|"), table)
    return [key for row in rows for key in re.findall(r"`(\w+)`", row.split("|")[1])]
