"""``--shard I/N``: a stable split of eval cases across N machines.

A case belongs to shard ``int.from_bytes(sha256(evalSetId + "\\0" + evalId)[:8], "big") % N + 1``
(UTF-8, big-endian, shards numbered from 1).  The hash depends only on the
two ids, never on Python's per-process ``hash`` seed, the file order or the
other cases, so every machine of a CI matrix computes the same split and a
case keeps its shard when cases are added or removed.  The NUL separator
keeps ``("a", "bc")`` and ``("ab", "c")`` apart.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

_SHARD_RE = re.compile(r"\s*(?P<index>[^/\s]+)\s*/\s*(?P<count>[^/\s]+)\s*")


@dataclass(frozen=True, slots=True)
class Shard:
    """One shard of N: ``index`` counts from 1."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


class HasEvalId(Protocol):
    """Anything carrying an evalId (an ``EvalCase``, an ``EvalCaseResult``)."""

    @property
    def eval_id(self) -> str: ...


CaseT = TypeVar("CaseT", bound=HasEvalId)


def _check(index: int, count: int) -> None:
    if count < 1:
        raise ValueError(f"shard count must be at least 1, got {count}")
    if not 1 <= index <= count:
        raise ValueError(
            f"shard index must be within 1..{count} (shards count from 1), got {index}"
        )


def shard_of(eval_set_id: str, eval_id: str, count: int) -> int:
    """The shard (1..count) a case belongs to; stable across processes and machines."""
    if count < 1:
        raise ValueError(f"shard count must be at least 1, got {count}")
    key = f"{eval_set_id}\0{eval_id}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(key).digest()
    # 64 bits make the modulo bias immeasurable for any realistic N.
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str) -> Shard:
    """Parse ``"I/N"`` (1 ≤ I ≤ N) into a Shard; ValueError with a readable message otherwise."""
    match = _SHARD_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"shard must look like I/N, for example 1/4, got {text!r}")
    values: list[int] = []
    for part in ("index", "count"):
        raw = match.group(part)
        # int() would also take "+1", "1_0" and non-ASCII digits; a shard spec is plain digits.
        if not (raw.isascii() and raw.isdigit()):
            raise ValueError(
                f"shard {part} must be a positive whole number, got {raw!r} in {text!r}"
            )
        values.append(int(raw))
    index, count = values
    _check(index, count)
    return Shard(index, count)


def select(cases: Iterable[CaseT], eval_set_id: str, index: int, count: int) -> list[CaseT]:
    """The cases of one eval set that belong to shard ``index`` of ``count``, in input order."""
    _check(index, count)
    return [case for case in cases if shard_of(eval_set_id, case.eval_id, count) == index]


__all__ = ["HasEvalId", "Shard", "parse_shard", "select", "shard_of"]
