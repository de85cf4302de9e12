"""The camelCase keys of the JSON agenteval writes, taken from Python attribute names.

Result files, ``diff --json`` and ``trend --json`` name their keys in camelCase
(``evalSetId``); the records behind the last two hold the same values under snake_case
attributes (``eval_set_id``).  :func:`camel_fields` turns one into the other, so a
record's ``to_json`` names the attributes it writes once instead of spelling each key
beside it.

Tested in tests/report/test_json_keys.py.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic.alias_generators import to_camel

# A handful of names, converted once each (to_camel runs regular expressions).
_camel = cache(to_camel)


def camel_fields(record: object, *names: str) -> dict[str, Any]:
    """``{"evalSetId": record.eval_set_id, …}`` for each of ``names``, in that order."""
    return {_camel(name): getattr(record, name) for name in names}


__all__ = ["camel_fields"]
