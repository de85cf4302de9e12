"""Schema versions: created on first write, migrated in order, a newer store refused.

Every test runs on a SQLite file and on a real PostgreSQL database (tests/postgres_server.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Column, Connection, Integer, inspect, select, text, update

from agenteval import __version__
from agenteval.schema.result import EvalSetResult
from agenteval.store import agent_spend, judge_spend, tables
from agenteval.store.adding import add_results
from agenteval.store.connection import Store, StoreError, open_store
from agenteval.store.history import HistoryFilters, history_rows
from agenteval.store.migrations import CURRENT_VERSION, ensure_schema, stored_version
from agenteval.store.trend import TrendFilters, trend
from agenteval.store.urls import StoreUrl, parse_store_url
from agenteval.store.writer import FinishedSet, RunMeta, RunOutcome, RunRecorder, new_run_id
from store.store_support import (
    AGENT_SPENT,
    T0,
    UNPRICED_JUDGE,
    add_history,
    scripted_result,
    with_agent_usage,
    with_judge_usage,
    write_result,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> StoreUrl:
    if request.param == "sqlite":
        return parse_store_url(f"sqlite:///{tmp_path}/h.sqlite", "--store")
    return parse_store_url(request.getfixturevalue("pg_url"), "--store")


def test_first_write_creates_every_table_and_stamps_the_version(store_url: StoreUrl) -> None:
    store = open_store(store_url, write=True)
    try:
        with store.transaction() as conn:
            assert stored_version(conn) == (CURRENT_VERSION, __version__)
            names = set(inspect(conn).get_table_names())
            assert set(tables.metadata.tables) <= names
            # The made schema is the one tables.py declares, column for column.
            for table in tables.metadata.sorted_tables:
                made = [c["name"] for c in inspect(conn).get_columns(table.name)]
                assert made == [c.name for c in table.columns], table.name
    finally:
        store.close()


def test_reading_an_empty_database_creates_nothing(store_url: StoreUrl) -> None:
    if store_url.backend == "sqlite":
        with pytest.raises(StoreError, match="no store at this path"):
            open_store(store_url, write=False)
        assert store_url.sqlite_path is not None and not store_url.sqlite_path.exists()
        return
    with pytest.raises(StoreError, match=r"no runs stored here yet \(record one with"):
        open_store(store_url, write=False)


def test_a_newer_schema_is_refused_for_reading_and_writing(store_url: StoreUrl) -> None:
    store = open_store(store_url, write=True)
    with store.transaction() as conn:
        conn.execute(update(tables.schema_version).values(version=99, written_by="9.9.0"))
    store.close()
    for write in (True, False):
        with pytest.raises(StoreError) as caught:
            open_store(store_url, write=write)
        assert str(caught.value) == (
            f"{store_url.redacted()}: the store's schema is version 99, written by agenteval "
            f"9.9.0; this agenteval ({__version__}) knows versions up to {CURRENT_VERSION} "
            "(upgrade agenteval to use this store)"
        )


def test_an_older_schema_is_migrated_in_order_once(store_url: StoreUrl) -> None:
    store = open_store(store_url, write=True)
    steps: list[int] = []
    first, second = CURRENT_VERSION + 1, CURRENT_VERSION + 2

    def add_note(conn: object) -> None:
        steps.append(first)
        assert hasattr(conn, "execute")
        conn.execute(text("CREATE TABLE migration_note (n INTEGER)"))  # type: ignore[attr-defined]

    def add_more(conn: object) -> None:
        steps.append(second)
        conn.execute(text("INSERT INTO migration_note VALUES (3)"))  # type: ignore[attr-defined]

    migrations = {first: add_note, second: add_more}
    with store.transaction() as conn:
        assert ensure_schema(conn, create=True, current=second, migrations=migrations) == second
        assert stored_version(conn) == (second, __version__)
        assert conn.execute(text("SELECT n FROM migration_note")).scalar_one() == 3
    with store.transaction() as conn:
        # Already there: nothing runs again.
        ensure_schema(conn, create=True, current=second, migrations=migrations)
    assert steps == [first, second]
    store.close()


def test_an_older_schema_read_only_is_refused_not_misread(tmp_path: Path) -> None:
    url = parse_store_url(f"sqlite:///{tmp_path}/h.sqlite", "--store")
    store = open_store(url, write=True)
    with store.transaction() as conn:
        conn.execute(update(tables.schema_version).values(version=0))
    store.close()
    read_only = parse_store_url(f"sqlite:///{tmp_path}/h.sqlite?mode=ro", "--store")
    with pytest.raises(
        StoreError, match=f"needs upgrading to {CURRENT_VERSION}, which a read-only store cannot"
    ):
        open_store(read_only, write=False)


def test_a_database_with_tables_of_its_own_is_not_taken_over(store_url: StoreUrl) -> None:
    from sqlalchemy import MetaData, Table

    other = MetaData()
    Table("runs", other, Column("id", Integer))
    from sqlalchemy import create_engine

    if store_url.backend == "sqlite":
        assert store_url.sqlite_path is not None
        engine = create_engine(f"sqlite:///{store_url.sqlite_path}")
    else:
        engine = create_engine(store_url.url)
    other.create_all(engine)
    engine.dispose()
    with pytest.raises(StoreError, match="not an agenteval store: it holds tables named runs"):
        open_store(store_url, write=True)


def _four_at_once(work: Callable[[], object]) -> list[BaseException]:
    """Run ``work`` on four threads at once; what any of them raised."""
    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # collected for the caller's assertion
            errors.append(exc)

    threads = [threading.Thread(target=guarded) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_two_processes_creating_one_store_at_once(store_url: StoreUrl) -> None:
    assert _four_at_once(lambda: open_store(store_url, write=True).close()) == []
    store = open_store(store_url, write=False)
    with store.transaction() as conn:
        assert conn.execute(select(tables.schema_version.c.version)).scalars().all() == [
            CURRENT_VERSION
        ]
    store.close()


# The columns each schema version added: dropped, they make a store of the version before.
_ADDED = {
    2: [("run_sets", "case_ids"), ("run_sets", "case_statuses")],
    3: [("runs", column) for column in (*agent_spend.COLUMNS, judge_spend.UNPRICED_COLUMN)],
    4: [("runs", judge_spend.UNREPORTED_COLUMN)],
}


def _take_back(conn: Connection, version: int) -> None:
    """The schema in ``conn`` made the one of ``version``, as an older agenteval left it."""
    for step in range(CURRENT_VERSION, version, -1):
        for table, column in _ADDED[step]:
            conn.execute(text(f"ALTER TABLE {table} DROP COLUMN {column}"))
    conn.execute(update(tables.schema_version).values(version=version, written_by="0.0.9"))


def _version_1(store_url: StoreUrl, tmp_path: Path) -> dict[str, Any]:
    """A history stored, then taken back to schema 1 (before the packed statuses); its trend."""
    store = open_store(store_url, write=True)
    add_history(store, tmp_path / "main", 9)
    add_history(store, tmp_path / "other", 4, eval_set_id="other", first=20)
    with store.transaction() as conn:
        made = trend(conn, TrendFilters(last=20)).to_json()
        _take_back(conn, 1)
    store.close()
    return made


def test_a_store_from_before_packed_statuses_gives_the_same_trend(
    store_url: StoreUrl, tmp_path: Path
) -> None:
    made = _version_1(store_url, tmp_path)
    assert made["verdicts"] == {"flaky": 2, "stable_fail": 2, "stable_pass": 2, "undecided": 0}
    # Opened by this agenteval (for reading): migrated, the packed statuses filled in.
    store = open_store(store_url, write=False)
    try:
        with store.transaction() as conn:
            assert stored_version(conn) == (CURRENT_VERSION, __version__)
            assert trend(conn, TrendFilters(last=20)).to_json() == made
            packed = select(tables.run_sets.c.case_statuses).order_by(tables.run_sets.c.run)
            # steady, broken, flappy (failing in runs 3, 6, 9 and 21).
            assert conn.execute(packed).scalars().all() == ["pfp", "pfp", "pff"] * 3 + [
                "pfp",
                "pff",
                "pfp",
                "pfp",
            ]
    finally:
        store.close()


def test_readers_opening_an_older_store_at_once_migrate_it_once(
    store_url: StoreUrl, tmp_path: Path
) -> None:
    made = _version_1(store_url, tmp_path)
    found: list[dict[str, Any]] = []

    def read_trend() -> None:
        store = open_store(store_url, write=False)
        try:
            with store.transaction() as conn:
                found.append(trend(conn, TrendFilters(last=20)).to_json())
        finally:
            store.close()

    assert _four_at_once(read_trend) == []
    assert found == [made] * 4


def _recorded_by_run(store: Store, usage: dict[str, Any] | None) -> str:
    """A run as ``run --store`` records it: its trailer in ``document_keys`` (no documents)."""
    result = scripted_result(7) if usage is None else with_agent_usage(scripted_result(7))
    recorder = RunRecorder(store, RunMeta(new_run_id(), T0, "app", 1))
    recorder.start()
    rows = recorder.new_set(result.eval_set_id)
    for case in result.case_results():
        rows.add(case)
    recorder.end_set(rows, result.model_copy(update={"eval_case_results": None}), {})
    trailer: dict[str, Any] = {"warnings": []}
    if usage is not None:
        trailer["agentUsage"] = usage
    keys = {"header": {}, "trailer": trailer}
    recorder.finish(RunOutcome("failed", 1, 1.0, document_keys=keys), [FinishedSet(None, "", None)])
    return recorder.meta.run_id


def _agent_runs(store: Store, tmp_path: Path) -> dict[str, str]:
    """A run of each kind the version-3 migration meets, by name: its run id."""
    from agenteval.report.result_files import run_document, write_json

    def added(result: EvalSetResult, name: str) -> str:
        return add_results(store, [write_result(result, tmp_path / name)])[0]

    spent = with_agent_usage(scripted_result(2))
    document = run_document([spent], extra={"warnings": [], "agentUsage": spent.agent_usage})
    return {
        "added": added(with_agent_usage(scripted_result(1)), "added"),
        "run_document": add_results(store, [write_json(tmp_path / "run.json", document)])[0],
        "unpriced": added(with_agent_usage(scripted_result(3), "acme:house-model"), "unpriced"),
        "no_usage": added(scripted_result(4), "no_usage"),
        "damaged": added(with_agent_usage(scripted_result(5)), "damaged"),
        "run": _recorded_by_run(store, AGENT_SPENT),
        "run_no_usage": _recorded_by_run(store, None),
    }


def _agent_columns(conn: Connection) -> dict[str, tuple[Any, ...]]:
    runs = tables.runs
    query = select(runs.c.run_id, *(runs.c[name] for name in agent_spend.COLUMNS))
    return {row[0]: tuple(row[1:]) for row in conn.execute(query)}


WHOLE = (3, 0, 6, 7000, 1100, 0, 0.00171)  # store_support.AGENT_SPENT
UNKNOWN = (None,) * 7


def test_a_version_2_store_gets_the_agents_spend_from_what_each_run_stored(
    store_url: StoreUrl, tmp_path: Path
) -> None:
    store = open_store(store_url, write=True)
    ids = _agent_runs(store, tmp_path)
    unfinished = RunRecorder(store, RunMeta(new_run_id(), T0, "app", 1))
    unfinished.start()  # killed before it finished: no totals
    with store.transaction() as conn:
        written = _agent_columns(conn)
        _take_back(conn, 2)
        # One stored document no longer decompresses.
        key = select(tables.runs.c.id).where(tables.runs.c.run_id == ids["damaged"])
        chunks = tables.document_chunks
        conn.execute(update(chunks).where(chunks.c.run == key.scalar_subquery()).values(data=b"x"))
    store.close()
    expected = {
        "added": WHOLE,
        "run_document": WHOLE,
        "unpriced": (3, 0, 6, 7000, 1100, 3, None),  # $0 known of an unknown whole: NULL
        "no_usage": UNKNOWN,
        "damaged": UNKNOWN,  # unknown, not a migration that fails
        "run": WHOLE,
        "run_no_usage": UNKNOWN,
    }
    assert written == {
        ids[name]: value for name, value in expected.items() if name != "damaged"
    } | {
        ids["damaged"]: WHOLE,
        unfinished.meta.run_id: UNKNOWN,
    }
    store = open_store(store_url, write=False)  # migrated by a writer's transaction first
    try:
        with store.transaction() as conn:
            assert stored_version(conn) == (CURRENT_VERSION, __version__)
            migrated = _agent_columns(conn)
            rows = {row["runId"]: row for row in history_rows(conn, HistoryFilters())}
    finally:
        store.close()
    assert migrated == {ids[name]: value for name, value in expected.items()} | {
        unfinished.meta.run_id: UNKNOWN
    }
    # The migrated runs read as the ones written by this agenteval.
    assert written[ids["added"]] == migrated[ids["added"]] == migrated[ids["run"]]
    assert rows[ids["added"]]["agentUsage"] == AGENT_SPENT
    assert rows[ids["no_usage"]]["agentUsage"] is None
    assert rows[ids["unpriced"]]["agentUsage"]["costUsd"] is None


def _judge_columns(conn: Connection) -> dict[str, tuple[Any, ...]]:
    runs = tables.runs
    query = select(runs.c.run_id, runs.c.judge_cost_usd, runs.c.judge_unpriced_calls)
    return {row[0]: tuple(row[1:]) for row in conn.execute(query)}


def test_a_version_2_store_gets_the_judges_unpriced_calls_and_loses_its_partial_sums(
    store_url: StoreUrl, tmp_path: Path
) -> None:
    store = open_store(store_url, write=True)

    def added(result: EvalSetResult, name: str) -> str:
        return add_results(store, [write_result(result, tmp_path / name)])[0]

    unpriced_before_pricing = scripted_result(4)
    unpriced_before_pricing.judge_usage = {"total": {"calls": 3, "promptTokens": 3000}}
    ids = {
        "priced": added(with_judge_usage(scripted_result(1), 2), "priced"),
        "mixed": added(with_judge_usage(scripted_result(2), 2, 1), "mixed"),
        "unpriced": added(with_judge_usage(scripted_result(3), 0, 2), "unpriced"),
        "before_pricing": added(unpriced_before_pricing, "before_pricing"),
        "damaged": added(with_judge_usage(scripted_result(5), 1, 1), "damaged"),
        "no_judge": added(scripted_result(6), "no_judge"),
    }
    # judge_cost_usd as schema 2's writer left it: the priced calls' sum, whatever had no price.
    version_2 = {
        "priced": (0.009, None), "mixed": (0.009, None), "unpriced": (0.0, None),
        "before_pricing": (None, None), "damaged": (0.0045, None), "no_judge": (None, None),
    }  # fmt: skip
    with store.transaction() as conn:
        written = _judge_columns(conn)
        _take_back(conn, 2)
        runs, sets = tables.runs, tables.run_sets
        for name, (cost, _) in version_2.items():
            conn.execute(update(runs).where(runs.c.run_id == ids[name]).values(judge_cost_usd=cost))
        key = select(runs.c.id).where(runs.c.run_id == ids["damaged"]).scalar_subquery()
        conn.execute(update(sets).where(sets.c.run == key).values(judge_usage='{"total": '))
    store.close()
    expected = {
        "priced": (0.009, 0),
        "mixed": (None, 1),  # $0.009 known of an unknown whole: NULL
        "unpriced": (None, 2),
        "before_pricing": (None, None),
        "damaged": (None, None),  # unknown, not a migration that fails
        "no_judge": (None, None),
    }
    assert written == {ids[name]: value for name, value in expected.items()} | {
        ids["damaged"]: (None, 1)
    }
    store = open_store(store_url, write=False)  # migrated by a writer's transaction first
    try:
        with store.transaction() as conn:
            assert stored_version(conn) == (CURRENT_VERSION, __version__)
            migrated = _judge_columns(conn)
            rows = {row["runId"]: row["judge"] for row in history_rows(conn, HistoryFilters())}
    finally:
        store.close()
    assert migrated == {ids[name]: value for name, value in expected.items()}
    assert rows[ids["mixed"]]["pricedCostUsd"] == 0.009
    assert rows[ids["mixed"]]["unpricedModels"] == [UNPRICED_JUDGE]
    assert rows[ids["damaged"]]["costUsd"] is None


def test_a_version_3_store_gets_the_judge_calls_that_reported_no_usage(
    store_url: StoreUrl, tmp_path: Path
) -> None:
    store = open_store(store_url, write=True)

    def added(result: EvalSetResult, name: str) -> str:
        return add_results(store, [write_result(result, tmp_path / name)])[0]

    ids = {
        "priced": added(with_judge_usage(scripted_result(1), 2), "priced"),
        "unreported": added(with_judge_usage(scripted_result(2), 0, 1, 1), "unreported"),
        "both": added(with_judge_usage(scripted_result(3), 1, 3, 2), "both"),
        "damaged": added(with_judge_usage(scripted_result(4), 0, 1, 1), "damaged"),
        "no_judge": added(scripted_result(5), "no_judge"),
    }
    runs, sets = tables.runs, tables.run_sets
    column = runs.c[judge_spend.UNREPORTED_COLUMN]
    with store.transaction() as conn:
        written = dict(conn.execute(select(runs.c.run_id, column)).all())
        _take_back(conn, 3)
        key = select(runs.c.id).where(runs.c.run_id == ids["damaged"]).scalar_subquery()
        conn.execute(update(sets).where(sets.c.run == key).values(judge_usage='{"total": '))
    store.close()
    expected = {"priced": 0, "unreported": 1, "both": 2, "damaged": None, "no_judge": None}
    assert written == {ids[name]: value for name, value in expected.items()} | {ids["damaged"]: 1}
    store = open_store(store_url, write=False)  # migrated by a writer's transaction first
    try:
        with store.transaction() as conn:
            assert stored_version(conn) == (CURRENT_VERSION, __version__)
            migrated = dict(conn.execute(select(runs.c.run_id, column)).all())
            rows = {row["runId"]: row["judge"] for row in history_rows(conn, HistoryFilters())}
    finally:
        store.close()
    assert migrated == {ids[name]: value for name, value in expected.items()}
    # Version 3's columns are left as they were.
    assert (rows[ids["both"]]["unpricedCalls"], rows[ids["both"]]["unreportedCalls"]) == (3, 2)
    assert rows[ids["priced"]]["costUsd"] == 0.009
