"""Console tables whose ids, names, statuses and numbers are never split across lines.

rich fits a table to the width by folding cells inside words: at 80 columns
``tool_trajectory_avg_score`` became ``tool_trajectory_a`` / ``vg_score`` and a status
was cut from its score.  A :class:`CellTable` keeps every cell whole.  When the
columns fit at their full widths (free-text columns at their longest word, and at
least :data:`PROSE_MIN_WIDTH` wide) it is the same rich table as before; when they do
not, each row becomes a block: its key cells (the case or metric it is about) on the
first line, then ``header value`` pairs, wrapped only between pairs (free text between
words) onto lines indented under the key::

    tool_trajectory_avg_score  turn 1 1 · score 1 · threshold 1
        status passed

A single cell wider than the whole line (an id of 200 characters) still folds: nothing
else could show it.

Tested in tests/report/test_cell_table.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# Columns between two cells of the table (padding 1 + separator 1 + padding 1).
_GAP = 3
# A free-text column is never squeezed narrower than this (or its longest word).
PROSE_MIN_WIDTH = 24
# Continuation lines of a folded row start under the key, this far in.
_INDENT = 4
_PAIR_SEPARATOR = " · "
_KEY_SEPARATOR = "  "


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its header, alignment and role when the table folds."""

    header: str
    justify: JustifyMethod = "right"
    key: bool = False  # names the row (case, metric): leads its block when folded
    prose: bool = False  # free text: wraps between words in either layout
    labelled: bool = True  # folded, the value follows its header ("score 1")


class CellTable:
    """Rows of cells under headers: a rich table when it fits, one block per row when not."""

    def __init__(self, columns: Sequence[Column]) -> None:
        self.columns = list(columns)
        self.rows: list[list[Text]] = []

    def add_row(self, *cells: Text | str) -> None:
        """Add a row; a ``str`` cell is plain text (never read as markup)."""
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([cell if isinstance(cell, Text) else Text(cell) for cell in cells])

    def table_width(self) -> int:
        """Columns needed by the table layout, every cell whole."""
        widths = []
        for index, column in enumerate(self.columns):
            cells = [row[index] for row in self.rows]
            full = max([cell_len(column.header), *(cell.cell_len for cell in cells)])
            if column.prose:
                longest = max([0, *(_longest_word(cell) for cell in cells)])
                full = min(full, max(longest, PROSE_MIN_WIDTH))
            widths.append(full)
        return sum(widths) + _GAP * (len(widths) - 1)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """As wide as the table, or the whole width when it folds."""
        width = options.max_width
        needed = self.table_width()
        if needed > width:
            return Measurement(width, width)
        full = Measurement.get(console, options, self._table())
        return Measurement(min(needed, full.maximum), full.maximum)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The table, or the folded rows when the table does not fit ``options.max_width``."""
        width = options.max_width
        if self.table_width() <= width:
            yield self._table()
            return
        for row in self.rows:
            yield from self._block(row, width)

    def _table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        for column in self.columns:
            table.add_column(
                column.header,
                justify=column.justify,
                no_wrap=not column.prose,
                overflow="fold",
            )
        for row in self.rows:
            table.add_row(*row)
        return table

    def _block(self, row: Sequence[Text], width: int) -> Iterator[Text]:
        """One row as lines no wider than ``width``, broken only between pieces or words."""
        line = Text()
        for piece, joiner in self._pieces(row):
            if line and line.cell_len + len(joiner) + piece.cell_len > width:
                yield line
                line, joiner = Text(" " * _INDENT), ""
            elif not line.plain.strip():
                joiner = ""
            line.append(joiner, style="dim" if joiner == _PAIR_SEPARATOR else "")
            line.append_text(piece)
        if line.plain.strip():
            yield line

    def _pieces(self, row: Sequence[Text]) -> Iterator[tuple[Text, str]]:
        """The unbreakable pieces of a row, keys first, each with the separator before it."""
        cells = list(zip(self.columns, row, strict=True))
        for column, cell in cells:
            if column.key and cell.plain:
                yield _labelled(column, cell), _KEY_SEPARATOR
        joiner = _KEY_SEPARATOR  # between the keys and the first value
        for column, cell in cells:
            if column.key or not cell.plain.strip():
                continue
            if not column.prose:
                yield _labelled(column, cell), joiner
                joiner = _PAIR_SEPARATOR
                continue
            words = [word for word in cell.split(" ") if word.plain]
            first = Text(f"{column.header}: " if column.labelled else "", style="dim")
            first.append_text(words[0])
            yield first, joiner
            for word in words[1:]:
                yield word, " "
            joiner = _PAIR_SEPARATOR


def _labelled(column: Column, cell: Text) -> Text:
    if not column.labelled:
        return cell
    text = Text(f"{column.header} ", style="dim")
    text.append_text(cell)
    return text


def _longest_word(cell: Text) -> int:
    return max((cell_len(word) for word in cell.plain.split()), default=0)


__all__ = ["PROSE_MIN_WIDTH", "CellTable", "Column"]
