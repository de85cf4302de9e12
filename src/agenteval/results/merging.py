"""``agenteval merge``: join shard results into the result of one full run.

Parts are grouped by ``evalSetId`` (groups in order of first appearance).
Each group's case results are concatenated run by run, as a full run writes
them (formats.md §6.1: run 1 in eval-set order, then run 2, …), and the
``summary`` is rebuilt with :func:`agenteval.results.aggregation.build_summary`, so
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

* :data:`SUMMED_EXTRA_KEYS` (``judgeUsage``, ``agentUsage``, ``durationSeconds``):
  numbers are added, nested objects merged key by key and their numbers added, so
  judge calls and tokens, and the agent's, of all shards add up;
* :data:`ANY_TRUE_EXTRA_KEYS` (``partial``): true when any part is;
* :data:`UNION_EXTRA_KEYS` (``judgeFailures``, the INCOMPLETE evalIds): the
  ids of every part, first appearance first;
* any other key: kept when every part that has it holds the same value,
  dropped when parts disagree;
* ``fingerprint`` (:mod:`agenteval.results.fingerprints`): the parts' own, without the shard.

``agenteval merge`` passes a :class:`Completeness` and gets more checks (issue 21):

* every part of an eval set carries the same fingerprint, the shard aside (results
  of other eval set, metric or traces files, or driven by another agent, are refused); parts with fingerprints
  and parts without (older files, trpc-agent-go's) are refused together, and parts
  without any keep the merge as it always was;
* shards: when a part is a shard ``I/N``, every shard 1..N must be there, all of N;
* every part of an eval set scored with the same number of runs (``numRuns``);
* with ``--evalset``: every case of the eval set in every run, and an eval set file
  whose bytes are not those the results were scored on is refused.

A missing shard or case is an error naming them, unless ``allow_partial``: then the
merge goes on, the problems come back as warnings and the merged eval set is marked
``partial`` (never green: ``show`` and ``merge`` exit 3 on it).

The merged result has no ``evalSetResultId``/``evalSetResultName`` (the
writer gives it a new one) and ``creationTimestamp`` is the latest of the
parts'.

The parts are case sources (:mod:`agenteval.inputs.case_sources`): :func:`plan_merge`
decides everything from their heads and their cases' evalIds and runIds, and
:meth:`MergedSet.cases` reads the cases in merged order one at a time (``merge``
writes them into the result document as they come, ``--resume`` hands them to the
run); :func:`merge_results` is the fold of that into whole results.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, Unpack

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.case_sources import CaseSource, HeldResult
from agenteval.results.aggregation import (
    INCOMPLETE_KEY,
    any_not_evaluated,
    build_summary,
    incomplete_ids,
    uses_custom_aggregator,
)
from agenteval.results.fingerprints import differences, joined, without_shard
from agenteval.results.sharding import Shard, parse_shard
from agenteval.schema.result import EvalCaseResult, EvalSetResult, Fingerprint, extra, set_extra

SUMMED_EXTRA_KEYS: tuple[str, ...] = ("judgeUsage", "agentUsage", "durationSeconds")
ANY_TRUE_EXTRA_KEYS: tuple[str, ...] = ("partial",)
UNION_EXTRA_KEYS: tuple[str, ...] = (INCOMPLETE_KEY,)
FINGERPRINT_KEY = "fingerprint"
# Missing evalIds named in one message before the rest are counted.
LISTED_MISSING = 10
PARTIAL_HINT = "give every shard's result files, or --allow-partial to merge what is there"


@dataclass(frozen=True, slots=True)
class EvalSetFile:
    """An eval set file given to ``merge --evalset``: where, its digest, every evalId in order."""

    path: str
    digest: str
    eval_ids: Sequence[str]


@dataclass(slots=True)
class Completeness:
    """What ``agenteval merge`` checks beyond overlaps (module docstring).

    ``eval_sets``: the ``--evalset`` files by evalSetId.  After :func:`plan_merge`,
    ``warnings`` holds what was missing when ``allow_partial`` let the merge go on.
    """

    eval_sets: Mapping[str, EvalSetFile] = field(default_factory=dict)
    allow_partial: bool = False
    warnings: list[Problem] = field(default_factory=list)


class MergeOptions(TypedDict, total=False):
    """The keyword options :func:`plan_merge` takes and :func:`merge_results` passes on."""

    case_order: Mapping[str, Sequence[str]] | None
    sources: Sequence[str] | None
    complete: Completeness | None


@dataclass(frozen=True, slots=True)
class _Placed:
    """A case result by where it is: its part, its index there, its evalId and runId."""

    part: int
    index: int
    eval_id: str
    run_id: int


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def sum_numbers(left: Any, right: Any) -> Any:
    """Add two JSON values: numbers add, objects merge key by key, lists are united
    (``unpricedModels``: every part's, first appearance first); otherwise ``left`` wins."""
    if _is_number(left) and _is_number(right):
        return left + right
    if isinstance(left, list) and isinstance(right, list):
        return [*left, *(item for item in right if item not in left)]
    if isinstance(left, dict) and isinstance(right, dict):
        merged = dict(left)
        for key, value in right.items():
            merged[key] = sum_numbers(merged[key], value) if key in merged else value
        return merged
    return left


def merge_extras(parts: Sequence[EvalSetResult | CaseSource]) -> dict[str, Any]:
    """Run-level extra keys of the merged result (rules in the module docstring)."""
    sources = _sources(parts)
    values: dict[str, list[Any]] = {}
    for part in sources:
        for key, value in extra(part.head).items():
            values.setdefault(key, []).append(value)
    merged: dict[str, Any] = {}
    for key, seen in values.items():
        if key == FINGERPRINT_KEY:
            continue  # the caller's: plan_merge checks and sets it
        if key in SUMMED_EXTRA_KEYS:
            total = seen[0]
            for value in seen[1:]:
                total = sum_numbers(total, value)
            merged[key] = total
        elif key in ANY_TRUE_EXTRA_KEYS:
            merged[key] = any(bool(value) for value in seen)
        elif key in UNION_EXTRA_KEYS:
            merged[key] = _union(sources, seen)
        elif all(value == seen[0] for value in seen[1:]):
            merged[key] = seen[0]
    return merged


def part_incomplete_ids(part: CaseSource) -> list[str]:
    """A part's INCOMPLETE evalIds (aggregation.incomplete_ids of its cases, read for it)."""
    not_evaluated = (c.eval_id for c in part.cases() if any_not_evaluated(c))
    return incomplete_ids(part.head.judge_failures, not_evaluated)


def _union(parts: Sequence[CaseSource], seen: Sequence[Any]) -> Any:
    """The INCOMPLETE evalIds of every part (a count from an older file becomes its ids)."""
    if all(isinstance(value, list) for value in seen):
        return list(dict.fromkeys(str(i) for value in seen for i in value))
    ids = [eval_id for part in parts for eval_id in part_incomplete_ids(part)]
    return list(dict.fromkeys(ids))


def _run_id(written: int) -> int:
    """A runId as aggregation.run_id_of reads it: files without run ids hold one run."""
    return written if written > 0 else 1


def _num_runs(part: CaseSource) -> int:
    summary = part.head.summary
    declared = summary.num_runs if summary is not None else 0
    highest = max(part.run_ids, default=0)
    return max(declared, highest, 1)


_SHARD_HINT = "each case and run must come from exactly one shard"


def _conflicts(
    eval_set_id: str, placed: Sequence[_Placed], sources: Sequence[str], hint: str = _SHARD_HINT
) -> list[Problem]:
    first: dict[tuple[str, int], _Placed] = {}
    problems: list[Problem] = []
    for item in placed:
        key = (item.eval_id, item.run_id)
        earlier = first.setdefault(key, item)
        if earlier is item:
            continue
        problems.append(
            Problem(
                sources[item.part],
                f"evalCaseResults[{item.index}]",
                f"case {item.eval_id!r} run {item.run_id} of eval set {eval_set_id!r}"
                f" is also in {sources[earlier.part]} (evalCaseResults[{earlier.index}])",
                hint,
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


def _ordered(placed: Sequence[_Placed], order: Sequence[str]) -> list[_Placed]:
    rank = case_ranks(order, (p.eval_id for p in placed))
    return sorted(placed, key=lambda p: (p.run_id, rank[p.eval_id]))


def group_fingerprint(
    eval_set_id: str, members: Sequence[CaseSource], sources: Sequence[str]
) -> tuple[Fingerprint | None, list[Problem]]:
    """The fingerprint the parts of one eval set share (the shard aside), or the problems.

    None without problems: no part has one (files of older versions, trpc-agent-go's).
    """
    first = next((i for i, part in enumerate(members) if part.head.fingerprint), None)
    if first is None:
        return None, []
    reference = members[first].head.fingerprint
    assert reference is not None
    problems: list[Problem] = []
    for index, part in enumerate(members):
        if part.head.fingerprint is None:
            problems.append(
                Problem(
                    sources[index],
                    "",
                    f"eval set {eval_set_id!r} has no fingerprint here, so it cannot be shown "
                    f"to be scored on the inputs of {sources[first]}",
                    "merge results of one agenteval version and run",
                )
            )
            continue
        changed = differences(reference, part.head.fingerprint)
        if changed:
            problems.append(
                Problem(
                    sources[index],
                    FINGERPRINT_KEY,
                    f"eval set {eval_set_id!r} was scored on other inputs than in "
                    f"{sources[first]}: {joined(changed)}",
                    "merge only shards of one run; score the others again",
                )
            )
    return without_shard(reference), problems


def _shards(
    eval_set_id: str, members: Sequence[CaseSource], sources: Sequence[str]
) -> tuple[list[Problem], list[Problem]]:
    """(errors, missing): parts that are no shard of the same N, and the missing shards."""
    found: list[tuple[int, Shard | None]] = []
    for index, part in enumerate(members):
        text = part.head.fingerprint.shard if part.head.fingerprint is not None else None
        try:
            found.append((index, parse_shard(text) if text is not None else None))
        except ValueError as exc:
            return [Problem(sources[index], "fingerprint.shard", str(exc))], []
    shards = [(index, shard) for index, shard in found if shard is not None]
    if not shards:
        return [], []
    count = shards[0][1].count
    errors = [
        Problem(
            sources[index],
            "fingerprint.shard",
            f"eval set {eval_set_id!r} is shard {shard} here but shard "
            f"{shards[0][1]} in {sources[shards[0][0]]}: shards of different splits",
            "merge the shards of one --shard I/N split",
        )
        for index, shard in shards
        if shard.count != count
    ]
    errors += [
        Problem(
            sources[index],
            "",
            f"eval set {eval_set_id!r} is no shard here, while other parts are shards of {count}",
            "merge the shards' own result files",
        )
        for index, shard in found
        if shard is None
    ]
    if errors:
        return errors, []
    have = {shard.index for _, shard in shards}
    lost = [f"{index}/{count}" for index in range(1, count + 1) if index not in have]
    if not lost:
        return [], []
    held = ", ".join(f"{index}/{count}" for index in sorted(have))
    noun = "shard" if len(lost) == 1 else "shards"
    verb = "is" if len(lost) == 1 else "are"
    return [], [
        Problem(
            "merge",
            "",
            f"eval set {eval_set_id!r}: {noun} {', '.join(lost)} {verb} missing (given: {held})",
            PARTIAL_HINT,
        )
    ]


def _other_run_counts(
    eval_set_id: str, members: Sequence[CaseSource], sources: Sequence[str]
) -> list[Problem]:
    """Parts scored with another ``--num-runs`` than the first: merged, the cases of the
    fewer runs would lack runs and pass@k and the verdicts would be computed on them."""
    counts = [_num_runs(part) for part in members]
    return [
        Problem(
            sources[index],
            "summary.numRuns",
            f"eval set {eval_set_id!r} was scored with --num-runs {count} here but "
            f"{counts[0]} in {sources[0]}",
            "merge the shards of one run, scored with one --num-runs",
        )
        for index, count in enumerate(counts)
        if count != counts[0]
    ]


def _missing_cases(
    eval_set_id: str, expected: EvalSetFile, placed: Sequence[_Placed], num_runs: int
) -> list[Problem]:
    """The cases of the --evalset file not in every run of the parts, as one problem."""
    have = {(item.eval_id, item.run_id) for item in placed}
    lost = [
        eval_id
        for eval_id in dict.fromkeys(expected.eval_ids)
        if any((eval_id, run) not in have for run in range(1, num_runs + 1))
    ]
    if not lost:
        return []
    named = ", ".join(lost[:LISTED_MISSING])
    more = f" and {len(lost) - LISTED_MISSING} more" if len(lost) > LISTED_MISSING else ""
    total = len(dict.fromkeys(expected.eval_ids))
    runs = f" in all {num_runs} runs" if num_runs > 1 else ""
    return [
        Problem(
            "merge",
            "",
            f"eval set {eval_set_id!r}: {len(lost)} of {total} cases of {expected.path} "
            f"have no result{runs}: {named}{more}",
            PARTIAL_HINT,
        )
    ]


def _check_group(
    eval_set_id: str,
    members: Sequence[CaseSource],
    sources: Sequence[str],
    placed: Sequence[_Placed],
    complete: Completeness,
) -> tuple[list[Problem], list[Problem]]:
    """(errors, missing) of one eval set's parts under ``merge``'s checks."""
    reference, errors = group_fingerprint(eval_set_id, members, sources)
    shard_errors, missing = _shards(eval_set_id, members, sources)
    errors += shard_errors + _other_run_counts(eval_set_id, members, sources)
    expected = complete.eval_sets.get(eval_set_id)
    if expected is not None:
        if reference is not None and reference.eval_set != expected.digest:
            errors.append(
                Problem(
                    expected.path,
                    "",
                    f"not the eval set file the results of {eval_set_id!r} were scored on "
                    "(its content differs)",
                    "give the eval set file of that run, or score it again",
                )
            )
        runs = max(_num_runs(part) for part in members)
        missing += _missing_cases(eval_set_id, expected, placed, runs)
    return errors, missing


@dataclass(slots=True)
class MergedSet:
    """One eval set of a merge: its head (run state, no cases), run count, and cases in order.

    ``head`` has the merged extras, the latest ``creationTimestamp``, the shared
    fingerprint and ``partial`` when shards or cases are missing; no summary (the
    writer builds it from the cases).
    """

    head: EvalSetResult
    num_runs: int
    members: list[CaseSource]
    order: list[_Placed]

    @property
    def eval_set_id(self) -> str:
        """The merged eval set's id."""
        return self.head.eval_set_id

    @property
    def case_count(self) -> int:
        """How many case results the merge holds."""
        return len(self.order)

    def case_keys(self) -> Iterator[tuple[int, str]]:
        """(runId, evalId) of each case result, in merged order, without reading one."""
        return ((placed.run_id, placed.eval_id) for placed in self.order)

    def cases(self, problems: list[Problem] | None = None) -> Iterator[EvalCaseResult]:
        """The case results in merged order, each read when reached (problems as in
        :meth:`CaseSource.cases`).  Each part is read in one pass, all parts in step."""
        found: list[Problem] = [] if problems is None else problems
        before = len(found)
        wanted: list[list[int]] = [[] for _ in self.members]
        for placed in self.order:
            wanted[placed.part].append(placed.index)
        readers = [
            member.read_cases(found, indices)
            for member, indices in zip(self.members, wanted, strict=True)
        ]
        try:
            for placed in self.order:
                case = next(readers[placed.part])
                if case is not None:
                    yield case
        finally:
            for reader in readers:
                close = getattr(reader, "close", None)
                if close is not None:
                    close()  # the parts' files, also when the caller stops early
        if problems is None and len(found) > before:
            raise ConfigError(found)

    def sorted_by(self, case_order: Sequence[str]) -> MergedSet:
        """The same merge with its cases in ``case_order`` within each run (module docstring)."""
        return MergedSet(self.head, self.num_runs, self.members, _ordered(self.order, case_order))

    def whole(self, problems: list[Problem] | None = None) -> EvalSetResult:
        """The merged result whole, its summary rebuilt (the fold of :meth:`cases`)."""
        cases = list(self.cases(problems))
        merged = self.head.model_copy()
        merged.eval_case_results = cases
        merged.summary = build_summary(
            cases, self.num_runs, custom_aggregator=uses_custom_aggregator(merged)
        )
        return merged


def _merged_head(
    eval_set_id: str, members: Sequence[CaseSource], sources: Sequence[str]
) -> EvalSetResult:
    head = EvalSetResult(eval_set_id=eval_set_id)
    stamps = [m.head.creation_timestamp for m in members if m.head.creation_timestamp is not None]
    if stamps:
        head.creation_timestamp = max(stamps)
    for key, value in merge_extras(members).items():
        set_extra(head, key, value)
    reference, disagree = group_fingerprint(eval_set_id, members, sources)
    if reference is not None and not disagree:
        head.fingerprint = reference
    return head


def _sources(parts: Sequence[EvalSetResult | CaseSource]) -> list[CaseSource]:
    return [HeldResult(p) if isinstance(p, EvalSetResult) else p for p in parts]


def _names(parts: Sequence[CaseSource], sources: Sequence[str] | None) -> Sequence[str]:
    """The parts' names in problems: ``sources``, else each part's own (``part N``)."""
    if sources is None:
        sources = [m.source or f"part {i + 1}" for i, m in enumerate(parts)]
    if len(sources) != len(parts):
        raise ValueError(f"{len(sources)} source names for {len(parts)} parts")
    return sources


def _placements(
    parts: Sequence[CaseSource],
) -> tuple[dict[str, list[int]], dict[str, list[_Placed]]]:
    """The parts of each evalSetId, and each one's case results by where they are."""
    groups: dict[str, list[int]] = {}
    for index, part in enumerate(parts):
        groups.setdefault(part.head.eval_set_id, []).append(index)
    placed = {
        eval_set_id: [
            _Placed(position, j, eval_id, _run_id(run_id))
            for position, i in enumerate(members)
            for j, (eval_id, run_id) in enumerate(
                zip(parts[i].eval_ids, parts[i].run_ids, strict=True)
            )
        ]
        for eval_set_id, members in groups.items()
    }
    return groups, placed


def repeated_cases(parts: Sequence[CaseSource], hint: str) -> list[Problem]:
    """Every (evalSetId, evalId, runId) found a second time among ``parts``, located, with
    ``hint``: the check ``plan_merge`` makes, for readers of several results (``diff``)."""
    sources = _names(parts, None)
    groups, placed = _placements(parts)
    return [
        problem
        for eval_set_id, items in placed.items()
        for problem in _conflicts(
            eval_set_id, items, [sources[i] for i in groups[eval_set_id]], hint
        )
    ]


def plan_merge(
    parts: Sequence[EvalSetResult | CaseSource],
    *,
    case_order: Mapping[str, Sequence[str]] | None = None,
    sources: Sequence[str] | None = None,
    complete: Completeness | None = None,
) -> list[MergedSet]:
    """Plan the join of shard results into one result per evalSetId (no case is read).

    ``case_order`` maps an evalSetId to its evalIds in eval-set file order;
    ``sources`` names the parts (file paths) in error messages (default: the parts'
    own); ``complete``: the checks of ``agenteval merge`` (module docstring).  Raises
    ConfigError listing every (evalSetId, evalId, runId) found twice, and every
    problem ``complete`` finds.
    """
    members_of = _sources(parts)
    sources = _names(members_of, sources)
    groups, placed = _placements(members_of)
    problems = [
        problem
        for eval_set_id, items in placed.items()
        for problem in _conflicts(eval_set_id, items, [sources[i] for i in groups[eval_set_id]])
    ]
    partial: set[str] = set()
    if complete is not None:
        missing: list[Problem] = []
        for eval_set_id, members in groups.items():
            found, lost = _check_group(
                eval_set_id,
                [members_of[i] for i in members],
                [sources[i] for i in members],
                placed[eval_set_id],
                complete,
            )
            problems += found
            missing += lost
            if lost:
                partial.add(eval_set_id)
        for eval_set_id, expected in complete.eval_sets.items():
            if eval_set_id not in groups and expected.eval_ids:
                missing += _missing_cases(eval_set_id, expected, (), 1)
        if complete.allow_partial:
            hint = "--allow-partial: the merge is marked partial and exits 3"
            complete.warnings.extend(replace(problem, hint=hint) for problem in missing)
        else:
            problems += missing
    if problems:
        raise ConfigError(problems)
    orders = case_order or {}
    merged: list[MergedSet] = []
    for eval_set_id, members in groups.items():
        group = [members_of[i] for i in members]
        head = _merged_head(eval_set_id, group, [sources[i] for i in members])
        if eval_set_id in partial:
            head.partial = True  # never green: a shard or case is missing (--allow-partial)
        order = _ordered(placed[eval_set_id], orders.get(eval_set_id, ()))
        merged.append(MergedSet(head, max(_num_runs(part) for part in group), group, order))
    if complete is not None and complete.allow_partial:
        # An eval set of --evalset without any result is still part of the merge: empty, partial.
        for eval_set_id, expected in complete.eval_sets.items():
            if eval_set_id not in groups and expected.eval_ids:
                head = EvalSetResult(eval_set_id=eval_set_id, partial=True)
                merged.append(MergedSet(head, 1, [], []))
    return merged


def merge_results(
    parts: Sequence[EvalSetResult | CaseSource], **options: Unpack[MergeOptions]
) -> list[EvalSetResult]:
    """Join shard results into one result per evalSetId whose summary equals a full run's
    (:func:`plan_merge` with the same options, every case read into memory)."""
    return [merged.whole() for merged in plan_merge(parts, **options)]


__all__ = [
    "ANY_TRUE_EXTRA_KEYS",
    "FINGERPRINT_KEY",
    "SUMMED_EXTRA_KEYS",
    "UNION_EXTRA_KEYS",
    "Completeness",
    "EvalSetFile",
    "MergeOptions",
    "MergedSet",
    "case_ranks",
    "group_fingerprint",
    "merge_extras",
    "merge_results",
    "part_incomplete_ids",
    "plan_merge",
    "repeated_cases",
    "sum_numbers",
]
