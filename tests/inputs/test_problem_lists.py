"""agenteval.inputs.problem_lists: warnings named one by one up to three, counted past that."""

from __future__ import annotations

from agenteval.errors import Problem
from agenteval.inputs.problem_lists import LISTED, NAMED, Item, first_named, listed_or_counted


def items(count: int) -> list[Item]:
    return [
        Item(f"line {i} 'x{i}'", Problem("f", f"line {i}", f"x{i} is unknown", "a hint"))
        for i in range(count)
    ]


def test_up_to_three_are_named_one_by_one() -> None:
    assert LISTED == 3
    assert [str(p) for p in listed_or_counted("f", items(3), "records", "are unknown")] == [
        "f: line 0: x0 is unknown (a hint)",
        "f: line 1: x1 is unknown (a hint)",
        "f: line 2: x2 is unknown (a hint)",
    ]
    assert listed_or_counted("f", [], "records", "are unknown") == []


def test_more_are_one_warning_with_the_count_and_the_first_three() -> None:
    (problem,) = listed_or_counted("f", items(300_000), "records", "are unknown", "see --x")
    assert str(problem) == (
        "f: 300,000 records: are unknown (the first: line 0 'x0', line 1 'x1', line 2 'x2'; "
        "see --x)"
    )


def test_names_past_ten_are_counted() -> None:
    assert NAMED == 10
    names = [f"p{i}" for i in range(64)]
    assert first_named(names) == ", ".join(names[:10]) + " … and 54 more"
    assert first_named(names[:10]) == ", ".join(names[:10])
    assert first_named(names[:11], "; ") == "; ".join(names[:10]) + " … and 1 more"
    assert first_named([]) == ""
