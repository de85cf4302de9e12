"""What the store knows, read back: runs, logical runs, metric series and case outcomes.

A **logical run** is what a user thinks of as one run: a stored run, or every stored run
given the same ``--run-group`` (the shards of one sharded run, or jobs that each scored
other eval sets).  A group is ``finished`` only when every member finished and, for
shards, every shard 1..N reported; until then it is ``partial``.

A CI job retried inside a group runs its shard again: a member of the same shard (or both
unsharded) as an earlier member, holding one of its cases, **replaces** it, the newest
start winning, in every view of the group (history, trend, ``show @group``, ``store
export``, baselines); the replaced runs stay stored and are listed as replaced.  Counting
both made a 6-case set read 8 of 10 failed, and its cases twice blocked its export.

Every number is computed here in Python from the stored sums, in a fixed order, so the
same history gives the same output on SQLite and on PostgreSQL, digit for digit.

Tested in tests/store/test_queries.py.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Connection, Table, select

from agenteval.results.agent_usage import summed_usd
from agenteval.store import tables
from agenteval.store.agent_spend import agent_usage_of, summed_usage

# Keys per IN (...) list: well under SQLite's and PostgreSQL's parameter limits.
_IN_CHUNK = 500
_STATUS_RANK = {"incomplete": 0, "failed": 1, "passed": 2, "not_evaluated": 3}

T = TypeVar("T")


def _chunks(items: Sequence[T], size: int = _IN_CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One ``runs`` row."""

    key: int
    run_id: str
    run_group: str | None
    shard_index: int | None
    shard_count: int | None
    state: str
    outcome: str | None
    exit_code: int | None
    started_at: float
    finished_at: float | None
    duration_seconds: float | None
    agenteval_version: str
    commit: str | None
    branch: str | None
    dirty: bool | None
    ci_url: str | None
    app_name: str
    num_runs: int
    origin: str
    counts: dict[str, int]
    judge: dict[str, int]
    judge_cost_usd: float | None
    agent_sessions: int | None
    agent_tool_calls: int | None
    config_hash: str | None
    document_keys: str | None
    # What the agent under test spent, as agentUsage JSON (costUsd None: unknown); None: no usage.
    agent_usage: dict[str, Any] | None = None
    # Judge calls without a price (judge_cost_usd then None); None: unknown.
    judge_unpriced_calls: int | None = None
    # Those of them whose reply reported no token usage; None: unknown.
    judge_unreported_calls: int | None = None


@dataclass(frozen=True, slots=True)
class StoredSet:
    """One ``run_sets`` row."""

    run: int
    position: int
    eval_set_id: str
    result_id: str
    file_name: str | None
    evalset_hash: str | None
    traces_hash: str | None
    config_hash: str | None
    shard: str | None
    partial: bool
    document_size: int
    document_chunks: int


@dataclass(frozen=True, slots=True)
class StoredMetric:
    """One ``set_metrics`` row."""

    run: int
    position: int
    metric_name: str
    metric_hash: str | None
    threshold: float
    evaluated: int
    score_sum: float
    passed: int
    failed: int
    not_evaluated: int


_COUNT_COLUMNS = ("total", "passed", "failed", "not_evaluated", "incomplete")
_JUDGE_COLUMNS = ("calls", "cache_hits", "retries", "prompt_tokens", "completion_tokens")


def _known_words(m: Any) -> None:
    """A hand-edited ``state`` or ``outcome`` is a damaged row: an unknown state read as
    finished and an unknown outcome was printed raw (escape sequences and all) by history."""
    for column, known in (("state", tables.RUN_STATES), ("outcome", tuple(_STATUS_RANK))):
        value = m[column]
        if value is not None and value not in known:
            problem = f"{value!r} is not one of {', '.join(known)}"
            raise tables.DamagedRow("runs", f"id {m['id']}", column, problem)


def _stored_run(row: Any) -> StoredRun:
    m = row._mapping
    tables.checked(tables.runs, lambda: f"id {m['id']}", dict(m))
    _known_words(m)
    return StoredRun(
        key=m["id"],
        run_id=m["run_id"],
        run_group=m["run_group"],
        shard_index=m["shard_index"],
        shard_count=m["shard_count"],
        state=m["state"],
        outcome=m["outcome"],
        exit_code=m["exit_code"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
        duration_seconds=m["duration_seconds"],
        agenteval_version=m["agenteval_version"],
        commit=m["git_commit"],
        branch=m["git_branch"],
        dirty=None if m["git_dirty"] is None else bool(m["git_dirty"]),
        ci_url=m["ci_url"],
        app_name=m["app_name"],
        num_runs=m["num_runs"],
        origin=m["origin"],
        counts={name: int(m[f"cases_{name}"] or 0) for name in _COUNT_COLUMNS},
        judge={name: int(m[f"judge_{name}"] or 0) for name in _JUDGE_COLUMNS},
        judge_cost_usd=m["judge_cost_usd"],
        agent_sessions=m["agent_sessions"],
        agent_tool_calls=m["agent_tool_calls"],
        config_hash=m["config_hash"],
        document_keys=m["document_keys"],
        agent_usage=agent_usage_of(m),
        judge_unpriced_calls=m["judge_unpriced_calls"],
        judge_unreported_calls=m["judge_unreported_calls"],
    )


def _known_sum(counts: Iterable[int | None]) -> int | None:
    """The sum of the counts that are known (not None); None when none is."""
    known = [count for count in counts if count is not None]
    return sum(known) if known else None


def stored_runs(conn: Connection) -> list[StoredRun]:
    """Every stored run, oldest first (start time, then insertion order)."""
    query = select(tables.runs).order_by(tables.runs.c.started_at, tables.runs.c.id)
    return [_stored_run(row) for row in conn.execute(query)]


def _run_rows(
    conn: Connection,
    table: Table,
    columns: Sequence[str],
    keys: Sequence[int],
    order: Sequence[str],
    *where: ColumnElement[bool],
) -> Iterator[tuple[Any, ...]]:
    """``columns`` of ``table``'s rows of the runs ``keys`` (and ``where``), in ``order`` within
    each chunk of keys; each checked against the schema (tables.DamagedRow)."""
    at = columns.index("position") if "position" in columns else None
    for part in _chunks(list(keys)):
        query = (
            select(*(table.c[name] for name in columns))
            .where(table.c.run.in_(part), *where)
            .order_by(*(table.c[name] for name in order))
        )
        for row in conn.execute(query):
            values = tuple(row)
            named = partial(_row_label, values, at)  # formatted only for a damaged row
            tables.checked(table, named, dict(zip(columns, values, strict=True)))
            yield values


def _row_label(values: Sequence[Any], at: int | None) -> str:
    """How a damaged row of a run's table is named: ``run 3 position 0`` (tables.DamagedRow)."""
    return f"run {values[0]}" + (f" position {values[at]}" if at is not None else "")


def _case_ids(run: int, position: int, text: str | None) -> list[str]:
    """``run_sets.case_ids`` read back: a JSON list of evalIds (tables.DamagedRow if not)."""
    try:
        ids = json.loads(text or "[]")
    except ValueError:
        ids = None
    if not isinstance(ids, list) or not all(isinstance(eval_id, str) for eval_id in ids):
        where = f"run {run} position {position}"
        raise tables.DamagedRow("run_sets", where, "case_ids", "is not a JSON list of evalIds")
    return ids


_SET_COLUMNS = (
    "run", "position", "eval_set_id", "result_id", "file_name", "evalset_hash", "traces_hash",
    "config_hash", "shard", "partial", "document_size", "document_chunks",
)  # fmt: skip
_METRIC_COLUMNS = (
    "run", "position", "metric_name", "metric_hash", "threshold", "evaluated", "score_sum",
    "passed", "failed", "not_evaluated",
)  # fmt: skip


def stored_sets(conn: Connection, keys: Sequence[int]) -> dict[int, list[StoredSet]]:
    """The eval sets of the runs ``keys``, by run key, in position order."""
    found: dict[int, list[StoredSet]] = {key: [] for key in keys}
    for row in _run_rows(conn, tables.run_sets, _SET_COLUMNS, keys, ("run", "position")):
        found[row[0]].append(
            StoredSet(
                row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                bool(row[9]), int(row[10] or 0), int(row[11] or 0),
            )
        )  # fmt: skip
    return found


def stored_metrics(conn: Connection, keys: Sequence[int]) -> list[StoredMetric]:
    """The metric rows of the runs ``keys`` (run, position, metric name order)."""
    found: list[StoredMetric] = []
    order = ("run", "position", "metric_name")
    for row in _run_rows(conn, tables.set_metrics, _METRIC_COLUMNS, keys, order):
        found.append(
            StoredMetric(
                row[0], row[1], row[2], row[3], float(row[4]), int(row[5]),
                float(row[6]), int(row[7]), int(row[8]), int(row[9]),
            )
        )  # fmt: skip
    return found


@dataclass(slots=True)
class LogicalRun:
    """A stored run, or every run of one ``--run-group`` (module docstring)."""

    id: str
    group: bool
    runs: list[StoredRun]
    sets: list[StoredSet] = field(default_factory=list)
    # Group members a later rerun of the same shard replaced (module docstring), oldest first.
    replaced: list[StoredRun] = field(default_factory=list)

    @property
    def first(self) -> StoredRun:
        """The member that started first (its commit and branch name the logical run)."""
        return self.runs[0]

    @property
    def started_at(self) -> float:
        """When the first member started."""
        return self.first.started_at

    @property
    def finished_at(self) -> float | None:
        """When the last member finished (None while any is unfinished)."""
        ends = [run.finished_at for run in self.runs]
        return None if any(end is None for end in ends) else max(e for e in ends if e is not None)

    @property
    def shards(self) -> tuple[int, int] | None:
        """(shards reported, shards expected) of a sharded group; None otherwise."""
        counts = {run.shard_count for run in self.runs if run.shard_count}
        if not self.group or not counts:
            return None
        expected = max(counts)
        reported = {run.shard_index for run in self.runs if run.shard_index}
        return len(reported & set(range(1, expected + 1))), expected

    @property
    def state(self) -> str:
        """``unfinished``, ``interrupted``, ``partial`` (shards missing) or ``finished``."""
        states = {run.state for run in self.runs}
        if "running" in states:
            return "unfinished"
        if "interrupted" in states:
            return "interrupted"
        shards = self.shards
        if shards is not None and shards[0] < shards[1]:
            return "partial"
        return "finished"

    @property
    def outcome(self) -> str | None:
        """The overall status over the members: incomplete, failed, passed, not_evaluated;
        None while a member is unfinished (its outcome is not known)."""
        if any(run.state == "running" for run in self.runs):
            return None
        outcomes = [run.outcome for run in self.runs if run.outcome]
        if not outcomes:
            return None
        return min(outcomes, key=lambda o: _STATUS_RANK.get(o, 9))

    @property
    def counts(self) -> dict[str, int]:
        """Case counts summed over the members."""
        return {name: sum(run.counts[name] for run in self.runs) for name in _COUNT_COLUMNS}

    @property
    def judge(self) -> dict[str, int]:
        """Judge calls, cache hits, retries and tokens summed over the members."""
        return {name: sum(run.judge[name] for run in self.runs) for name in _JUDGE_COLUMNS}

    @property
    def judge_cost_usd(self) -> float | None:
        """The judge's whole cost over the members (Decimal-added, as the run document adds
        it); None when a member that asked the judge has no whole cost (store.judge_spend)."""
        costs = []
        for run in self.runs:
            if run.judge_cost_usd is not None:
                costs.append(run.judge_cost_usd)
            elif run.judge["calls"] or run.judge_unpriced_calls:
                return None
        return summed_usd(costs) if costs else None

    @property
    def judge_unpriced_calls(self) -> int | None:
        """Judge calls without a price over the members that know it; None when none does."""
        return _known_sum(run.judge_unpriced_calls for run in self.runs)

    @property
    def judge_unreported_calls(self) -> int | None:
        """Of those, the calls whose reply reported no token usage (None when no member knows)."""
        return _known_sum(run.judge_unreported_calls for run in self.runs)

    @property
    def agent_usage(self) -> dict[str, Any] | None:
        """What the agent under test spent over the members that recorded it (a cost only
        when every member's turns were priced); None when none did."""
        return summed_usage(run.agent_usage for run in self.runs)

    @property
    def eval_set_ids(self) -> list[str]:
        """The eval sets of the logical run, each once, in order."""
        return list(dict.fromkeys(s.eval_set_id for s in self.sets))

    @property
    def keys(self) -> list[int]:
        """The member runs' keys."""
        return [run.key for run in self.runs]


def _case_keys(conn: Connection, keys: Sequence[int]) -> dict[int, set[tuple[str, str]]]:
    """Per run key, the (evalSetId, evalId) of every case it stored (``run_sets``' packed ids)."""
    found: dict[int, set[tuple[str, str]]] = {key: set() for key in keys}
    columns = ("run", "position", "eval_set_id", "case_ids")
    for run, position, eval_set_id, eval_ids in _run_rows(
        conn, tables.run_sets, columns, keys, ("run", "position")
    ):
        ids = _case_ids(run, position, eval_ids)
        found[run].update((eval_set_id, eval_id) for eval_id in ids)
    return found


def _reran(later: StoredRun, earlier: StoredRun, cases: CaseKeys) -> bool:
    """Whether ``later`` ran ``earlier`` again: the same shard (or both unsharded) and one of
    its cases (two shards holding one case are no rerun: export names that conflict).

    A shard's member that holds no case is run again by any later member of its shard: a
    job killed before it stored one (a CI timeout) stays ``running`` for good, and its group
    read unfinished forever, never a baseline or exported.  Unsharded members hold other
    eval sets: one that stored nothing yet is still owed its own, and stays."""
    same = (later.shard_index, later.shard_count) == (earlier.shard_index, earlier.shard_count)
    if not same:
        return False
    held = cases.get(earlier.key, set())
    if not held:
        return bool(later.shard_count)
    return not cases.get(later.key, set()).isdisjoint(held)


def _slot(run: StoredRun) -> tuple[str | None, int | None, int | None]:
    return run.run_group, run.shard_index, run.shard_count


def _join(logical: LogicalRun, run: StoredRun, sets: Sequence[StoredSet], cases: CaseKeys) -> None:
    """Add the member ``run`` (started after every member so far) to its group; it replaces
    every earlier member it ran again (:func:`_reran`: a shard or a job retried)."""
    for earlier in list(logical.runs):
        if _reran(run, earlier, cases):
            logical.runs.remove(earlier)
            logical.sets = [s for s in logical.sets if s.run != earlier.key]
            logical.replaced.append(earlier)
    logical.runs.append(run)
    logical.sets.extend(sets)


CaseKeys = dict[int, set[tuple[str, str]]]


def logical_runs(conn: Connection, runs: Iterable[StoredRun] | None = None) -> list[LogicalRun]:
    """Every logical run, oldest first (by its first member's start), with its eval sets."""
    members = list(runs) if runs is not None else stored_runs(conn)
    sets = stored_sets(conn, [run.key for run in members])
    # Only members sharing their group and shard with another can be reruns: their case ids
    # are read (a JSON list per eval set), nobody else's.
    slots = Counter(_slot(run) for run in members if run.run_group is not None)
    cases = _case_keys(conn, [run.key for run in members if slots[_slot(run)] > 1])
    grouped: dict[str, LogicalRun] = {}
    ordered: list[LogicalRun] = []
    for run in members:
        mine = sets.get(run.key, [])
        if run.run_group is None:
            ordered.append(LogicalRun(run.run_id, False, [run], list(mine)))
            continue
        found = grouped.get(run.run_group)
        if found is None:
            found = grouped[run.run_group] = LogicalRun(run.run_group, True, [run], list(mine))
            ordered.append(found)
        else:
            _join(found, run, mine, cases)
    return ordered


def rerun_warning(conn: Connection, group: str, run_id: str) -> str | None:
    """What the stored run ``run_id`` of ``group`` is told when it replaced earlier members
    (it holds cases they hold: a shard or a job run again); None when it replaced none."""
    query = (
        select(tables.runs)
        .where(tables.runs.c.run_group == group)
        .order_by(tables.runs.c.started_at, tables.runs.c.id)
    )
    members = [_stored_run(row) for row in conn.execute(query)]
    ours = next((run for run in members if run.run_id == run_id), None)
    if ours is None:
        return None
    # Only members of its own shard can have been run again by it: their case ids alone.
    cases = _case_keys(conn, [run.key for run in members if _slot(run) == _slot(ours)])
    mine = cases[ours.key]
    earlier = [run for run in members[: members.index(ours)] if _reran(ours, run, cases)]
    if not earlier:
        return None
    held = [run.run_id for run in earlier if cases[run.key]]
    empty = [run.run_id for run in earlier if not cases[run.key]]
    eval_sets = ", ".join(sorted({eval_set_id for eval_set_id, _ in mine}))
    said: list[str] = []
    if held:
        said.append(f"holds cases of {eval_sets} that run {', '.join(held)} of this group held")
    if empty:
        said.append(
            f"runs shard {ours.shard_index}/{ours.shard_count} again, which run "
            f"{', '.join(empty)} of this group started and stored no case of"
        )
    return (
        f"run {run_id} {' and '.join(said)}: it replaces that run in the group's history, "
        "trend, show, export and baselines (the newest run of a shard wins)"
    )


@dataclass(frozen=True, slots=True)
class MetricPoint:
    """One (eval set, metric) of one logical run: its average and what it was scored on."""

    average: float | None
    threshold: float
    evaluated: int
    passed: int
    failed: int
    not_evaluated: int
    metric_hash: str | None
    config_hash: str | None
    evalset_hash: str | None = None
    traces_hash: str | None = None


def metric_points(
    conn: Connection, logical: Sequence[LogicalRun]
) -> dict[tuple[str, str], list[MetricPoint | None]]:
    """Per (evalSetId, metricName), one point per logical run (None where it was not scored).

    A group's shards are combined: sums of scores over sums of evaluated results.
    """
    eval_set_of: dict[tuple[int, int], StoredSet] = {
        (s.run, s.position): s for run in logical for s in run.sets
    }
    index_of = {run.key: i for i, lr in enumerate(logical) for run in lr.runs}
    sums: dict[tuple[str, str], dict[int, list[Any]]] = {}
    for row in stored_metrics(conn, list(index_of)):
        stored_set = eval_set_of.get((row.run, row.position))
        if stored_set is None:
            continue
        series = sums.setdefault((stored_set.eval_set_id, row.metric_name), {})
        at = index_of[row.run]
        acc = series.get(at)
        if acc is None:
            series[at] = [
                row.evaluated, row.score_sum, row.passed, row.failed, row.not_evaluated,
                row.threshold, row.metric_hash, stored_set.config_hash,
                stored_set.evalset_hash, stored_set.traces_hash,
            ]  # fmt: skip
        else:
            for i, value in enumerate(
                (row.evaluated, row.score_sum, row.passed, row.failed, row.not_evaluated)
            ):
                acc[i] += value
    points: dict[tuple[str, str], list[MetricPoint | None]] = {}
    for key in sorted(sums):
        series = sums[key]
        line: list[MetricPoint | None] = []
        for at in range(len(logical)):
            acc = series.get(at)
            if acc is None:
                line.append(None)
                continue
            evaluated, score_sum = acc[0], acc[1]
            line.append(
                MetricPoint(
                    score_sum / evaluated if evaluated else None,
                    acc[5], evaluated, acc[2], acc[3], acc[4], acc[6], acc[7], acc[8], acc[9],
                )
            )  # fmt: skip
        points[key] = line
    return points


def case_outcomes(
    conn: Connection, logical: Sequence[LogicalRun], eval_set: str | None = None
) -> dict[tuple[str, str], str]:
    """Per (evalSetId, evalId), sorted, its status in each logical run as one letter per run
    (``tables.OUTCOME_LETTERS``; ``-`` not run).

    Read from ``run_sets``' packed statuses (a row per eval set, not one per case).  A case
    held twice by one logical run (two members, or its eval set twice) takes the worse
    status (:func:`_merge`).
    """
    index_of = {run.key: i for i, lr in enumerate(logical) for run in lr.runs}
    by_set: dict[str, list[dict[str, str]]] = {}
    t = tables.run_sets
    where = () if eval_set is None else (t.c.eval_set_id == eval_set,)
    columns = ("run", "position", "eval_set_id", "case_ids", "case_statuses")
    order = ("run", "position")
    for run, position, eval_set_id, eval_ids, letters in _run_rows(
        conn, t, columns, list(index_of), order, *where
    ):
        runs = by_set.get(eval_set_id)
        if runs is None:
            runs = by_set[eval_set_id] = [{} for _ in logical]
        ids = _case_ids(run, position, eval_ids)
        if len(ids) != len(letters or ""):
            raise tables.DamagedRow(
                "run_sets",
                f"run {run} position {position}",
                "case_statuses",
                f"{len(letters or '')} statuses for {len(ids)} case ids",
            )
        found = dict(zip(ids, letters or "", strict=True))
        _merge(runs[index_of[run]], found)
    lines: dict[tuple[str, str], str] = {}
    for eval_set_id in sorted(by_set):
        statuses = by_set[eval_set_id]
        ids = sorted(set().union(*statuses))
        blank = dict.fromkeys(ids, "-")
        # One string per run over the sorted ids, then read across: one string per case.
        packed = ["".join((blank | found).values()) for found in statuses]
        for eval_id, letters in zip(ids, map("".join, zip(*packed, strict=True)), strict=True):
            lines[(eval_set_id, eval_id)] = letters
    return lines


def case_repeats(
    conn: Connection, logical: Sequence[LogicalRun], eval_set: str | None = None
) -> dict[tuple[str, str], dict[int, str]]:
    """Per (evalSetId, evalId), per index of a logical run that ran it ``--num-runs N`` times
    (N > 1), its status in each repeat, in repeat order, one letter each
    (``tables.OUTCOME_LETTERS``).  Read from ``case_runs``, only for those runs: a run of
    one repeat has its status in ``case_outcomes`` already."""
    index_of = {run.key: i for i, lr in enumerate(logical) for run in lr.runs if run.num_runs > 1}
    set_of = {(s.run, s.position): s.eval_set_id for lr in logical for s in lr.sets}
    found: dict[tuple[str, str], dict[int, str]] = {}
    columns = ("run", "position", "eval_id", "repeat", "status")
    order = ("run", "position", "eval_id", "repeat")
    for run, position, eval_id, _, status in _run_rows(
        conn, tables.case_runs, columns, list(index_of), order
    ):
        eval_set_id = set_of.get((run, position))
        if eval_set_id is None or (eval_set is not None and eval_set_id != eval_set):
            continue
        letter = tables.OUTCOME_LETTERS.get(status, "?")
        by_run = found.setdefault((eval_set_id, eval_id), {})
        at = index_of[run]
        by_run[at] = by_run.get(at, "") + letter
    return found


# A case's status letter ranked as a run's outcome ranks statuses (the worse, the lower).
_LETTER_RANK = {tables.OUTCOME_LETTERS[status]: rank for status, rank in _STATUS_RANK.items()}


def _merge(column: dict[str, str], found: dict[str, str]) -> None:
    """Add one row's statuses to a logical run's: a case held twice takes the worse status,
    ranked as the run's outcome is (incomplete, failed, passed, not evaluated).  The last
    passed or failed one won: a case failing in one of two namesake eval sets of a failed
    run read as a stable pass."""
    if column.keys().isdisjoint(found):
        column.update(found)
        return
    for eval_id, letter in found.items():
        held = column.get(eval_id)
        if held is None or _LETTER_RANK.get(letter, 9) < _LETTER_RANK.get(held, 9):
            column[eval_id] = letter


__all__ = [
    "LogicalRun",
    "MetricPoint",
    "StoredMetric",
    "StoredRun",
    "StoredSet",
    "case_outcomes",
    "case_repeats",
    "logical_runs",
    "metric_points",
    "rerun_warning",
    "stored_metrics",
    "stored_runs",
    "stored_sets",
]
