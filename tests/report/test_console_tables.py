"""The reason grid lays reasons out as rich's grid table does, character and style alike."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console
from rich.text import Text

from agenteval.report.console_tables import ReasonGrid, ReasonLine

WORDS = [
    "tool", "trajectory", "mismatch:", "value", "at", "$.unit:", '"fahrenheit"', "vs",
    "arguments_of_a_very_long_tool_name_that_does_not_fit_anywhere_on_a_narrow_line",
    "名前", "ü", "→", "😀", "score", "0.5", "·", "",
    # Characters rich measures apart from their neighbours: a combining accent, emoji with
    # a joiner or a variation selector, a joiner at a word's end, no-break and wide spaces;
    # and what would read as markup or an escape.
    "cafe\u0301", "👩\u200d💻", "❤\ufe0f", "x\u200d", "\xa0", "a\xa0", "\u3000", "[bold]", "[/]", "\\",
]  # fmt: skip
STYLES = [None, "bold", "dim", "red", "bold green", "italic"]


def random_line(rng: random.Random) -> ReasonLine:
    mark = Text(rng.choice(["✗", "·", "!", "x"]), style=rng.choice(STYLES) or "")
    body = Text(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40))))
    body.stylize(rng.choice(STYLES) or "")
    for _ in range(rng.randint(0, 3)):
        start = rng.randrange(len(body.plain) + 1)
        body.stylize(rng.choice(STYLES) or "", start, start + rng.randint(0, 30))
    body.append(": " + rng.choice(WORDS), style=rng.choice(STYLES))
    return ReasonLine(mark, body)


def printed(thing: object, width: int, color: bool) -> str:
    console = Console(
        file=io.StringIO(),
        width=width,
        force_terminal=color,
        color_system="truecolor" if color else None,
    )
    console.print(thing)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


@pytest.mark.parametrize("seed", range(40))
def test_the_grid_prints_what_the_table_prints(seed: int) -> None:
    rng = random.Random(seed)
    lines = [random_line(rng) for _ in range(rng.randint(1, 4))]
    grid = ReasonGrid(lines, rng.choice([0, 2, 4]))
    for width in (12, 30, 61, 80, 160):
        for color in (False, True):
            assert printed(grid, width, color) == printed(grid.table(), width, color)


def test_a_line_break_or_a_narrow_terminal_is_left_to_the_table() -> None:
    broken = ReasonGrid([ReasonLine(Text("✗"), Text("one\ntwo\tthree"))], 2)
    assert printed(broken, 40, False) == printed(broken.table(), 40, False)
    assert "two" in printed(broken, 40, False)
    narrow = ReasonGrid([ReasonLine(Text("✗"), Text("word " * 20))], 2)
    assert printed(narrow, 8, True) == printed(narrow.table(), 8, True)


def test_a_reason_that_fits_keeps_the_tables_trailing_blank() -> None:
    # More characters than cells (a combining accent) and a no-break space at the end: the
    # table's wrap cuts the end's whitespace and pads with a plain space (the log trims it).
    grid = ReasonGrid([ReasonLine(Text("✗"), Text("tool · turn 1: cafe\u0301 ok\xa0"))], 2)
    for color in (False, True):
        assert printed(grid, 80, color) == printed(grid.table(), 80, color)
    assert printed(grid, 80, False) == "  ✗ tool · turn 1: cafe\u0301 ok \n"


def test_a_zero_width_joiner_is_measured_as_the_table_measures_it() -> None:
    # rich's Text measures a joiner as hiding the character after it; the table pads and
    # crops each line by its segments, where a joiner ending a segment hides nothing (one
    # more blank after a reason ending in one; a styled part ending in one cuts the last
    # character of the line).
    ends = ReasonLine(Text("✗"), Text("a person\u200d"))
    longer = ReasonLine(Text("✗"), Text("a longer reason than the other"))
    styled = ReasonLine(Text("✗"), Text.assemble(("metric\u200d", "bold"), ": why it failed"))
    for grid in (ReasonGrid([longer, ends], 2), ReasonGrid([styled], 0)):
        for width in (20, 40, 80):
            for color in (False, True):
                assert printed(grid, width, color) == printed(grid.table(), width, color)
