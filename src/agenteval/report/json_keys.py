"""The camelCase keys of the JSON agenteval writes, taken from Python attribute names.

Result files, ``diff --json``, ``trend --json`` and ``explain --json`` name their keys in
camelCase (``evalSetId``); the records behind the last three hold the same values under
snake_case attributes (``eval_set_id``).  :func:`camel` turns one into the other as the
format models' aliases do (pydantic's ``to_camel``), and :func:`camel_fields` lets a
record's ``to_json`` name the attributes it writes once instead of spelling each key
beside it.

Tested in tests/report/test_json_keys.py.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic.alias_generators import to_camel


@cache  # a few hundred names at most, each converted once (to_camel runs regular expressions)
def camel(name: str) -> str:
    """``eval_set_id`` → ``evalSetId``, as the format models' camelCase aliases."""
    return to_camel(name)


def camel_fields(record: object, *names: str) -> dict[str, Any]:
    """``{"evalSetId": record.eval_set_id, …}`` for each of ``names``, in that order."""
    return {camel(name): getattr(record, name) for name in names}


__all__ = ["camel", "camel_fields"]
