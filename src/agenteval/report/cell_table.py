"""Console tables whose ids, names, statuses and numbers are never split across lines.

rich fits a table to the width by folding cells inside words: at 80 columns
``tool_trajectory_avg_score`` became ``tool_trajectory_a`` / ``vg_score`` and a status
was cut from its score.  A :class:`CellTable` keeps every cell whole.  When the
columns fit at their full widths (free-text columns at their longest word, and at
least :data:`PROSE_MIN_WIDTH` wide) it is laid out as rich's table was (the same
text, laid out here for speed); when they do not, each row becomes a block: its key
cells (the case or metric it is about) on the first line, then ``header value``
pairs, wrapped only between pairs (free text between words) onto lines indented under
the key::

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
from rich.segment import Segment
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
    """Rows of cells under headers: a table when it fits, one block per row when not."""

    def __init__(self, columns: Sequence[Column], *, indent: int = 0) -> None:
        self.columns = list(columns)
        self.rows: list[list[Text]] = []
        # Columns of blank before every line: what a ``Padding`` gave, without its
        # measuring and re-splitting every line again (half of a case table's cost).
        self.indent = indent

    def add_row(self, *cells: Text | str) -> None:
        """Add a row; a ``str`` cell is plain text (never read as markup)."""
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([cell if isinstance(cell, Text) else Text(cell) for cell in cells])

    def table_width(self) -> int:
        """Columns needed by the table layout, every cell whole."""
        return _span(self._narrowest(self._full_widths()))

    def _full_widths(self) -> list[int]:
        """Each column as wide as its widest cell or header."""
        return [
            max([cell_len(column.header), *(row[index].cell_len for row in self.rows)])
            for index, column in enumerate(self.columns)
        ]

    def _narrowest(self, full: Sequence[int]) -> list[int]:
        """``full`` with each free-text column at its longest word (at least
        :data:`PROSE_MIN_WIDTH`): the narrowest the table layout goes."""
        widths = list(full)
        for index, column in enumerate(self.columns):
            if column.prose:
                longest = max([0, *(_longest_word(row[index]) for row in self.rows)])
                widths[index] = min(full[index], max(longest, PROSE_MIN_WIDTH))
        return widths

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """As wide as the table, or the whole width when it folds."""
        width = options.max_width
        full = self._full_widths()
        needed = _span(self._narrowest(full)) + self.indent
        if needed > width:
            return Measurement(width, width)
        return Measurement(needed, min(width, _span(full) + self.indent))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The table, or the folded rows when the table does not fit ``options.max_width``."""
        width = options.max_width - self.indent
        full = self._full_widths()
        narrowest = self._narrowest(full)
        if _span(narrowest) <= width:
            lines = self._table_lines(console, options, full, narrowest, width)
        else:
            lines = (line for row in self.rows for line in self._block(row, width))
        margin = Segment(" " * self.indent)
        new_line = Segment.line()
        for line in lines:
            # A line fits, so it is rendered as is, without the wrapping pass a Text
            # would get; only a single cell wider than the whole line folds.
            folded = (
                console.render_lines(line, options.update_width(width), pad=False)
                if line.cell_len > width
                else [list(line.render(console))]
            )
            for segments in folded:
                if self.indent:
                    yield margin
                yield from segments
                yield new_line

    def _table_lines(
        self,
        console: Console,
        options: ConsoleOptions,
        full: Sequence[int],
        narrowest: Sequence[int],
        width: int,
    ) -> Iterator[Text]:
        """The table layout, laid out here rather than by a rich ``Table``.

        The same text as rich's ``Table(box=SIMPLE_HEAD, pad_edge=False, show_edge=False)``
        (header, rule, rows; free text wrapped between words in its column), at a quarter
        of the cost: rich measured and rendered every cell through a ``Padding`` several
        times.  Printing the 200 case tables of a 10,000-case run took 0.73 s through rich
        and 0.18 s with this (best of 5, in-process, a slow day); tests/report/
        test_cell_table.py checks the text against rich's table at several widths.
        """
        widths = list(full)
        excess = _span(widths) - width
        # A free-text column gives way down to its narrowest, never below its header.
        minimum = {
            i: max(narrowest[i], cell_len(column.header))
            for i, column in enumerate(self.columns)
            if column.prose
        }
        while excess > 0 and minimum:
            # As rich collapses a table: the widest free-text column gives way first.
            widest = max(minimum, key=lambda index: widths[index])
            if widths[widest] <= minimum[widest]:
                break
            widths[widest] -= 1
            excess -= 1
        # rich's box characters (its ASCII box where the console cannot show "─").
        lines = box.SIMPLE_HEAD.substitute(options, safe=console.safe_box)
        headers = [Text(column.header, style="bold") for column in self.columns]
        yield self._line(headers, widths, f" {lines.head_vertical} ")
        padded = [w + (len(widths) > 1) + (0 < i < len(widths) - 1) for i, w in enumerate(widths)]
        yield Text(lines.get_row(padded, "head", edge=False))
        separator = f" {lines.mid_vertical} "
        for row in self.rows:
            cells = [
                cell.wrap(console, widths[index], overflow="fold") if column.prose else [cell]
                for index, (column, cell) in enumerate(zip(self.columns, row, strict=True))
            ]
            for depth in range(max(len(wrapped) for wrapped in cells)):
                parts = [wrapped[depth] if depth < len(wrapped) else Text() for wrapped in cells]
                yield self._line(parts, widths, separator)

    def _line(self, cells: Sequence[Text], widths: Sequence[int], separator: str) -> Text:
        line = Text()
        for index, (column, cell, width) in enumerate(
            zip(self.columns, cells, widths, strict=True)
        ):
            if index:
                line.append(separator)
            aligned = cell.copy()
            aligned.align("right" if column.justify == "right" else "left", width)
            line.append_text(aligned)
        return line

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


def _span(widths: Sequence[int]) -> int:
    """Columns a table of these column widths takes, gaps included."""
    return sum(widths) + _GAP * (len(widths) - 1)


def _longest_word(cell: Text) -> int:
    return max((cell_len(word) for word in cell.plain.split()), default=0)


__all__ = ["PROSE_MIN_WIDTH", "CellTable", "Column"]
