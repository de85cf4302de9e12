"""``store add``: result files and run documents become stored runs, kept verbatim."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.errors import ConfigError
from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from agenteval.store.export import export_run
from agenteval.store.queries import logical_runs
from cli_process import run_cli
from store.store_support import AGENT_SPENT, T0, scripted_result, with_agent_usage, write_result


def test_result_files_given_together_are_one_run_each_kept_verbatim(
    store: Store, tmp_path: Path
) -> None:
    first = write_result(scripted_result(1, "alpha"), tmp_path / "in")
    second = write_result(scripted_result(1, "beta"), tmp_path / "in")
    [run_id] = add_results(store, [tmp_path / "in"], commit="c0ffee", branch="main")
    with store.transaction() as conn:
        [run] = logical_runs(conn)
    assert run.id == run_id
    assert (run.state, run.outcome, run.first.origin) == ("finished", "failed", "add")
    assert (run.first.commit, run.first.branch) == ("c0ffee", "main")
    assert run.eval_set_ids == ["alpha", "beta"]
    assert run.counts == {"total": 6, "passed": 4, "failed": 2, "not_evaluated": 0, "incomplete": 0}
    # Times come from the files: creationTimestamp of run 1 is T0 + 1 h.
    assert run.started_at == T0 + 3600
    written = export_run(store, run, tmp_path / "out", None)
    assert sorted(p.name for p in written) == sorted([first.name, second.name])
    for path in written:
        assert path.read_bytes() == (tmp_path / "in" / path.name).read_bytes()


def test_a_run_document_is_one_run_and_exports_verbatim(store: Store, tmp_path: Path) -> None:
    from agenteval.report.result_files import run_document, write_json

    document = run_document(
        [scripted_result(2, "alpha"), scripted_result(2, "beta")],
        duration_seconds=12.5,
        extra={"warnings": []},
    )
    document["createdAt"] = T0 + 100
    path = write_json(tmp_path / "run.json", document)
    [run_id] = add_results(store, [path])
    with store.transaction() as conn:
        [run] = logical_runs(conn)
    assert run.id == run_id
    assert run.started_at == pytest.approx(T0 + 100 - 12.5)
    assert run.first.duration_seconds == 12.5
    export_run(store, run, tmp_path / "out", tmp_path / "back.json")
    assert (tmp_path / "back.json").read_bytes() == path.read_bytes()
    # Its eval sets as result files, each the document's entry.
    exported = sorted((tmp_path / "out").iterdir())
    assert [json.loads(p.read_bytes())["evalSetId"] for p in exported] == ["alpha", "beta"]


def test_adding_the_same_result_twice_or_one_eval_set_twice_is_refused(
    store: Store, tmp_path: Path
) -> None:
    path = write_result(scripted_result(1), tmp_path / "a")
    add_results(store, [path])
    with pytest.raises(ConfigError, match=r"result 'app_suite_0001' is stored already \(run "):
        add_results(store, [path])
    other = write_result(scripted_result(2), tmp_path / "b")
    third = write_result(scripted_result(3), tmp_path / "b")
    with pytest.raises(ConfigError) as caught:
        add_results(store, [other, third])
    assert "eval set 'suite' is also in" in str(caught.value)
    assert "add each run's files in its own `store add`" in str(caught.value)


def test_a_run_document_given_with_its_result_files_is_refused(
    store: Store, tmp_path: Path
) -> None:
    # `run --output runs/ --json run.json`, then `store add run.json runs/`: one result twice
    # was stored as two runs, every case counted twice in history and trend.
    from agenteval.report.result_files import run_document, write_json

    result = scripted_result(1)
    files = write_result(result, tmp_path / "runs").parent
    document = write_json(tmp_path / "run.json", run_document([result], duration_seconds=1.0))
    for paths in ([document, files], [files, document]):
        with pytest.raises(ConfigError) as caught:
            add_results(store, paths)
        assert "result 'app_suite_0001' is also in" in str(caught.value)
    with store.transaction() as conn:
        assert logical_runs(conn) == []
    [run_id] = add_results(store, [document])
    with store.transaction() as conn:
        assert [run.id for run in logical_runs(conn)] == [run_id]


def test_the_agents_spend_of_added_files_and_run_documents(store: Store, tmp_path: Path) -> None:
    from agenteval.report.result_files import run_document, write_json

    # Two eval sets given together: one run, its agent's spend their sum (Decimal, as `run`'s).
    write_result(with_agent_usage(scripted_result(1, "alpha")), tmp_path / "in")
    write_result(with_agent_usage(scripted_result(1, "beta")), tmp_path / "in")
    spent = with_agent_usage(scripted_result(2, "gamma"))
    document = run_document([spent], extra={"warnings": [], "agentUsage": spent.agent_usage})
    write_result(scripted_result(3, "delta"), tmp_path / "bare")  # from before agentUsage
    together, from_document, bare = (
        add_results(store, [path])[0]
        for path in (
            tmp_path / "in",
            write_json(tmp_path / "run.json", document),
            tmp_path / "bare",
        )
    )
    with store.transaction() as conn:
        runs = {run.id: run for run in logical_runs(conn)}
    assert runs[together].agent_usage == {
        **AGENT_SPENT,
        "turns": 6,
        "inferenceCalls": 12,
        "inputTokens": 14000,
        "outputTokens": 2200,
        "costUsd": 0.00342,
    }
    assert runs[from_document].agent_usage == AGENT_SPENT
    assert runs[bare].agent_usage is None


@pytest.mark.parametrize("kind", ["result file", "run document"])
def test_a_file_with_invalid_utf8_is_stored_as_read(tmp_path: Path, kind: str) -> None:
    """A byte that is no UTF-8 inside a string: ``store add`` read it as U+FFFD with a warning
    but stored the bytes verbatim, and every later read of the run (show @latest, diff,
    export) was an internal error (exit 4); a run document was one in ``store add`` itself.
    Now the file is stored as it was read, and the run reads back with the U+FFFD."""
    from agenteval.report.result_files import run_document, write_json

    result = scripted_result(1)
    if kind == "result file":
        path = write_result(result, tmp_path / "in")
    else:
        path = write_json(tmp_path / "run.json", run_document([result], extra={"warnings": []}))
    data = path.read_bytes()
    assert data.count(b"wrong tool") == 1
    path.write_bytes(data.replace(b"wrong tool", b"wrong \xfftool"))
    store = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    added = run_cli(["store", "add", str(path), "--store", store])
    assert added.returncode == 0, added.stdout + added.stderr
    assert (
        f"warning: {path}: invalid UTF-8 read as U+FFFD, as trpc-agent-go reads it: byte 0xff"
        in added.stderr
    )
    shown = run_cli(["show", "@latest", "--store", store, "--max-shown", "0"])
    # One case of the three fails (exit 1), as `show` of the file itself says.
    assert shown.returncode == run_cli(["show", str(path), "--max-shown", "0"]).returncode == 1
    assert "internal error" not in shown.stderr, shown.stderr
    assert "2 of 3 cases passed" in shown.stdout
    exported = run_cli(
        ["store", "export", "@latest", "--store", store, "-o", str(tmp_path / "out")]
    )
    assert exported.returncode == 0, exported.stdout + exported.stderr
    [back] = (tmp_path / "out").iterdir()
    [case] = [
        c for c in json.loads(back.read_bytes())["evalCaseResults"] if c["evalId"] == "broken"
    ]
    [metric] = case["overallEvalMetricResults"]
    assert metric["details"]["reason"] == "wrong \ufffdtool"
