"""Run notes: warnings as reports show them (a flood stays a few lines), why a run is unfinished."""

from __future__ import annotations

from agenteval.errors import Problem
from agenteval.report.run_notes import (
    SHOWN_PER_KIND,
    SHOWN_SAVED,
    RunNotes,
    bounded_saved,
    collapse,
    count_text,
    represented,
    warning_count,
    warning_kind,
)


def unknown_key(index: int, key: str = "tool_calls") -> Problem:
    return Problem(
        "s.evalset.json",
        f"evalCases[{index}].conversation[0].{key}",
        f"{key!r} is not a field of Invocation",
        "did you mean 'tools'?",
    )


def span(span_id: str) -> Problem:
    return Problem("t.otlp.json", "", f"span {span_id} belongs to no session; not imported")


def test_names_ids_and_numbers_do_not_make_a_new_kind() -> None:
    assert warning_kind(unknown_key(1)) == warning_kind(unknown_key(7, "reslt"))
    assert warning_kind(span("5b8aa5a2d2c872e8")) == warning_kind(span("00f067aa0ba902b7"))
    assert warning_kind(unknown_key(1)) != warning_kind(span("5b8aa5a2d2c872e8"))
    other_file = Problem("o.json", "", "span 1 belongs to no session; not imported")
    assert warning_kind(other_file) != warning_kind(span("1"))


def test_a_flood_of_300000_is_bounded_and_counted() -> None:
    flood = [span(f"{i:016x}") for i in range(300_000)]
    shown = collapse(flood)
    assert len(shown) == SHOWN_PER_KIND + 1
    assert shown[:SHOWN_PER_KIND] == flood[:SHOWN_PER_KIND]
    assert str(shown[-1]) == "t.otlp.json: … and 299,990 more like this"
    assert warning_count(flood) == 300_000
    assert count_text(300_000) == "300,000 warnings"
    assert count_text(1) == "1 warning"


def test_kinds_keep_their_order_and_each_count_follows_its_last_shown_warning() -> None:
    keys = [unknown_key(i) for i in range(SHOWN_PER_KIND + 2)]
    spans = [span(str(i)) for i in range(SHOWN_PER_KIND + 5)]
    lone = Problem("m.json", "[0].threshold", "no threshold")
    mixed = [x for pair in zip(keys, spans, strict=False) for x in pair] + spans[len(keys) :]
    shown = [str(p) for p in collapse([lone, *mixed])]
    assert shown[0] == str(lone)
    # The tenth key warning comes before the tenth span warning, so its count line does too.
    assert shown.index("s.evalset.json: … and 2 more like this") < shown.index(
        "t.otlp.json: … and 5 more like this"
    )
    assert len(shown) == 1 + 2 * SHOWN_PER_KIND + 2


def test_an_exact_repeat_is_shown_and_counted_once() -> None:
    warning = Problem("m.json", "[1].threshold", "no threshold")
    assert collapse([warning, warning]) == [warning]
    assert warning_count([warning, warning]) == 1


def test_a_few_of_a_kind_are_all_shown() -> None:
    few = [unknown_key(i) for i in range(SHOWN_PER_KIND)]
    assert collapse(few) == few


def test_run_notes_hold_the_collapsed_warnings_their_count_and_why_unfinished() -> None:
    flood = [span(str(i)) for i in range(25)]
    notes = RunNotes.of([*flood, flood[0]], ["interrupted"])
    assert notes.warning_count == 25
    assert len(notes.lines()) == SHOWN_PER_KIND + 1
    assert notes.lines()[-1] == "t.otlp.json: … and 15 more like this"
    assert notes.unfinished == ("interrupted",)


def test_a_counting_line_stands_for_its_count_any_other_line_for_itself() -> None:
    (line,) = collapse([span(f"{i:04x}") for i in range(1_234 + SHOWN_PER_KIND)])[-1:]
    assert line == Problem("t.otlp.json", "", "… and 1,234 more like this")
    assert represented(line) == 1_234
    assert represented(span("00ff")) == 1
    assert represented(Problem("f", "a.b", "… and 7 more like this")) == 1  # a path: no count


def test_saved_lines_past_the_bound_are_counted_by_the_warnings_they_stand_for() -> None:
    files = [Problem(f"t{i}.json", "", "span kind 'x' not mapped") for i in range(SHOWN_SAVED + 3)]
    counted = Problem("s.evalset.json", "", "… and 2,000 more like this")
    lines = [unknown_key(1), unknown_key(1), *files, counted]
    shown, total = bounded_saved("run.json", lines)
    assert total == 1 + len(files) + 2_000  # the exact repeat once, the counting line 2,000
    assert shown[:-1] == [unknown_key(1), *files[: SHOWN_SAVED - 1]]
    assert shown[-1] == Problem(
        "run.json",
        "",
        f"… and {4 + 2_000:,} more warnings of its run",
        'its "warnings" list has every line; --verbose prints them',
    )
    assert bounded_saved("run.json", lines, None) == ([unknown_key(1), *files, counted], total)
    assert bounded_saved("run.json", files[:3]) == (files[:3], 3)


def test_saved_notes_put_each_document_first_and_count_everything() -> None:
    saved = {"a.json": [Problem("x.json", "", "… and 5 more like this")], "b.json": [span("1")]}
    notes = RunNotes.of_saved(saved, [span("2"), span("2")], ["interrupted"])
    assert notes == RunNotes([*saved["a.json"], span("1"), span("2")], 5 + 1 + 1, ("interrupted",))


def test_saved_notes_bound_the_warnings_found_reading_the_files() -> None:
    """show printed every warning its readers found (a file with 300 unknown keys, 300
    lines); they come under the bound every command's warnings have."""
    found = [Problem(f"r{i}.json", f"evalCaseResults[{i}].zzz", "unknown key") for i in range(300)]
    notes = RunNotes.of_saved({}, found)
    assert notes.warnings[:SHOWN_SAVED] == found[:SHOWN_SAVED]
    assert notes.warnings[SHOWN_SAVED:] == [
        Problem(
            "reading the results",
            "",
            f"… and {300 - SHOWN_SAVED} more warnings",
            "--verbose prints them",
        )
    ]
    assert notes.warning_count == 300  # the final line still counts every one
    assert RunNotes.of_saved({}, found, limit=None).warnings == found
