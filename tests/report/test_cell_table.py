"""agenteval.report.cell_table: a table when it fits, rows folded between cells when not."""

from __future__ import annotations

import io

import pytest
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from agenteval.report.cell_table import PROSE_MIN_WIDTH, CellTable, Column


def rendered(table: CellTable, width: int, indent: int = 0) -> list[str]:
    console = Console(width=width, color_system=None, record=True)
    with console.capture() as captured:
        console.print(Padding(table, (0, 0, 0, indent), expand=False))
    return [line.rstrip() for line in captured.get().splitlines()]


def metric_table() -> CellTable:
    table = CellTable(
        [Column("metric", "left", key=True, labelled=False), Column("turn 1"),
         Column("score"), Column("threshold"), Column("status")]
    )  # fmt: skip
    table.add_row("tool_trajectory_avg_score", "1", "1", "1", Text("passed", style="green"))
    table.add_row("mentions_key_fact", "0", "0.6667", "1", "not evaluated")
    return table


def test_fits_as_a_table() -> None:
    table = metric_table()
    assert table.table_width() == 25 + 6 + 6 + 9 + 13 + 4 * 3
    lines = rendered(table, table.table_width() + 2, indent=2)
    assert lines[0].split() == ["metric", "turn", "1", "score", "threshold", "status"]
    assert lines[2] == "  tool_trajectory_avg_score        1        1           1          passed"
    assert lines[3] == "  mentions_key_fact                0   0.6667           1   not evaluated"


def test_folds_between_cells_when_one_column_short() -> None:
    table = metric_table()
    lines = rendered(table, table.table_width() + 1, indent=2)
    assert lines == [
        "  tool_trajectory_avg_score  turn 1 1 · score 1 · threshold 1",
        "      status passed",
        "  mentions_key_fact  turn 1 0 · score 0.6667 · threshold 1",
        "      status not evaluated",
    ]
    assert rendered(table, 42) == [
        "tool_trajectory_avg_score  turn 1 1",
        "    score 1 · threshold 1 · status passed",
        "mentions_key_fact  turn 1 0 · score 0.6667",
        "    threshold 1 · status not evaluated",
    ]


def test_prose_wraps_between_words_and_keys_flow() -> None:
    table = CellTable(
        [Column("change", "left", key=True, labelled=False),
         Column("case", "left", key=True, labelled=False),
         Column("base", "left"), Column("why", "left", prose=True)]
    )  # fmt: skip
    reason = "status passed → failed; score 1 → 0 (−1) and then some more words"
    table.add_row("regressed", "flight_search_then_weather", "passed 1", reason)
    wide = rendered(table, 200)
    assert wide[2].split()[:4] == ["regressed", "flight_search_then_weather", "passed", "1"]
    # The why column is squeezed to its minimum and wraps between words.
    narrow = rendered(table, table.table_width())
    assert len(narrow) > 3 and all(len(line) <= table.table_width() for line in narrow)
    assert table.table_width() == 9 + 26 + 8 + PROSE_MIN_WIDTH + 3 * 3
    assert rendered(table, 40) == [
        "regressed  flight_search_then_weather",
        "    base passed 1 · why: status passed →",
        "    failed; score 1 → 0 (−1) and then",
        "    some more words",
    ]


def test_a_cell_wider_than_the_line_still_shows() -> None:
    table = CellTable([Column("case", "left", key=True, labelled=False), Column("score")])
    table.add_row("x" * 50, "1")
    assert rendered(table, 30) == ["x" * 30, "x" * 20, "    score 1"]


def rich_table(table: CellTable) -> Table:
    """The same rows in the rich ``Table`` the layout stands in for."""
    reference = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for column in table.columns:
        reference.add_column(
            column.header, justify=column.justify, no_wrap=not column.prose, overflow="fold"
        )
    for row in table.rows:
        reference.add_row(*row)
    return reference


def rich_table_lines(table: CellTable, width: int) -> list[str]:
    reference = rich_table(table)
    console = Console(width=width, color_system=None, record=True)
    with console.capture() as captured:
        console.print(reference)
    return [line.rstrip() for line in captured.get().splitlines()]


def prose_table() -> CellTable:
    table = CellTable(
        [Column("change", "left", key=True, labelled=False), Column("score"),
         Column("why", "left", prose=True)]
    )  # fmt: skip
    table.add_row("regressed", "0.25", "status passed → failed; score 1 → 0 and some more words")
    table.add_row("improved", "1", "short")
    table.add_row("new", "", "a reason that is long enough to wrap over three lines at least")
    return table


def wide_characters_table() -> CellTable:
    table = CellTable(
        [Column("case", "left", key=True, labelled=False), Column("score"),
         Column("why", "left", prose=True)]
    )  # fmt: skip
    table.add_row(
        "天气预报_案例", "0.5", "原因 是 很长 的 一段 文字 😀 and some english words to wrap"
    )
    table.add_row("x", "1", "")
    return table


def empty_table() -> CellTable:
    return CellTable([Column("a"), Column("b", "left")])


@pytest.mark.parametrize("make", [metric_table, prose_table, wide_characters_table, empty_table])
def test_the_table_layout_is_rich_tables_text(make: object) -> None:
    table = make()  # type: ignore[operator]
    full = sum(table._full_widths()) + 3 * (len(table.columns) - 1)
    widths = sorted({table.table_width(), table.table_width() + 7, full, full + 20})
    for width in widths:
        assert rendered(table, width) == rich_table_lines(table, width), width
    # The prose column gives way only as far as the line needs.
    assert max(map(cell_len, rendered(table, table.table_width() + 7))) == min(
        full, table.table_width() + 7
    )


def test_indent_prefixes_every_line_as_padding_did() -> None:
    table = metric_table()
    padded = rendered(table, table.table_width() + 2, indent=2)
    table.indent = 2
    assert rendered(table, table.table_width() + 2) == padded
    assert rendered(table, table.table_width() + 1) == rendered(
        metric_table(), table.table_width() + 1, indent=2
    )
    wide = CellTable([Column("case", "left", key=True, labelled=False)], indent=3)
    wide.add_row("y" * 20)
    assert rendered(wide, 13) == ["   " + "y" * 10, "   " + "y" * 10]


def test_the_rule_is_ascii_where_the_console_cannot_show_box_lines() -> None:
    def ascii_lines(renderable: object) -> list[str]:
        out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
        Console(file=out, width=100, color_system=None).print(renderable)
        out.seek(0)
        return [line.rstrip() for line in out.read().splitlines()]

    lines = ascii_lines(metric_table())
    assert set(lines[1]) == {"-", "+"}
    assert lines == ascii_lines(rich_table(metric_table()))


def test_wrong_cell_count_is_refused() -> None:
    table = CellTable([Column("a"), Column("b")])
    try:
        table.add_row("1")
    except ValueError as exc:
        assert "1 cells for 2 columns" in str(exc)
    else:
        raise AssertionError("accepted a short row")
