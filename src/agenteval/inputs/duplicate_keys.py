"""Keys given twice in one JSON object of an input file, located and said.

Go's ``encoding/json`` reads the last of them and so does every reader here
(formats.md §0.1 item 5: files move between agenteval and trpc-agent-go), but
silently that hides an edit: ``"threshold": 0.9, "threshold": 0`` passes every
answer.  Each such key is a warning ``file: json.path: key "threshold" given twice;
the last value (0) is used (hint)``, an error with ``--strict`` (sorted as unknown
keys are: :func:`agenteval.inputs.unknown_keys.sort_unknown`).  agenteval's own formats
(``--prices``, ``calibrate --labels``) refuse any key they do not define, and a key
given twice there too (:func:`own_format_duplicates`).

The pairs are read by the standard library's C decoder with an ``object_pairs_hook``
(:class:`PairsDecoder`): a dict built from the pairs with fewer keys than pairs is
one that held a key twice; only then is the document walked to find where that
object sits.  That hook is a Python call per object: decoding every case of a
10,000-case eval set (bench/adk_side_by_side.py's cases) with it cost 59 k instructions
a case, +10 % of ``validate``.  So it runs only when :func:`may_repeat` says a key could
repeat: the text's colons outnumber those of the parsed value's compact JSON.  That
check costs ~40 k instructions a case of that ``validate`` (5.89 G -> 6.30 G, CPU
0.79 -> 0.81 s, medians of 5) and 24 k of a ``run --jobs 1`` (18.33 G -> 18.57 G, +1.3 %).

Tested in tests/inputs/test_duplicate_keys.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from agenteval.errors import Problem
from agenteval.inputs import locations
from agenteval.inputs.safe_text import escape_control

_HINT = "Go's encoding/json reads the last one too; remove the other"
_OWN_HINT = "give each key once"
# A string value is shown unless its key may hold a secret (an API key, a URL with a
# token in it, a header): secrets never appear in messages.
_SECRET_WORDS = re.compile(r"key|token|secret|passw|auth|url|header|cookie", re.IGNORECASE)
_SHOWN = 40  # characters of a value shown


@dataclass(frozen=True, slots=True)
class DuplicateKey(Problem):
    """A key given twice (or more) in one object; a warning unless ``--strict``."""


# (the object as decoded, a key it held more than once)
Repeated = tuple[dict[str, Any], str]


class PairsDecoder:
    """The stdlib decoder that notes, in :attr:`repeated`, each object holding a key twice."""

    def __init__(self) -> None:
        self.repeated: list[Repeated] = []
        self.decoder = json.JSONDecoder(object_pairs_hook=self._object)

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        data = dict(pairs)
        if len(data) != len(pairs):
            seen: set[str] = set()
            said: set[str] = set()  # a key given three times is said once
            for key, _ in pairs:
                if key in seen and key not in said:
                    said.add(key)
                    self.repeated.append((data, key))
                seen.add(key)
        return data

    def taken(self) -> list[Repeated]:
        """The objects noted since the last call (and forgotten here)."""
        repeated, self.repeated = self.repeated, []
        return repeated


# Renders a key's location parts as a JSON path.
Render = Callable[[Iterable[int | str]], str]


def duplicate_problems(
    root: Any,
    repeated: Sequence[Repeated],
    file: str,
    base: Sequence[int | str] = (),
    *,
    render: Render = locations.render,
    hint: str = _HINT,
) -> list[DuplicateKey]:
    """The problems of ``repeated`` (objects of ``root``, decoded by a :class:`PairsDecoder`),
    in document order, each at its key's path under ``base`` (as ``render`` writes paths)."""
    if not repeated:
        return []
    wanted = {id(data) for data, _ in repeated}
    places: dict[int, list[int | str]] = {}
    _find(root, list(base), wanted, places)
    # In document order: the walk meets the objects in it (dicts keep their keys' order).
    return [
        _said(file, render([*parts, key]), data, key, hint)
        for found, parts in places.items()
        for data, key in repeated
        if id(data) == found
    ]


def _find(
    value: Any, parts: list[int | str], wanted: set[int], places: dict[int, list[int | str]]
) -> None:
    if isinstance(value, dict):
        if id(value) in wanted:
            places[id(value)] = list(parts)
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        if isinstance(item, dict | list):
            parts.append(key)
            _find(item, parts, wanted, places)
            parts.pop()


def _said(file: str, where: str, data: dict[str, Any], key: str, hint: str) -> DuplicateKey:
    quoted = escape_control(json.dumps(key, ensure_ascii=False))
    message = f"key {quoted} given twice; the last value ({_shown(key, data[key])}) is used"
    return DuplicateKey(file, where, message, hint)


def _shown(key: str, value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str) and _SECRET_WORDS.search(key):
        return "a string"
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 1] + "…"
    return escape_control(text)


def may_repeat(text: str | bytes, value: Any) -> bool:
    """False only when no object of the JSON ``text`` (or its UTF-8 bytes) holds a key
    twice (``value``: its parse); True may be wrong, never False.

    Each key of the text is followed by one colon, so the text's colons are its keys and
    the colons inside its strings; the value's compact JSON (orjson) has a colon for each
    key it kept and each one inside the strings it kept.  A dropped pair takes its key's
    colon (and those in its value) with it; only a colon written ``\\u003a`` in the text
    comes back as one more in the value, so such a text is decoded in pairs."""
    if isinstance(text, str):
        written = text.count(":")
        escaped = "\\" in text and ("\\u003a" in text or "\\u003A" in text)
    else:  # the same, on bytes (a result file's case, never decoded to text here)
        written = text.count(b":")
        escaped = b"\\" in text and (b"\\u003a" in text or b"\\u003A" in text)
    if not written:
        return False
    if escaped:
        return True
    try:
        compact = orjson.dumps(value)
    except (TypeError, ValueError):  # a lone surrogate, an integer past 64 bits: decode the pairs
        return True
    return written > compact.count(b":")


def duplicate_keys(
    text: str | bytes, file: str, base: Sequence[int | str] = (), *, value: Any = None
) -> list[DuplicateKey]:
    """The keys given twice in the JSON ``text`` (a whole file's, or a piece found at ``base``;
    ``value``: its parse, which saves the pairs' decoding when no key can repeat); [] when it
    holds none or is no JSON (its reader says why)."""
    if value is not None and not may_repeat(text, value):
        return []
    pairs = PairsDecoder()
    try:
        root = pairs.decoder.decode(text if isinstance(text, str) else text.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError too
        return []
    return duplicate_problems(root, pairs.repeated, file, base)


def own_format_duplicates(text: str, file: str, where: str = "") -> list[DuplicateKey]:
    """The keys given twice in a file of agenteval's own formats (errors there: a key is
    given once or refused), located as :mod:`agenteval.inputs.own_formats` locates keys;
    ``where``: the place of ``text`` in its file (``line 3`` of a labels file)."""
    from agenteval.inputs.own_formats import json_path

    def render(parts: Iterable[int | str]) -> str:
        path = json_path(parts)
        return f"{where}: {path}" if where and path else where or path

    pairs = PairsDecoder()
    try:
        root = pairs.decoder.decode(text)
    except (ValueError, RecursionError):
        return []
    return duplicate_problems(root, pairs.repeated, file, render=render, hint=_OWN_HINT)


__all__ = [
    "DuplicateKey",
    "PairsDecoder",
    "Repeated",
    "duplicate_keys",
    "duplicate_problems",
    "may_repeat",
    "own_format_duplicates",
]
