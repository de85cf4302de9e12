"""``agenteval merge``: join shard results into the result of one full run.

Parts are grouped by ``evalSetId`` (groups in order of first appearance).
Each group's case results are concatenated run by run, as a full run writes
them (formats.md §6.1: run 1 in eval-set order, then run 2, …), and the
``summary`` is rebuilt with :func:`agenteval.aggregation.build_summary`, so
it equals the summary of the unsplit run.  ``numRuns`` is the largest of the
parts' (a shard without cases still says how many runs there were).

Case order within a run: the position in ``case_order[evalSetId]`` (the
eval set file's order, when the caller has it); cases not listed there come
after, sorted by evalId.  Without ``case_order`` the order is evalId order:
it does not depend on the order the shard files were given in, which a glob
or a CI artifact download does not promise.

The same (evalSetId, evalId, runId) in two places is refused: it means two
shards overlap or a file was given twice, and no merged summary would be
right.  Every such conflict is reported, as a ConfigError.

Run-level extra keys (not read by Go) are carried over as follows:

* :data:`SUMMED_EXTRA_KEYS` (``judgeUsage``, ``durationSeconds``): numbers
  are added, nested objects merged key by key and their numbers added, so
  judge calls and tokens of all shards add up;
* :data:`ANY_TRUE_EXTRA_KEYS` (``partial``): true when any part is;
* :data:`UNION_EXTRA_KEYS` (``judgeFailures``, the INCOMPLETE evalIds): the
  ids of every part, first appearance first;
* any other key: kept when every part that has it holds the same value,
  dropped when parts disagree.

The merged result has no ``evalSetResultId``/``evalSetResultName`` (the
writer gives it a new one), ``creationTimestamp`` is the latest of the
parts', and it shares case-result objects with the parts (no deep copy).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.aggregation import INCOMPLETE_KEY, build_summary, incomplete_cases, run_id_of
from agenteval.errors import ConfigError, Problem
from agenteval.schema.result import EvalCaseResult, EvalSetResult, extra, set_extra

SUMMED_EXTRA_KEYS: tuple[str, ...] = ("judgeUsage", "durationSeconds")
ANY_TRUE_EXTRA_KEYS: tuple[str, ...] = ("partial",)
UNION_EXTRA_KEYS: tuple[str, ...] = (INCOMPLETE_KEY,)


@dataclass(frozen=True, slots=True)
class _Placed:
    """A case result and where it came from (for ordering and error messages)."""

    case: EvalCaseResult
    part: int
    index: int

    @property
    def run_id(self) -> int:
        return run_id_of(self.case)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def sum_numbers(left: Any, right: Any) -> Any:
    """Add two JSON values: numbers add, objects merge key by key; otherwise ``left`` wins."""
    if _is_number(left) and _is_number(right):
        return left + right
    if isinstance(left, dict) and isinstance(right, dict):
        merged = dict(left)
        for key, value in right.items():
            merged[key] = sum_numbers(merged[key], value) if key in merged else value
        return merged
    return left


def merge_extras(parts: Sequence[EvalSetResult]) -> dict[str, Any]:
    """Run-level extra keys of the merged result (rules in the module docstring)."""
    values: dict[str, list[Any]] = {}
    for part in parts:
        for key, value in extra(part).items():
            values.setdefault(key, []).append(value)
    merged: dict[str, Any] = {}
    for key, seen in values.items():
        if key in SUMMED_EXTRA_KEYS:
            total = seen[0]
            for value in seen[1:]:
                total = sum_numbers(total, value)
            merged[key] = total
        elif key in ANY_TRUE_EXTRA_KEYS:
            merged[key] = any(bool(value) for value in seen)
        elif key in UNION_EXTRA_KEYS:
            merged[key] = _union(parts, seen)
        elif all(value == seen[0] for value in seen[1:]):
            merged[key] = seen[0]
    return merged


def _union(parts: Sequence[EvalSetResult], seen: Sequence[Any]) -> Any:
    """The INCOMPLETE evalIds of every part (a count from an older file becomes its ids)."""
    if all(isinstance(value, list) for value in seen):
        return list(dict.fromkeys(str(i) for value in seen for i in value))
    ids = [eval_id for part in parts for eval_id in incomplete_cases(part)]
    return list(dict.fromkeys(ids))


def _num_runs(part: EvalSetResult) -> int:
    declared = part.summary.num_runs if part.summary is not None else 0
    highest = max((case.run_id for case in part.case_results()), default=0)
    return max(declared, highest, 1)


def _conflicts(
    eval_set_id: str, placed: Sequence[_Placed], sources: Sequence[str]
) -> list[Problem]:
    first: dict[tuple[str, int], _Placed] = {}
    problems: list[Problem] = []
    for item in placed:
        key = (item.case.eval_id, item.run_id)
        earlier = first.setdefault(key, item)
        if earlier is item:
            continue
        problems.append(
            Problem(
                sources[item.part],
                f"evalCaseResults[{item.index}]",
                f"case {item.case.eval_id!r} run {item.run_id} of eval set {eval_set_id!r}"
                f" is also in {sources[earlier.part]} (evalCaseResults[{earlier.index}])",
                "each case and run must come from exactly one shard",
            )
        )
    return problems


def case_ranks(order: Sequence[str], eval_ids: Iterable[str]) -> dict[str, int]:
    """Each evalId's place within a run: its position in ``order``; ids not listed come
    after, sorted by evalId."""
    rank = {eval_id: position for position, eval_id in enumerate(order)}
    unlisted = sorted(set(eval_ids) - rank.keys())
    rank.update({eval_id: len(order) + i for i, eval_id in enumerate(unlisted)})
    return rank


def _ordered(placed: Sequence[_Placed], order: Sequence[str]) -> list[EvalCaseResult]:
    rank = case_ranks(order, (p.case.eval_id for p in placed))
    return [p.case for p in sorted(placed, key=lambda p: (p.run_id, rank[p.case.eval_id]))]


def _merge_group(
    eval_set_id: str,
    members: Sequence[EvalSetResult],
    placed: Sequence[_Placed],
    order: Sequence[str],
) -> EvalSetResult:
    cases = _ordered(placed, order)
    merged = EvalSetResult(
        eval_set_id=eval_set_id,
        eval_case_results=cases,
        summary=build_summary(cases, max(_num_runs(part) for part in members)),
    )
    stamps = [part.creation_timestamp for part in members if part.creation_timestamp is not None]
    if stamps:
        merged.creation_timestamp = max(stamps)
    for key, value in merge_extras(members).items():
        set_extra(merged, key, value)
    return merged


def merge_results(
    parts: Sequence[EvalSetResult],
    *,
    case_order: Mapping[str, Sequence[str]] | None = None,
    sources: Sequence[str] | None = None,
) -> list[EvalSetResult]:
    """Join shard results into one result per evalSetId whose summary equals a full run's.

    ``case_order`` maps an evalSetId to its evalIds in eval-set file order;
    ``sources`` names the parts (file paths) in error messages.  Raises
    ConfigError listing every (evalSetId, evalId, runId) found twice.
    """
    if sources is None:
        sources = [f"part {i + 1}" for i in range(len(parts))]
    if len(sources) != len(parts):
        raise ValueError(f"{len(sources)} source names for {len(parts)} parts")
    groups: dict[str, list[int]] = {}
    for index, part in enumerate(parts):
        groups.setdefault(part.eval_set_id, []).append(index)
    placed = {
        eval_set_id: [
            _Placed(case, i, j) for i in members for j, case in enumerate(parts[i].case_results())
        ]
        for eval_set_id, members in groups.items()
    }
    problems = [
        problem
        for eval_set_id, items in placed.items()
        for problem in _conflicts(eval_set_id, items, sources)
    ]
    if problems:
        raise ConfigError(problems)
    orders = case_order or {}
    return [
        _merge_group(
            eval_set_id,
            [parts[i] for i in members],
            placed[eval_set_id],
            orders.get(eval_set_id, ()),
        )
        for eval_set_id, members in groups.items()
    ]


__all__ = [
    "ANY_TRUE_EXTRA_KEYS",
    "SUMMED_EXTRA_KEYS",
    "UNION_EXTRA_KEYS",
    "merge_extras",
    "merge_results",
    "sum_numbers",
]
