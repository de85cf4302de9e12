"""A stored run written back out; stored results read back; damage reported, not hidden."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import delete, update

from agenteval.results.merging import merge_results
from agenteval.store import tables
from agenteval.store.adding import add_results
from agenteval.store.connection import Store, StoreError
from agenteval.store.export import export_run, materialize, stored_results
from agenteval.store.queries import logical_runs
from sample_results import case_result, eval_set_result, metric
from store.store_support import scripted_result, write_result


def test_stored_results_read_back_equal_the_files(store: Store, tmp_path: Path) -> None:
    result = scripted_result(4)
    add_results(store, [write_result(result, tmp_path)])
    with store.transaction() as conn:
        [run] = logical_runs(conn)
    assert stored_results(store, run) == [result]
    path = materialize(store, run, tmp_path / "m")
    assert path.name == f"run-{run.id}.json"
    assert path.is_file()


def test_added_files_of_one_name_export_as_two_files(store: Store, tmp_path: Path) -> None:
    # `store add a/x.evalset_result.json b/x.evalset_result.json` (two eval sets): exported
    # under their stored names, the second overwrote the first ("wrote" said twice).  A name
    # differing only in case is numbered too: one file on a case-insensitive disk.
    names = ["x.evalset_result.json", "x.evalset_result.json", "X.evalset_result.json"]
    given = []
    for name, eval_set_id in zip(names, ("alpha", "beta", "gamma"), strict=True):
        path = write_result(scripted_result(1, eval_set_id), tmp_path / eval_set_id)
        given.append(path.rename(path.with_name(name)))
    add_results(store, given)
    with store.transaction() as conn:
        [run] = logical_runs(conn)
    written = export_run(store, run, tmp_path / "out", None)
    assert [path.name for path in written] == [
        "x.evalset_result.json",
        "x-2.evalset_result.json",
        "X-3.evalset_result.json",
    ]
    assert [path.read_bytes() for path in written] == [path.read_bytes() for path in given]


def test_a_run_group_exports_what_merge_gives(store: Store, tmp_path: Path) -> None:
    one = eval_set_result("suite", [case_result("suite", "a", [metric("m", 1.0)])])
    two = eval_set_result("suite", [case_result("suite", "b", [metric("m", 0.0)])])
    one.eval_set_result_id, two.eval_set_result_id = "shard-1", "shard-2"
    add_results(store, [write_result(one, tmp_path / "s1")], run_group="nightly")
    add_results(store, [write_result(two, tmp_path / "s2")], run_group="nightly")
    with store.transaction() as conn:
        [run] = logical_runs(conn)
    assert run.group and run.id == "nightly"
    [merged] = stored_results(store, run)
    assert merged == merge_results([one, two], sources=["1", "2"])[0]
    [written] = export_run(store, run, tmp_path / "out", None)
    assert written.read_bytes().count(b'"evalId"') == 4  # two cases + two case summaries


def test_a_missing_chunk_is_a_store_error_naming_the_run(store: Store, tmp_path: Path) -> None:
    add_results(store, [write_result(scripted_result(1), tmp_path)])
    with store.transaction() as conn:
        conn.execute(delete(tables.document_chunks))
        [run] = logical_runs(conn)
    with pytest.raises(
        StoreError, match=f"run {run.id}: the result document of suite is cut short"
    ):
        export_run(store, run, tmp_path / "out", None)


@pytest.mark.parametrize("keys", ['{"header": {', '["header"]', '{"trailer": [1]}'])
def test_damaged_run_document_keys_are_a_located_store_error(
    store: Store, tmp_path: Path, keys: str
) -> None:
    # runs.document_keys (a run's header and trailer) edited by hand: was an internal error.
    add_results(store, [write_result(scripted_result(1), tmp_path)])
    with store.transaction() as conn:
        conn.execute(update(tables.runs).values(document_keys=keys))
        [run] = logical_runs(conn)
    with pytest.raises(StoreError) as raised:
        export_run(store, run, None, tmp_path / "run.json")
    assert "runs id 1/document_keys: is not a JSON object" in str(raised.value)
    assert not (tmp_path / "run.json").exists()
