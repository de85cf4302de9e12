"""The store's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

A stored run is one ``runs`` row (written first as ``running``; ``finished`` or
``interrupted`` only in the transaction that completes it) and, keyed by its integer
``id``:

* ``run_sets`` — one row per eval set: ids, fingerprint hashes, counts, judge usage, and
  its cases' statuses packed: the evalIds as a JSON list and one letter per case
  (:data:`OUTCOME_LETTERS`).  ``trend`` reads these: over 50 runs of 10,000 cases it reads
  50 rows instead of 500,000 ``cases`` rows (1.07 s of CPU → 0.2 s, bench/run_store.py);
* ``set_metrics`` — per eval set × metric: hash, threshold, score sum over evaluated
  results, status counts and judge usage (what ``trend`` reads per run);
* ``cases`` — per eval set × case: the status that decided the exit code
  (``incomplete`` included), passed runs of ``--num-runs``, mean score;
* ``case_runs`` — per case × run of ``--num-runs``: status, score, error, session,
  tool calls;
* ``metric_results`` — per case × metric × run of ``--num-runs``: score, status,
  threshold, reason;
* ``document_chunks`` — each eval set's result document exactly as ``run`` wrote it,
  zstd-compressed in pieces (``store export`` copies it back byte for byte).

Bulk tables carry no primary key (an index on ``run`` serves every query and keeps
100,000-case writes fast); the writer never writes a row twice.  Times are Unix
seconds (float) so both databases compare and sort them alike.

Tested in tests/store/test_migrations.py (the schema is created and checked there) and
tests/store/test_tables.py (rows read back checked).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

from agenteval.errors import ControlFlow

metadata = MetaData()


class DamagedRow(ControlFlow):
    """A stored value that does not fit the schema (a store edited or damaged by hand).

    Readers raise it where they meet the value; ``Store.transaction`` turns it into the
    located one-line ``StoreError`` (exit 2): ``store: runs id 3/started_at: problem (hint)``.
    """

    def __init__(self, table: str, row: str, column: str, message: str) -> None:
        self.path = f"{table} {row}/{column}" if row else f"{table}/{column}"
        self.message = message
        super().__init__(f"{self.path}: {message}")


# What a damaged store is told to do (its rows cannot be read as they are).
DAMAGED_HINT = "the store was changed outside agenteval: restore it from a backup"
_PYTHON_TYPES: dict[type[Any], tuple[type[Any], ...]] = {
    Integer: (int,),
    BigInteger: (int,),
    Float: (int, float),
    String: (str,),
    Text: (str,),
}
_TYPE_NAMES = {int: "an integer", float: "a number", str: "a text"}


def checked(table: Table, row: str | Callable[[], str], values: Mapping[str, Any]) -> None:
    """Every value of a ``table`` row read back is of its column's type (NULL only where the
    column allows it); :class:`DamagedRow` naming ``row`` (``id 3``) and the column if not.

    ``row`` may be a function giving that name: a reader of thousands of rows then formats
    one only for a damaged row, not for every row it reads (store.queries).

    SQLite keeps whatever a hand-edit wrote ('x' in a REAL column), where a reader would fail
    far away with a TypeError; PostgreSQL never lets one in, so this never fires there.
    """
    for name, (nullable, wanted) in _columns(table).items():
        if name not in values:
            continue
        value = values[name]
        if value is None:
            if not nullable:
                raise DamagedRow(table.name, _named(row), name, "is empty (NULL)")
            continue
        if wanted is not None and (isinstance(value, bool) or not isinstance(value, wanted)):
            problem = f"{value!r} is not {_TYPE_NAMES[wanted[-1]]}"
            raise DamagedRow(table.name, _named(row), name, problem)


_ColumnTypes = dict[str, tuple[bool, tuple[type[Any], ...] | None]]
_COLUMN_TYPES: dict[str, _ColumnTypes] = {}


def _columns(table: Table) -> _ColumnTypes:
    """Per column of ``table``: whether it may be NULL and the Python types it holds (None:
    not checked), worked out once per table, not once per row read."""
    found = _COLUMN_TYPES.get(table.name)
    if found is None:
        found = _COLUMN_TYPES[table.name] = {
            c.name: (bool(c.nullable), _PYTHON_TYPES.get(type(c.type))) for c in table.columns
        }
    return found


def _named(row: str | Callable[[], str]) -> str:
    return row if isinstance(row, str) else row()


# runs.agent_<name> of each count of an ``agentUsage`` object (results/agent_usage.COUNTS).
AGENT_COUNTS = (
    "turns",
    "turns_without_usage",
    "inference_calls",
    "input_tokens",
    "output_tokens",
    "unpriced_turns",
)


def _run_fk() -> ForeignKey:
    """The reference to the run a row belongs to (deleting a run deletes its rows)."""
    return ForeignKey("runs.id", ondelete="CASCADE")


def _case_counts() -> list[Column[int]]:
    """``cases_total`` and a count per case status (a run's, an eval set's)."""
    statuses = ("total", "passed", "failed", "not_evaluated", "incomplete")
    return [Column(f"cases_{name}", Integer, nullable=False, default=0) for name in statuses]


def _judge_counts(*counts: str) -> list[Column[int]]:
    """``judge_<count>`` for each of ``counts``, then the prompt and completion tokens."""
    return [Column(f"judge_{name}", Integer, nullable=False, default=0) for name in counts] + [
        Column(f"judge_{side}_tokens", BigInteger, nullable=False, default=0)
        for side in ("prompt", "completion")
    ]


def _agent_usage() -> list[Column[Any]]:
    """Schema version 3: what the agent under test spent over the run (its ``agentUsage``).

    NULL, every one, when no turn reported usage (runs from before agenteval counted it,
    traces without usage): unknown, never 0.  ``agent_cost_usd`` is NULL too when any turn
    had no price (``agent_unpriced_turns`` says how many), so a partial sum never reads as
    the run's cost.  Last in ``runs`` (then ``judge_unpriced_calls`` and
    ``judge_unreported_calls``): a migrated store
    appends them, a new one matches.
    """
    counts = [
        Column(f"agent_{name}", BigInteger if name.endswith("tokens") else Integer)
        for name in AGENT_COUNTS
    ]
    return [*counts, Column("agent_cost_usd", Float)]


def _bulk_table(name: str, *columns: Column[Any]) -> Table:
    """A bulk table (module docstring): no primary key, an index on ``run`` instead."""
    table = Table(name, metadata, *columns)
    Index(f"{name}_run", table.c.run)
    return table


def _status() -> Column[str]:
    """A row's status, an EvalStatus value (``incomplete`` only on a ``cases`` row)."""
    return Column("status", String(16), nullable=False)


def _set_key() -> list[Column[Any]]:
    """The primary key of a row of one eval set of a run: the run, the set's position."""
    return [
        Column("run", Integer, _run_fk(), primary_key=True),
        Column("position", Integer, primary_key=True),
    ]


def _case_run_key() -> list[Column[Any]]:
    """What a bulk row of one case run starts with: its run, eval set position, evalId, repeat."""
    return [
        Column("run", Integer, _run_fk(), nullable=False),
        Column("position", Integer, nullable=False),
        Column("eval_id", String(255), nullable=False),
        Column("repeat", Integer, nullable=False),
    ]


# The schema's version and the agenteval that last migrated it (one row).
schema_version = Table(
    "agenteval_schema",
    metadata,
    Column("version", Integer, nullable=False),
    Column("written_by", String(40), nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(64), nullable=False, unique=True),
    Column("run_group", String(200)),
    Column("shard_index", Integer),
    Column("shard_count", Integer),
    # One of RUN_STATES: running → finished | interrupted.
    Column("state", String(16), nullable=False),
    # passed | failed | not_evaluated | incomplete (the run document's overallStatus).
    Column("outcome", String(16)),
    Column("exit_code", Integer),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("duration_seconds", Float),
    Column("agenteval_version", String(40), nullable=False),
    Column("git_commit", String(64)),
    Column("git_branch", String(255)),
    Column("git_dirty", Boolean),
    Column("ci_url", Text),
    Column("app_name", String(200), nullable=False),
    Column("num_runs", Integer, nullable=False),
    # run (agenteval run --store) | add (agenteval store add)
    Column("origin", String(16), nullable=False),
    *_case_counts(),
    *_judge_counts("calls", "cache_hits", "retries"),
    # The judge's whole cost; NULL when unknown, a call without a price included (schema 3:
    # before it, the priced calls' sum).  store/judge_spend.py says why.
    Column("judge_cost_usd", Float),
    Column("agent_sessions", Integer),
    Column("agent_tool_calls", Integer),
    # One hash over every eval set's fingerprint (shard left out): "was the config the same?"
    Column("config_hash", String(80)),
    # The run document's own keys (header and trailer, JSON): `store export --json` rebuilds it.
    Column("document_keys", Text),
    *_agent_usage(),
    # Schema version 3: the judge calls whose model had no price (NULL: unknown).
    Column("judge_unpriced_calls", Integer),
    # Schema version 4: those of them whose reply reported no token usage (NULL: unknown),
    # which no price can mend (report.judge_cost says them apart).
    Column("judge_unreported_calls", Integer),
)
Index("runs_branch_started", runs.c.git_branch, runs.c.started_at)
Index("runs_started", runs.c.started_at)
Index("runs_group", runs.c.run_group)

run_sets = Table(
    "run_sets",
    metadata,
    *_set_key(),
    Column("eval_set_id", String(255), nullable=False),
    Column("result_id", String(255), nullable=False),
    Column("file_name", String(300)),
    Column("evalset_hash", String(80)),
    Column("traces_hash", String(80)),
    Column("case_aggregator", String(200)),
    Column("shard", String(20)),
    Column("config_hash", String(80)),
    Column("partial", Boolean, nullable=False, default=False),
    *_case_counts(),
    Column("judge_usage", Text),
    Column("document_size", BigInteger, nullable=False, default=0),
    Column("document_chunks", Integer, nullable=False, default=0),
    # Schema version 2: its cases' statuses packed (tables.packed_outcomes), what trend reads.
    Column("case_ids", Text),
    Column("case_statuses", Text),
)
Index("run_sets_eval_set", run_sets.c.eval_set_id)

set_metrics = Table(
    "set_metrics",
    metadata,
    *_set_key(),
    Column("metric_name", String(255), primary_key=True),
    Column("metric_hash", String(80)),
    Column("threshold", Float, nullable=False),
    Column("evaluated", Integer, nullable=False),
    Column("score_sum", Float, nullable=False),
    Column("passed", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("not_evaluated", Integer, nullable=False),
    *_judge_counts("calls", "cache_hits"),
)

cases = _bulk_table(
    "cases",
    Column("run", Integer, _run_fk(), nullable=False),
    Column("position", Integer, nullable=False),
    Column("eval_set_id", String(255), nullable=False),
    Column("eval_id", String(255), nullable=False),
    _status(),
    Column("passed_runs", Integer, nullable=False),
    Column("runs", Integer, nullable=False),
    Column("score", Float),
)

# What runs.state holds (a run left running never finished writing).
RUN_STATES = ("running", "finished", "interrupted")
# run_sets.case_statuses: the letter of each status (its first; "?" for any other).
OUTCOME_LETTERS = {"passed": "p", "failed": "f", "not_evaluated": "n", "incomplete": "i"}


def packed_outcomes(cases: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """``run_sets.case_ids`` and ``case_statuses`` of an eval set's (evalId, status) pairs."""
    ids = json.dumps([eval_id for eval_id, _ in cases], ensure_ascii=False)
    return ids, "".join(OUTCOME_LETTERS.get(status, "?") for _, status in cases)


case_runs = _bulk_table(
    "case_runs",
    *_case_run_key(),
    _status(),
    Column("score", Float, nullable=False),
    Column("error_message", Text, nullable=False),
    Column("session_id", String(255), nullable=False),
    Column("turns", Integer, nullable=False),
    Column("tool_calls", Integer, nullable=False),
)

metric_results = _bulk_table(
    "metric_results",
    *_case_run_key(),
    Column("metric_name", String(255), nullable=False),
    Column("score", Float, nullable=False),
    _status(),
    Column("threshold", Float, nullable=False),
    Column("reason", Text, nullable=False),
)

document_chunks = Table(
    "document_chunks",
    metadata,
    Column("run", Integer, _run_fk(), primary_key=True),
    # The eval set's position in its run; RUN_DOCUMENT_PART: a run document kept whole.
    Column("part", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("data", LargeBinary, nullable=False),
)

# document_chunks.part of a run document kept verbatim (`store add` of a --json document).
RUN_DOCUMENT_PART = -1

__all__ = [
    "AGENT_COUNTS",
    "DAMAGED_HINT",
    "OUTCOME_LETTERS",
    "RUN_DOCUMENT_PART",
    "RUN_STATES",
    "DamagedRow",
    "case_runs",
    "cases",
    "checked",
    "document_chunks",
    "metadata",
    "metric_results",
    "packed_outcomes",
    "run_sets",
    "runs",
    "schema_version",
    "set_metrics",
]
