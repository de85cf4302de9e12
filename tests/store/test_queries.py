"""Logical runs (groups of shards), metric points combined over shards, case outcomes."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update

from agenteval import __version__
from agenteval.schema.status import EvalStatus
from agenteval.store import tables
from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from agenteval.store.queries import case_outcomes, logical_runs, metric_points, rerun_warning
from sample_results import case_result, eval_set_result, metric
from store.store_support import write_result

P, F, N = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED


def _shard(store: Store, tmp_path: Path, index: int, cases: dict[str, float]) -> None:
    result = eval_set_result(
        "suite", [case_result("suite", name, [metric("m", score)]) for name, score in cases.items()]
    )
    result.eval_set_result_id = f"shard-{index}"
    add_results(store, [write_result(result, tmp_path / str(index))], run_group="g", branch="main")
    with store.transaction() as conn:
        conn.execute(
            update(tables.runs)
            .where(tables.runs.c.shard_index.is_(None))
            .values(shard_index=index, shard_count=3)
        )


def test_a_group_is_partial_until_every_shard_reported(store: Store, tmp_path: Path) -> None:
    _shard(store, tmp_path, 1, {"a": 1.0, "b": 0.0})
    _shard(store, tmp_path, 3, {"c": 1.0})
    with store.transaction() as conn:
        [group] = logical_runs(conn)
        assert (group.id, group.group, group.state, group.shards) == ("g", True, "partial", (2, 3))
        assert group.counts["total"] == 3
    _shard(store, tmp_path, 2, {"d": 1.0, "e": 1.0})
    with store.transaction() as conn:
        [group] = logical_runs(conn)
        assert (group.state, group.shards, group.outcome) == ("finished", (3, 3), "failed")
        assert group.counts == {
            "total": 5,
            "passed": 4,
            "failed": 1,
            "not_evaluated": 0,
            "incomplete": 0,
        }
        # The shards' sums combine: (1 + 0 + 1 + 1 + 1) / 5.
        [[point]] = metric_points(conn, [group]).values()
        assert point is not None and point.average == 0.8 and point.evaluated == 5
        outcomes = case_outcomes(conn, [group])
    assert outcomes == {
        ("suite", "a"): "p",
        ("suite", "b"): "f",
        ("suite", "c"): "p",
        ("suite", "d"): "p",
        ("suite", "e"): "p",
    }


def test_a_job_run_again_in_its_group_gives_the_cases_its_statuses(
    store: Store, tmp_path: Path
) -> None:
    # Two jobs of one run group scored the same cases: the second (a retry) replaces the
    # first, whatever it found: a passed then was not evaluated, b failed then passed.
    for index, (a, b) in enumerate(((P, F), (N, P)), start=1):
        result = eval_set_result(
            "suite",
            [
                case_result("suite", "a", [metric("m", 1.0)], status=a),
                case_result("suite", "b", [metric("m", 1.0)], status=b),
            ],
        )
        result.eval_set_result_id = f"job-{index}"
        add_results(store, [write_result(result, tmp_path / str(index))], run_group="g")
    with store.transaction() as conn:
        [group] = logical_runs(conn)
        assert group.state == "finished"
        assert case_outcomes(conn, [group]) == {("suite", "a"): "n", ("suite", "b"): "p"}


def test_a_group_member_holding_an_earlier_members_cases_replaces_it(
    store: Store, tmp_path: Path
) -> None:
    # A job retried in its group: the same case "a" again (now passing), beside shard "b".
    first = eval_set_result("suite", [case_result("suite", "a", [metric("m", 0.0)])])
    other = eval_set_result("suite", [case_result("suite", "b", [metric("m", 1.0)])])
    again = eval_set_result("suite", [case_result("suite", "a", [metric("m", 1.0)])])
    for name, result in (("first", first), ("other", other), ("again", again)):
        result.eval_set_result_id = name
        result.creation_timestamp = {"first": 1.0, "other": 2.0, "again": 3.0}[name] * 1e9
    ids = [
        add_results(store, [write_result(result, tmp_path / name)], run_group="g")[0]
        for name, result in (("first", first), ("other", other), ("again", again))
    ]
    with store.transaction() as conn:
        [group] = logical_runs(conn)
        told = rerun_warning(conn, "g", ids[2])
        quiet = rerun_warning(conn, "g", ids[1])
    assert [run.run_id for run in group.runs] == ids[1:]
    assert [run.run_id for run in group.replaced] == ids[:1]
    assert group.counts["total"] == 2 and group.counts["passed"] == 2
    assert sorted(s.result_id for s in group.sets) == ["again", "other"]
    assert told is not None and f"that run {ids[0]} of this group held" in told
    assert quiet is None


def test_a_case_held_twice_by_one_run_takes_its_worse_status(store: Store, tmp_path: Path) -> None:
    # One run of two namesake eval sets (two files, one evalSetId): "a" failed in the first
    # and passed in the second, "b" was not evaluated in the second (incomplete).  The run
    # failed; the last passed status won, and trend called "a" a stable pass.
    from agenteval.report.result_files import run_document, write_json

    first = eval_set_result(
        "suite",
        [
            case_result("suite", "a", [metric("m", 0.0)]),
            case_result("suite", "b", [metric("m", 1.0)]),
            case_result("suite", "c", [metric("m", 1.0)]),
        ],
    )
    second = eval_set_result(
        "suite",
        [
            case_result("suite", "a", [metric("m", 1.0)]),
            case_result("suite", "b", [metric("m", 0.0, status=N)]),
            case_result("suite", "c", [metric("m", 1.0)]),
        ],
    )
    second.eval_set_result_id = "second"
    document = run_document([first, second], duration_seconds=1.0)
    add_results(store, [write_json(tmp_path / "run.json", document)])
    with store.transaction() as conn:
        [run] = logical_runs(conn)
        assert run.outcome == "incomplete"
        assert case_outcomes(conn, [run]) == {
            ("suite", "a"): "f",
            ("suite", "b"): "i",
            ("suite", "c"): "p",
        }


def _running_member(store: Store, run_id: str, **slot: int) -> None:
    """A member of group "g" that started first and stored nothing: still ``running``."""
    with store.transaction() as conn:
        conn.execute(
            tables.runs.insert().values(
                run_id=run_id,
                run_group="g",
                state="running",
                started_at=1.0,
                agenteval_version=__version__,
                app_name="app",
                num_runs=1,
                origin="run",
                **slot,
            )
        )


def test_a_shard_killed_before_it_stored_a_case_is_replaced_by_its_rerun(
    store: Store, tmp_path: Path
) -> None:
    # Shard 2's first job was killed (a CI timeout) before it stored a case: its member stays
    # "running" for good.  The group read unfinished forever once shard 2 ran again.
    _running_member(store, "killed", shard_index=2, shard_count=3)
    _shard(store, tmp_path, 1, {"a": 1.0})
    _shard(store, tmp_path, 3, {"c": 1.0})
    with store.transaction() as conn:
        [group] = logical_runs(conn)
        assert (group.state, group.outcome) == ("unfinished", None)  # it may still be running
    _shard(store, tmp_path, 2, {"b": 0.0})
    with store.transaction() as conn:
        [group] = logical_runs(conn)
        rerun = next(run.run_id for run in group.runs if run.shard_index == 2)
        told = rerun_warning(conn, "g", rerun)
    assert (group.state, group.shards, group.outcome) == ("finished", (3, 3), "failed")
    assert [run.run_id for run in group.replaced] == ["killed"]
    assert group.counts["total"] == 3
    assert told is not None and "runs shard 2/3 again, which run killed of this group" in told


def test_an_unsharded_member_that_stored_nothing_yet_is_not_replaced(
    store: Store, tmp_path: Path
) -> None:
    # Unsharded jobs of one group score other eval sets: one that stored nothing yet is
    # another job still running, not one a later job ran again.
    _running_member(store, "slow-job")
    result = eval_set_result("suite", [case_result("suite", "a", [metric("m", 1.0)])])
    add_results(store, [write_result(result, tmp_path / "job")], run_group="g")
    with store.transaction() as conn:
        [group] = logical_runs(conn)
    assert group.state == "unfinished" and group.replaced == []
