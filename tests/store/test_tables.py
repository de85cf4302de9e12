"""The store's tables: a row read back is checked against its columns' types."""

from __future__ import annotations

import pytest

from agenteval.store import tables


def test_a_row_is_named_only_when_it_is_damaged() -> None:
    # Readers of thousands of rows pass a function: its name is formatted for a damaged row only.
    asked: list[str] = []

    def name() -> str:
        asked.append("run 7 position 2")
        return asked[-1]

    tables.checked(tables.run_sets, name, {"run": 7, "position": 2, "document_size": 10})
    assert asked == []
    with pytest.raises(tables.DamagedRow) as raised:
        tables.checked(tables.run_sets, name, {"run": 7, "position": 2, "document_size": "x"})
    assert str(raised.value) == "run_sets run 7 position 2/document_size: 'x' is not an integer"
    assert asked == ["run 7 position 2"]


def test_a_plain_name_still_names_the_row() -> None:
    with pytest.raises(tables.DamagedRow) as raised:
        tables.checked(tables.runs, "id 3", {"started_at": None})
    assert str(raised.value) == "runs id 3/started_at: is empty (NULL)"
