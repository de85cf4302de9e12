"""What the agent under test spent, as a stored run's ``agent_*`` columns (schema version 3).

A run's ``agentUsage`` is the sum of its eval sets' (``api.evaluation`` adds them up so), so
the writer sums its eval sets' through :class:`~agenteval.results.agent_usage.AgentUsage`,
whose dollars are Decimal: a stored ``agent_cost_usd`` is the float the run document's
``agentUsage.costUsd`` holds, digit for digit.  A logical run sums its members' the same way
(:func:`summed_usage`).  The columns are NULL when no turn reported usage (unknown, never 0), and
``agent_cost_usd`` is NULL too when any turn had no price (``tables._agent_usage``).

Tested in tests/store/test_agent_spend.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from agenteval.results.agent_usage import COUNTS, AgentUsage, summed_usd
from agenteval.store import tables

# runs column → the agentUsage key it holds (the same order).
COLUMN_KEYS = {f"agent_{name}": key for name, key in zip(tables.AGENT_COUNTS, COUNTS, strict=True)}
COST_COLUMN = "agent_cost_usd"
COLUMNS = (*COLUMN_KEYS, COST_COLUMN)
# The key a run's or an eval set's result document holds it under.
KEY = b'"agentUsage"'


def agent_columns(parts: Iterable[object]) -> dict[str, Any]:
    """The ``agent_*`` column values of the ``agentUsage`` objects ``parts`` summed (eval
    sets'); all None when none carries usage."""
    total = AgentUsage()
    for part in parts:
        total.add(part)
    if not total.active:
        return dict.fromkeys(COLUMNS)
    spent = total.to_json()
    values: dict[str, Any] = {column: spent[key] for column, key in COLUMN_KEYS.items()}
    values[COST_COLUMN] = None if spent["unpricedTurns"] else spent["costUsd"]
    return values


def agent_usage_of(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The stored columns as ``agentUsage`` JSON (``costUsd`` None: unknown); None: no usage."""
    if row["agent_turns"] is None:
        return None
    usage: dict[str, Any] = {key: int(row[column] or 0) for column, key in COLUMN_KEYS.items()}
    cost = row[COST_COLUMN]
    usage["costUsd"] = None if cost is None else float(cost)
    return usage


def summed_usage(parts: Iterable[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """Several runs' :func:`agent_usage_of` added up (a run group's); None when none has usage.

    Dollars in Decimal as ``AgentUsage`` adds them; unknown when any member's is unknown.
    """
    found = [part for part in parts if part]
    if not found:
        return None
    usage: dict[str, Any] = {key: sum(int(part[key]) for part in found) for key in COUNTS}
    costs = [part["costUsd"] for part in found]
    if usage["unpricedTurns"] or any(cost is None for cost in costs):
        usage["costUsd"] = None
    else:
        usage["costUsd"] = summed_usd(costs)
    return usage


def document_keys_usage(document_keys: str) -> object:
    """The ``agentUsage`` of a run's stored trailer (``runs.document_keys``), else None."""
    try:
        keys = json.loads(document_keys)
    except ValueError:
        return None
    trailer = keys.get("trailer") if isinstance(keys, dict) else None
    return trailer.get("agentUsage") if isinstance(trailer, dict) else None


def top_level_usage(pieces: Iterable[bytes]) -> object:
    """The top-level ``agentUsage`` of a result document read in pieces; None when it has none.

    The eval set's key is written after its cases (each with an ``agentUsage`` of its own),
    so it is the document's last occurrence of the key: only the bytes from the latest
    occurrence on are kept (the trailer: a few hundred bytes), never the whole document.
    ``"agentUsage"`` followed by a quote cannot occur inside a JSON string (it would be
    escaped), so every occurrence is a key; it is the top-level one when what follows it
    closes the document's object.
    """
    tail = bytearray()
    seen = False
    for piece in pieces:
        start = max(0, len(tail) - len(KEY) + 1)
        tail += piece
        at = tail.rfind(KEY, start)
        if at >= 0:
            del tail[:at]
            seen = True
        elif not seen:
            del tail[: max(0, len(tail) - len(KEY) + 1)]
    return _closing_value(tail[len(KEY) :].decode("utf-8", "replace")) if seen else None


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _closing_value(text: str) -> object:
    """The value after ``: `` in ``text`` when the rest of ``text`` is only further keys of the
    same object and its closing brace (it is then the top level's); else None."""
    decoder = json.JSONDecoder()
    at = _skip(text, 0)
    if not text.startswith(":", at):
        return None
    try:
        value, at = decoder.raw_decode(text, _skip(text, at + 1))
        while True:
            at = _skip(text, at)
            if text.startswith("}", at):
                return value if not text[at + 1 :].strip() else None
            if not text.startswith(",", at):
                return None
            name, at = decoder.raw_decode(text, _skip(text, at + 1))
            at = _skip(text, at)
            if not isinstance(name, str) or not text.startswith(":", at):
                return None
            _, at = decoder.raw_decode(text, _skip(text, at + 1))
    except ValueError:
        return None


__all__ = [
    "COLUMNS",
    "COLUMN_KEYS",
    "COST_COLUMN",
    "agent_columns",
    "agent_usage_of",
    "document_keys_usage",
    "summed_usage",
    "top_level_usage",
]
