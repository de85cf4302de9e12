"""``@latest``, ``@RUN_ID``, ``@branch:NAME``: the run a reference names, or why none."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import update

from agenteval.store import tables
from agenteval.store.adding import add_results
from agenteval.store.baselines import Reference, ReferenceProblem, is_reference, resolve
from agenteval.store.connection import Store
from store.store_support import add_history, scripted_result, write_result


def test_parsing() -> None:
    assert Reference.parse("@latest") == Reference("latest")
    assert Reference.parse("@branch:release/1.2") == Reference("branch", "release/1.2")
    assert Reference.parse("@0a1b2c") == Reference("run", "0a1b2c")
    assert is_reference("@latest") and not is_reference("run.json")
    with pytest.raises(ReferenceProblem, match="no branch named"):
        Reference.parse("@branch:")


def test_latest_branch_and_ids(store: Store, tmp_path: Path) -> None:
    main = add_history(store, tmp_path / "main", 3)
    feature = add_history(
        store, tmp_path / "f", 2, branch="feature", eval_set_id="suite2", first=10
    )
    with store.transaction() as conn:
        assert resolve(conn, "@latest").id == feature[-1]
        assert resolve(conn, "@branch:main").id == main[-1]
        assert resolve(conn, "@latest", ["suite"]).id == main[-1]
        assert resolve(conn, f"@{main[0]}").id == main[0]
        assert resolve(conn, f"@{main[0][:6]}").id == main[0]
        with pytest.raises(
            ReferenceProblem, match="no finished run of eval sets suite2 on branch 'main'"
        ):
            resolve(conn, "@branch:main", ["suite2"])
        with pytest.raises(ReferenceProblem, match="no run 'zzzzzz' in the store"):
            resolve(conn, "@zzzzzz")


def test_unfinished_and_interrupted_runs_are_never_picked(store: Store, tmp_path: Path) -> None:
    done = add_history(store, tmp_path / "a", 1)
    [late] = add_results(store, [write_result(scripted_result(5), tmp_path / "b")], branch="main")
    with store.transaction() as conn:
        conn.execute(
            update(tables.runs).where(tables.runs.c.run_id == late).values(state="running")
        )
        assert resolve(conn, "@branch:main").id == done[0]
        with pytest.raises(ReferenceProblem, match=f"run {late} is unfinished"):
            resolve(conn, f"@{late}")
        conn.execute(
            update(tables.runs).where(tables.runs.c.run_id == late).values(state="interrupted")
        )
        assert resolve(conn, "@latest").id == done[0]
        # Named on purpose, an interrupted run can be shown.
        assert resolve(conn, f"@{late}").state == "interrupted"


def test_a_run_group_is_a_baseline_only_once_every_shard_reported(
    store: Store, tmp_path: Path
) -> None:
    older = add_history(store, tmp_path / "old", 1)
    add_results(
        store, [write_result(scripted_result(7), tmp_path / "s1")], run_group="g1", branch="main"
    )
    with store.transaction() as conn:
        conn.execute(
            update(tables.runs)
            .where(tables.runs.c.run_group == "g1")
            .values(shard_index=1, shard_count=2)
        )
        assert resolve(conn, "@branch:main").id == older[0]
        with pytest.raises(
            ReferenceProblem, match=r"run group g1 is partial \(1 of 2 shards reported\)"
        ):
            resolve(conn, "@g1")
    result = scripted_result(8)
    add_results(store, [write_result(result, tmp_path / "s2")], run_group="g1", branch="main")
    with store.transaction() as conn:
        conn.execute(
            update(tables.runs)
            .where(tables.runs.c.run_group == "g1", tables.runs.c.shard_index.is_(None))
            .values(shard_index=2, shard_count=2)
        )
        group = resolve(conn, "@branch:main")
    assert (group.id, group.group, group.state, group.shards) == ("g1", True, "finished", (2, 2))
