"""Versioned schema migrations, applied when a store is opened (by a writer's transaction).

The schema's version lives in the one-row table ``agenteval_schema``.  Opening a store:

* empty database → the current tables are created (:mod:`agenteval.store.tables`) and
  stamped with :data:`CURRENT_VERSION`;
* an older version → the migrations after it run in order, in the same transaction, and
  the stamp moves.  A reader never misreads an older store: it has it migrated by a
  writer first (``connection.open_store``), and a read-only one is refused ("open it once
  with write access");
* a newer version (written by a newer agenteval) → refused with a message saying so;
  this agenteval never writes to, or guesses at, a schema it does not know.

Two processes opening one fresh store at once are serialised: SQLite by ``BEGIN
IMMEDIATE`` (the connection's write transaction), PostgreSQL by a transaction-level
advisory lock; the second one finds the schema made and does nothing.

Why not Alembic: its upgrade runs from a script directory and ``env.py`` shipped as
package data, its "can't locate revision" for a newer store needs the same wrapping
this module does, and the concurrency lock is ours either way; importing it (with
Mako) added 0.47 s to every store open on top of SQLAlchemy's 0.9–1.2 s (measured on
the 2-core box under load).  A migration that needs SQLite's table rebuild can use
``alembic.operations.Operations`` inside its function when that day comes.

Tested in tests/store/test_migrations.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlalchemy import Connection, bindparam, func, insert, inspect, select, text, update

from agenteval import __version__
from agenteval.errors import ControlFlow
from agenteval.store import agent_spend, judge_spend, tables
from agenteval.store.documents import DamagedDocument, read_document

# Version 1: the first schema; 2: run_sets.case_ids and case_statuses; 3: runs.agent_*
# (what the agent under test spent) and runs.judge_unpriced_calls (judge_cost_usd NULL
# when a call had no price); 4: runs.judge_unreported_calls (of those, the calls whose reply
# reported no token usage).  A change to tables.py adds version N and MIGRATIONS[N].
CURRENT_VERSION = 4

Migration = Callable[[Connection], None]


def _pack_outcomes(conn: Connection) -> None:
    """Version 2: each eval set's cases' statuses packed into its ``run_sets`` row (from the
    ``cases`` of every stored run), as the writer packs them."""
    for column in ("case_ids", "case_statuses"):
        conn.execute(text(f"ALTER TABLE run_sets ADD COLUMN {column} TEXT"))
    cases, sets = tables.cases, tables.run_sets
    for key in conn.execute(select(tables.runs.c.id).order_by(tables.runs.c.id)).scalars().all():
        query = select(cases.c.position, cases.c.eval_id, cases.c.status).where(cases.c.run == key)
        by_set: dict[int, list[tuple[str, str]]] = {}
        for position, eval_id, status in conn.execute(query):
            by_set.setdefault(position, []).append((eval_id, status))
        for position, found in by_set.items():
            case_ids, case_statuses = tables.packed_outcomes(found)
            conn.execute(
                update(sets)
                .where(sets.c.run == key, sets.c.position == position)
                .values(case_ids=case_ids, case_statuses=case_statuses)
            )


def _stored_agent_usage(conn: Connection, key: int, document_keys: str | None) -> list[object]:
    """The ``agentUsage`` objects a finished run stored: its trailer's (``run``), else each
    eval set document's (``store add``); [] when a document is missing or damaged (unknown)."""
    if document_keys:
        return [agent_spend.document_keys_usage(document_keys)]
    sets = tables.run_sets
    query = select(sets.c.position, sets.c.document_size, sets.c.document_chunks).where(
        sets.c.run == key
    )
    found: list[object] = []
    for position, size, chunks in conn.execute(query.order_by(sets.c.position)).all():
        if not chunks:
            return []
        try:
            found.append(agent_spend.top_level_usage(read_document(conn, key, position, size)))
        except DamagedDocument:
            return []
    return found


def _record_agent_usage(conn: Connection) -> None:
    """Version 3: ``runs.agent_*``, filled for every finished run from what it stored.

    A run recorded by ``run --store`` keeps its run document's trailer in ``document_keys``
    (a column: nothing to decompress); one added by ``store add`` has only its eval sets'
    documents, read through once each (the key follows the cases).  Runs from before
    agenteval counted the agent's usage, or never finished, stay NULL: unknown.

    Measured (2-core box, load ~3): 10 added runs of a 47 MB, 10,000-case document each
    migrated in 0.34 s of CPU on SQLite, 0.37 s on PostgreSQL (~0.035 s a run: zstd
    0.021 s, the key scan 0.016 s; ``json.loads`` of the document instead: 0.72 s).
    """
    runs = tables.runs
    for name in (*agent_spend.COLUMNS, judge_spend.UNPRICED_COLUMN):
        kind = runs.c[name].type.compile(dialect=conn.dialect)
        conn.execute(text(f"ALTER TABLE runs ADD COLUMN {name} {kind}"))
    query = select(runs.c.id, runs.c.document_keys).where(runs.c.state != "running")
    for key, document_keys in conn.execute(query.order_by(runs.c.id)).all():
        values = agent_spend.agent_columns(_stored_agent_usage(conn, key, document_keys))
        if values["agent_turns"] is not None:
            conn.execute(update(runs).where(runs.c.id == key).values(values))
    _judge_spend(conn, (judge_spend.COST_COLUMN, judge_spend.UNPRICED_COLUMN))


def _judge_unreported_calls(conn: Connection) -> None:
    """Version 4: ``runs.judge_unreported_calls``, from what each run stored as version 3
    filled ``judge_unpriced_calls`` (runs stored before agenteval counted them have none)."""
    column = judge_spend.UNREPORTED_COLUMN
    kind = tables.runs.c[column].type.compile(dialect=conn.dialect)
    conn.execute(text(f"ALTER TABLE runs ADD COLUMN {column} {kind}"))
    _judge_spend(conn, (column,))


def _judge_spend(conn: Connection, names: tuple[str, ...]) -> None:
    """The judge_spend columns ``names`` of every finished run from each eval set's stored
    ``judge_usage`` (the writer's input, so the values are the ones it writes).  Version 3:
    ``runs.judge_unpriced_calls``, and ``judge_cost_usd`` made NULL where it was the priced
    calls' sum of a run with unpriced ones.  A stored usage that is not JSON leaves them
    NULL: unknown.

    Measured (2-core box, load ~1.5; /tmp bench, not in the repo): 10,000 finished runs of
    one eval set each (a 0.7 KB usage of two metrics) in 0.40 s on SQLite, 0.64 s on
    PostgreSQL (0.47 s of CPU); one UPDATE per run instead of one executemany: 1.42 s.
    """
    runs, sets = tables.runs, tables.run_sets
    query = (
        select(runs.c.id, runs.c.judge_cost_usd, sets.c.judge_usage)
        .join(sets, sets.c.run == runs.c.id)
        .where(runs.c.state != "running")
        .order_by(runs.c.id, sets.c.position)
    )
    found: dict[int, list[object]] = {}
    before: dict[int, float | None] = {}
    damaged: set[int] = set()
    for key, cost, stored in conn.execute(query):
        usage = judge_spend.stored_usage(stored) if stored is not None else {}
        found.setdefault(key, []).append(usage)
        before[key] = cost
        if usage is None:
            damaged.add(key)
    changed = []
    for key, usages in found.items():
        spent = judge_spend.UNKNOWN if key in damaged else judge_spend.judge_cost_columns(usages)
        values = {name: spent[name] for name in names}
        if any(v is not None for v in values.values()) or before[key] is not None:
            changed.append({"key": key, **values})  # else no judge, nothing to write
    if changed:  # one executemany (docstring)
        by_key = update(runs).where(runs.c.id == bindparam("key"))
        conn.execute(by_key.values({name: bindparam(name) for name in names}), changed)


# The step from version N-1 to N, for stores made by an older agenteval.
MIGRATIONS: Mapping[int, Migration] = {
    2: _pack_outcomes,
    3: _record_agent_usage,
    4: _judge_unreported_calls,
}

# pg_advisory_xact_lock key of schema changes ("agenteval" in ASCII, as a bigint).
_PG_LOCK = 0x616765_6E746576


class SchemaProblem(ControlFlow):
    """The store's schema cannot be used as it is (message says why, for StoreError)."""

    def __init__(self, message: str, hint: str = "", *, older: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        # An older schema that migrating would make usable.
        self.older = older


def stored_version(conn: Connection) -> tuple[int, str] | None:
    """The store's (version, agenteval that wrote it); None for a database without our schema."""
    if not inspect(conn).has_table(tables.schema_version.name):
        return None
    row = conn.execute(
        select(tables.schema_version.c.version, tables.schema_version.c.written_by)
    ).first()
    if row is None:
        return None
    tables.checked(tables.schema_version, "", dict(row._mapping))
    return int(row[0]), str(row[1])


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})


def _foreign_tables(conn: Connection) -> list[str]:
    """Our table names already taken in a database without our schema stamp."""
    names = set(inspect(conn).get_table_names())
    return sorted(names & set(tables.metadata.tables))


def ensure_schema(
    conn: Connection,
    *,
    create: bool,
    migrate: bool = True,
    current: int = CURRENT_VERSION,
    migrations: Mapping[int, Migration] = MIGRATIONS,
) -> int:
    """Check the schema in ``conn``'s transaction; create it (``create``) or migrate it.

    Returns the version in force; raises :class:`SchemaProblem` for a newer schema, an
    empty database not to be created, an older one not to be migrated (read-only), or a
    database whose tables are not ours.
    """
    if create:
        _lock(conn)
    found = stored_version(conn)
    if found is None:
        taken = _foreign_tables(conn)
        if taken:
            raise SchemaProblem(
                f"not an agenteval store: it holds tables named {', '.join(taken)} "
                "that agenteval did not create",
                "give agenteval a database (or SQLite file) of its own",
            )
        if not create:
            raise SchemaProblem(
                "no runs stored here yet", "record one with `agenteval run --store URL`"
            )
        tables.metadata.create_all(conn)
        conn.execute(insert(tables.schema_version).values(version=current, written_by=__version__))
        return current
    version, written_by = found
    if version > current:
        raise SchemaProblem(
            f"the store's schema is version {version}, written by agenteval {written_by}; "
            f"this agenteval ({__version__}) knows versions up to {current}",
            "upgrade agenteval to use this store",
        )
    if version < current:
        if not migrate:
            raise SchemaProblem(
                f"the store's schema is version {version} and needs upgrading to {current}, "
                "which a read-only store cannot take",
                "open it once with write access",
                older=True,
            )
        if not create:
            _lock(conn)
            return ensure_schema(conn, create=True, current=current, migrations=migrations)
        for step in range(version + 1, current + 1):
            migrations[step](conn)
        conn.execute(update(tables.schema_version).values(version=current, written_by=__version__))
    return current


def run_count(conn: Connection) -> int:
    """How many runs the store holds (a cheap liveness query)."""
    return int(conn.execute(select(func.count()).select_from(tables.runs)).scalar_one())


__all__ = [
    "CURRENT_VERSION",
    "MIGRATIONS",
    "Migration",
    "SchemaProblem",
    "ensure_schema",
    "run_count",
    "stored_version",
]
