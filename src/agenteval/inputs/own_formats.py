"""Located problems for agenteval's own input formats (``--prices``, ``calibrate --labels``).

These formats are not trpc-agent-go's, so nothing obliges us to ignore a key we do not
define: every unknown key is an error, with the closest defined key as its hint (a
near miss such as ``inputPerMilion`` is exactly the mistake worth stopping for).  JSON
paths quote keys that are not plain names (``["openai:gpt-4.1"].inputPerMillion``).

Tested in tests/checks/test_own_formats.py.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from agenteval.errors import Problem

_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# Pydantic's own location parts that are not JSON keys (dict-key validation, union arms).
_NOT_KEYS = ("[key]", "function-", "union[", "lax-or-strict", "json-or-python", "nullable")


def json_path(parts: Iterable[int | str]) -> str:
    """``evalSetId``, ``[3]``, ``["openai:gpt-4.1"].inputPerMillion`` from location parts."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part.startswith(_NOT_KEYS):
            continue
        elif _PLAIN_KEY.match(part):
            out.append(f".{part}" if out else part)
        else:
            quoted = part.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'["{quoted}"]')
    return "".join(out)


def closest(key: str, known: Sequence[str]) -> str:
    """The defined key ``key`` most likely meant, or ""."""
    folded = {k.lower().replace("_", ""): k for k in known}
    same = folded.get(key.lower().replace("_", "").replace("-", ""))
    if same:
        return same
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return close[0] if close else ""


def strict_problems(
    file: str,
    error: ValidationError,
    known_keys: Sequence[str],
    prefix: Sequence[int | str] = (),
    messages: dict[str, str] | None = None,
) -> list[Problem]:
    """One problem per error of ``error``; unknown keys name the closest of ``known_keys``.

    ``messages`` replaces pydantic's wording for an error type (``{"missing": ...}``).
    """
    problems: list[Problem] = []
    for item in error.errors():
        kind = item["type"]
        loc = [*prefix, *item["loc"]]
        if kind == "json_invalid":
            detail = item.get("ctx", {}).get("error", item["msg"])
            problems.append(Problem(file, json_path(prefix), f"invalid JSON: {detail}"))
            continue
        if kind == "extra_forbidden":
            key = str(loc[-1])
            near = closest(key, known_keys)
            hint = f"did you mean {near!r}?" if near else "known: " + ", ".join(known_keys)
            problems.append(Problem(file, json_path(loc), "unknown key", hint))
            continue
        if "[key]" in [str(part) for part in item["loc"]]:
            wording = (messages or {}).get("key") or item["msg"]
            problems.append(Problem(file, json_path(loc), f"bad key: {wording}"))
            continue
        message = (messages or {}).get(kind) or _wording(item)
        problems.append(Problem(file, json_path(loc), message))
    return problems


def _wording(item: Any) -> str:
    """Pydantic's message, shorter for the errors these formats meet most."""
    kind, ctx, value = item["type"], item.get("ctx") or {}, item.get("input")
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])  # a validator's own words, without pydantic's "Value error, "
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = next(iter(ctx.values()), "")
        bound = f"{bound:g}" if isinstance(bound, int | float) else bound
        words = {
            "greater_than_equal": "at least",
            "greater_than": "more than",
            "less_than_equal": "at most",
            "less_than": "less than",
        }[kind]
        return f"must be {words} {bound}, got {value!r}"
    return str(item["msg"])


__all__ = ["closest", "json_path", "strict_problems"]
