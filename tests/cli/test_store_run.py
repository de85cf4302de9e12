"""``agenteval run --store / --baseline / --run-group`` end to end, against SQLite and a real
PostgreSQL: what is recorded, baselines from the store, and every way a store can fail."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from cli.store_workspace import (
    Ran,
    Workspace,
    agenteval,
    clean_environment,
    in_process,
    invoke,
    write_big_suite,
    write_judged_suite,
)
from cli.test_agent_cost import TOOL_COUNT, TURNS, cost, write_usage_suite
from judge_server import JudgeServer, Reply
from postgres_server import PASSWORD, PostgresServer, skip_without_postgres

INVALID = "reasoning: it differs\nis_the_agent_response_valid: invalid"
# A run's one verdict line: its word, then the counts, the eval sets and the wall time.
VERDICT_WORD = re.compile(r"^(PASSED|FAILED|INCOMPLETE|NOT EVALUATED|REGRESSED|NO REGRESSION)\b")
VERDICT_LINE = re.compile(VERDICT_WORD.pattern + r".* · \d+\.\d\d s$")


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "project")


def _history(where: Workspace | Path, store: str) -> list[dict[str, object]]:
    root = where.root if isinstance(where, Workspace) else where
    listed = invoke(root, "history", "--store", store, "--json", "--last", "0")
    assert listed.exit_code == 0, listed.output
    rows: list[dict[str, object]] = json.loads(listed.stdout)
    return rows


def test_bare_store_records_the_run_with_its_commit_branch_and_ci_job(
    workspace: Workspace,
) -> None:
    head = workspace.git("rev-parse", "HEAD")
    (workspace.root / "suite.evalset.json").write_text(workspace.evalset.read_text() + " ")
    ci = {
        "GITHUB_SERVER_URL": "https://gh.example",
        "GITHUB_REPOSITORY": "t/a",
        "GITHUB_RUN_ID": "7",
    }
    proc = agenteval(*workspace.run_args("--store", "--output", "out"), cwd=workspace.root, env=ci)
    assert proc.returncode == 1, proc.stderr
    store = workspace.root / ".agenteval" / "history.sqlite"
    assert store.is_file()
    [row] = _history(workspace, f"sqlite:///{store}")
    assert f"stored run {row['runId']} in sqlite:///{store}" in proc.stdout
    assert (row["commit"], row["branch"], row["dirty"]) == (head, "main", True)
    assert row["ciUrl"] == "https://gh.example/t/a/actions/runs/7"
    assert (row["state"], row["outcome"], row["exitCode"]) == ("finished", "failed", 1)
    assert row["cases"] == {
        "total": 3,
        "passed": 2,
        "failed": 1,
        "notEvaluated": 0,
        "incomplete": 0,
    }
    # $AGENTEVAL_STORE records too, into the store it names.
    env = {"AGENTEVAL_STORE": "sqlite:///env.sqlite"}
    proc = in_process(*workspace.run_args("-q"), cwd=workspace.root, env=env)
    assert proc.returncode == 1, proc.stderr
    assert len(_history(workspace, "sqlite:///env.sqlite")) == 1


def test_num_runs_gives_each_case_one_verdict_on_console_and_in_the_run_document(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    suite = write_judged_suite(tmp_path, judge_server.base_url)
    judge_server.enqueue(Reply(), Reply(content=INVALID), Reply())
    env = {"JUDGE_MODEL_API_KEY": "sk-test-verdicts"}
    proc = in_process(
        "run", "--evalset", str(suite), "-n", "3", "--no-cache", "--concurrency", "1",
        "--store", "sqlite:///h.sqlite", "--json", "run.json", "--no-progress",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert judge_server.count == 3
    line = next(line for line in proc.stdout.splitlines() if line.strip().startswith("judged "))
    assert line.split()[:4] == ["judged", "2/3", "flaky", "0.2077–0.9385"]
    document = json.loads((tmp_path / "run.json").read_text())
    verdict = document["caseVerdicts"]["judged"]["judged"]
    assert (verdict["verdict"], verdict["passedRuns"], verdict["runs"]) == ("flaky", 2, 3)
    assert verdict["wilsonLow"] == pytest.approx(0.2077, abs=1e-4)
    # The store has the judge's calls and tokens, and the run document byte for byte.
    [row] = _history(tmp_path, "sqlite:///h.sqlite")
    judge = row["judge"]
    assert isinstance(judge, dict) and judge["calls"] == 3 and judge["promptTokens"] == 33
    exported = in_process(
        "store", "export", "@latest", "--store", "sqlite:///h.sqlite", "--json", "back.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "back.json").read_bytes() == (tmp_path / "run.json").read_bytes()


def test_baseline_from_the_store_exits_1_on_a_regression_and_0_without(
    workspace: Workspace,
) -> None:
    store = "sqlite:///team.sqlite"
    workspace.write_traces(1, flappy_fails=False)
    workspace.commit("main")
    main = in_process(*workspace.run_args("--store", store, "-q"), cwd=workspace.root)
    assert main.returncode == 1, main.stderr  # broken fails on main already
    workspace.git("checkout", "-q", "-b", "pr-7")
    workspace.write_traces(2, flappy_fails=True)
    workspace.commit("pr breaks flappy")
    pr = in_process(
        *workspace.run_args("--store", store, "--baseline", "@branch:main"), cwd=workspace.root
    )
    assert pr.returncode == 1, pr.stdout + pr.stderr
    [main_row] = [row for row in _history(workspace, store) if row["branch"] == "main"]
    lines = pr.stdout.splitlines()
    [compared] = [i for i, line in enumerate(lines) if line.startswith("compared with ")]
    assert lines[compared].startswith(
        f"compared with @branch:main (run {main_row['runId']}, commit "
    )
    assert lines[compared].endswith("): 3 cases and 6 metrics compared · tolerance 0")
    # flappy regressed, and so did its tool metric: the table, then the one verdict line,
    # last, saying what the exit code says.
    table = "\n".join(lines[compared + 1 : -1])
    assert "flappy" in table and "broken" not in table
    assert VERDICT_LINE.match(lines[-1]), lines[-1]
    assert lines[-1].startswith(
        "REGRESSED: 1 of 3 cases passed (2 failed) · 1 eval set · 2 regressions vs @branch:main · "
    ), pr.stdout
    assert [line for line in lines if VERDICT_WORD.match(line)] == [lines[-1]], pr.stdout
    newest = _history(workspace, store)[0]["runId"]
    stored = f"stored run {newest} in sqlite:///{workspace.root / 'team.sqlite'}"
    assert lines.index(stored) < compared
    workspace.write_traces(3, flappy_fails=False)
    workspace.commit("pr fixes flappy")
    fixed = in_process(
        *workspace.run_args("--store", store, "--baseline", "@branch:main"), cwd=workspace.root
    )
    # broken still fails, as on main: not a regression, so the PR passes, and says so last.
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    lines = fixed.stdout.splitlines()
    assert lines[-1].startswith(
        "NO REGRESSION: 2 of 3 cases passed (1 failed) · 1 eval set · "
        "0 regressions vs @branch:main · "
    ), fixed.stdout
    assert [line for line in lines if VERDICT_WORD.match(line)] == [lines[-1]], fixed.stdout
    rows = _history(workspace, store)
    assert [row["branch"] for row in rows] == ["pr-7", "pr-7", "main"]
    # No such branch: exit 2 before scoring; nothing written, nothing stored.
    none = in_process(
        *workspace.run_args("--store", store, "--baseline", "@branch:nope", "--output", "never"),
        cwd=workspace.root,
    )
    assert none.returncode == 2
    assert none.stderr.strip() == (
        "error: --baseline @branch:nope: no finished run of eval sets suite on branch 'nope' "
        "(record one with `agenteval run --store URL`; `agenteval history` lists the runs)\n"
        "1 problem found."
    )
    assert not (workspace.root / "never").exists()
    assert len(_history(workspace, store)) == 3


def _other_suites_result(tmp_path: Path) -> Path:
    """The result file of a run of another eval set (no case shared with the workspace's)."""
    other = write_big_suite(tmp_path / "other", 3, "other")
    made = in_process("run", "--evalset", str(other), "--output", "base", "-q", cwd=tmp_path)
    assert made.returncode == 1, made.stderr
    [made_file] = list((tmp_path / "base").iterdir())
    return made_file


def test_a_baseline_sharing_no_case_is_incomplete_and_says_so_last(
    workspace: Workspace, tmp_path: Path
) -> None:
    made_file = _other_suites_result(tmp_path)
    baseline = "main.evalset_result.json"  # a short name: the verdict line fits on one line
    (workspace.root / baseline).write_bytes(made_file.read_bytes())
    proc = in_process(*workspace.run_args("--baseline", baseline), cwd=workspace.root)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        "error: --baseline: no case is in both the baseline and this run; nothing was compared"
    ]
    lines = proc.stdout.splitlines()
    assert VERDICT_LINE.match(lines[-1]), proc.stdout
    assert lines[-1].startswith(
        f"INCOMPLETE: 2 of 3 cases passed (1 failed) · 1 eval set · nothing compared with "
        f"{baseline} · "
    ), proc.stdout
    assert [line for line in lines if VERDICT_WORD.match(line)] == [lines[-1]]


def test_a_partial_baseline_is_incomplete_never_a_clean_verdict(workspace: Workspace) -> None:
    # A baseline from a run stopped before "flappy" was scored ("partial": true, as a
    # stopped run writes it). Was: "flappy  appeared" and "NO REGRESSION …", exit 0.
    made = in_process(*workspace.run_args("--output", "base", "-q"), cwd=workspace.root)
    assert made.returncode == 1, made.stderr
    [made_file] = list((workspace.root / "base").iterdir())
    data = json.loads(made_file.read_text(encoding="utf-8"))
    data["evalCaseResults"] = [c for c in data["evalCaseResults"] if c["evalId"] != "flappy"]
    summaries = data["summary"]["evalCaseSummaries"]
    data["summary"]["evalCaseSummaries"] = [c for c in summaries if c["evalId"] != "flappy"]
    data["partial"] = True
    baseline = "stopped.evalset_result.json"
    (workspace.root / baseline).write_text(json.dumps(data), encoding="utf-8")
    proc = in_process(*workspace.run_args("--baseline", baseline), cwd=workspace.root)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "appeared" not in proc.stdout
    unscored = [line for line in lines if line.startswith("unscored ")]
    assert len(unscored) == 1 and " flappy " in unscored[0], proc.stdout
    assert unscored[0].rstrip().endswith("not scored in BASE (interrupted)")
    assert "BASE is partial (interrupted): 1 case not scored" in lines
    assert VERDICT_LINE.match(lines[-1]), proc.stdout
    assert lines[-1].startswith(
        "INCOMPLETE: 2 of 3 cases passed (1 failed) · 1 eval set · 0 regressions, 1 unscored vs "
        f"{baseline} · baseline partial (interrupted) · "
    ), proc.stdout
    assert [line for line in lines if VERDICT_WORD.match(line)] == [lines[-1]]


def test_a_baseline_files_unknown_key_is_a_warning_printed_before_scoring(
    workspace: Workspace, tmp_path: Path
) -> None:
    made_file = _other_suites_result(tmp_path)
    data = json.loads(made_file.read_text(encoding="utf-8"))
    data["summary"]["runStatusCounts"]["skipped"] = 0  # a closed object's unknown key
    baseline = workspace.root / "noted.evalset_result.json"
    baseline.write_text(json.dumps(data), encoding="utf-8")
    proc = in_process(*workspace.run_args("--baseline", baseline.name), cwd=workspace.root)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"warning: {baseline.name}: summary.runStatusCounts.skipped: 'skipped' is not a field "
        "of StatusCounts (known: passed, failed, notEvaluated)"
    ), proc.stderr


def _bump_schema(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE agenteval_schema SET version = 99, written_by = '9.0.0'")


@pytest.mark.parametrize("case", ["unreachable", "password", "newer", "read-only"])
def test_a_store_that_cannot_take_the_run_is_exit_2_before_scoring(
    workspace: Workspace, postgres_server: PostgresServer, case: str
) -> None:
    if case == "unreachable":
        url = f"postgresql://ci:{PASSWORD}@127.0.0.1:1/evals"
        expected = "postgresql://ci:***@127.0.0.1:1/evals: cannot connect: connection refused"
    elif case == "password":
        url = postgres_server.url("postgres", password="wrong-" + PASSWORD)
        expected = ": cannot connect: wrong user name or password"
    elif case == "newer":
        store = workspace.root / "new.sqlite"
        made = in_process(*workspace.run_args("--store", str(store), "-q"), cwd=workspace.root)
        assert made.returncode == 1, made.stderr
        _bump_schema(store)
        url = f"sqlite:///{store}"
        expected = "the store's schema is version 99, written by agenteval 9.0.0"
    else:
        store = workspace.root / "ro.sqlite"
        in_process(*workspace.run_args("--store", str(store), "-q"), cwd=workspace.root)
        url = f"sqlite:///{store}?mode=ro"
        expected = "the store is read-only (?mode=ro)"
    proc = in_process(*workspace.run_args("--store", url, "--output", "out"), cwd=workspace.root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ")
    assert expected in proc.stderr
    assert proc.stderr.splitlines()[1:] == ["1 problem found."]  # one error, as every bad input
    assert PASSWORD not in proc.stdout + proc.stderr
    # Nothing was scored: no case lines, no result file.
    assert "PASSED" not in proc.stdout and "FAILED" not in proc.stdout
    assert not (workspace.root / "out").exists()


def test_a_read_only_postgres_database_is_exit_2(
    workspace: Workspace, postgres_server: PostgresServer, pg_url: str
) -> None:
    made = in_process(*workspace.run_args("--store", pg_url, "-q"), cwd=workspace.root)
    assert made.returncode == 1, made.stderr
    database = pg_url.split("@/")[1].split("?")[0]
    postgres_server.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
    proc = in_process(*workspace.run_args("--store", pg_url), cwd=workspace.root)
    assert proc.returncode == 2
    assert (
        "the store is read-only (cannot execute INSERT in a read-only transaction)" in proc.stderr
    )
    assert PASSWORD not in proc.stderr


def _in_small_tmpfs(script: str, mount: Path, size_kb: int) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (sh) in a private mount namespace where ``mount`` ($D) is a small tmpfs."""
    unshare = ["unshare", "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        unshare = ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    probe = subprocess.run(
        [*unshare, "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', str(mount)],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip("cannot mount a small tmpfs (no mount namespace here): needed for a full store")
    wrapped = f'mount -t tmpfs -o size={size_kb}k tmpfs "$D" && {script}'
    return subprocess.run(
        [*unshare, "sh", "-c", wrapped],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=clean_environment({"D": str(mount)}),
    )


def test_a_full_store_is_exit_3_after_scoring_with_the_result_files_written(
    workspace: Workspace, tmp_path: Path
) -> None:
    big = write_big_suite(tmp_path / "big", 1500)
    seed = tmp_path / "seed" / "h.sqlite"
    made = agenteval(*workspace.run_args("--store", str(seed), "-q"), cwd=workspace.root)
    assert made.returncode == 1, made.stderr
    with sqlite3.connect(seed) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    mount = tmp_path / "mnt"
    mount.mkdir()
    # Room for the run row (and the WAL index), not for 1,500 cases of rows.
    size_kb = seed.stat().st_size // 1024 + 200
    python = sys.executable
    script = (
        f'cp "{seed}" "$D/h.sqlite" && cd "{workspace.root}" && '
        f'"{python}" -m agenteval run --evalset "{big}" --no-progress -q '
        f'--store "sqlite:///$D/h.sqlite" --output "{tmp_path}/out"; code=$?; '
        f'cp "$D"/h.sqlite* "{tmp_path}/"; exit $code'
    )
    proc = _in_small_tmpfs(script, mount, size_kb)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "the store is full (database or disk is full)" in proc.stderr
    assert "(the run was not stored; its result files were written)" in proc.stderr
    # The one verdict line, last, says what exit 3 says, and why.
    last = proc.stdout.splitlines()[-1]
    assert last.startswith("INCOMPLETE: 1200 of 1500 cases passed (300 failed) · 1 eval set · "
                           "not stored · "), proc.stdout  # fmt: skip
    [written] = list((tmp_path / "out").iterdir())
    assert json.loads(written.read_text())["evalSetId"] == "big"
    # The store holds the earlier run, finished, and no finished half of this one.
    with sqlite3.connect(tmp_path / "h.sqlite") as conn:
        states = conn.execute("SELECT state, cases_total FROM runs ORDER BY id").fetchall()
    assert states[0] == ("finished", 3)
    assert all(state != "finished" for state, _ in states[1:])


def test_the_store_going_down_mid_run_never_stops_scoring(
    workspace: Workspace, judge_server: JudgeServer, tmp_path: Path
) -> None:
    skip_without_postgres()
    server = PostgresServer()
    try:
        server.start()
        url = server.create_database()
        judged = write_judged_suite(tmp_path / "judged", judge_server.base_url)
        judge_server.latency = 1.5
        env = clean_environment({"JUDGE_MODEL_API_KEY": "sk-test-down"})
        child = subprocess.Popen(
            [sys.executable, "-m", "agenteval", "run", "--evalset", str(judged), "-n", "4",
             "--no-cache", "--concurrency", "1", "--store", url, "--output", str(tmp_path / "out"),
             "--no-progress"],
            cwd=workspace.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with engine.connect() as conn:
                    if conn.execute(text("SELECT count(*) FROM runs")).scalar_one():
                        break
            except Exception:
                pass
            time.sleep(0.1)
        engine.dispose()
        server.stop("immediate")  # the database dies while the judge is being asked
        out, err = child.communicate(timeout=240)
    finally:
        server.remove()
    assert child.returncode == 3, out + err
    assert judge_server.count == 4
    assert "error: postgresql://agenteval:***@/" in err
    assert "(the run was not stored; its result files were written)" in err
    assert out.splitlines()[-1].startswith(
        "INCOMPLETE: 1 of 1 cases passed · 1 eval set · not stored · "
    ), out
    assert PASSWORD not in out + err
    assert len(list((tmp_path / "out").iterdir())) == 1


def _count(url: str, query: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(query)).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_during_the_store_write_leaves_the_run_unfinished(
    workspace: Workspace, tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path}/h.sqlite"
        engine_url = url
    else:
        url = request.getfixturevalue("pg_url")
        engine_url = url.replace("postgresql://", "postgresql+psycopg://")
    big = write_big_suite(tmp_path / "big", 4_000)
    child = subprocess.Popen(
        [sys.executable, "-m", "agenteval", "run", "--evalset", str(big), "--no-progress", "-q",
         "--store", url],
        cwd=workspace.root, env=clean_environment(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 240
    written = 0
    while time.monotonic() < deadline and child.poll() is None:
        try:
            written = _count(engine_url, "SELECT count(*) FROM case_runs")
        except Exception:
            written = 0
        if written:
            break
        time.sleep(0.05)
    assert child.poll() is None, "the run ended before its rows were being written"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert written > 0
    rows = _history(workspace, url)
    assert [(row["state"], row["outcome"]) for row in rows] == [("unfinished", None)]
    # An unfinished run is never a baseline, never in a trend, never exported.
    latest = in_process("show", "@latest", "--store", url, cwd=workspace.root)
    assert latest.returncode == 2
    assert "no finished run on the store" in latest.stderr
    export = agenteval(
        "store", "export", str(rows[0]["runId"]), "--store", url, "-o", "x", cwd=workspace.root
    )
    assert export.returncode == 2
    assert f"run {rows[0]['runId']} is unfinished" in export.stderr


def test_shards_in_a_run_group_are_one_run_exported_as_merge_gives_it(
    workspace: Workspace, tmp_path: Path
) -> None:
    store = "sqlite:///shards.sqlite"
    for index in (1, 2):
        proc = in_process(
            *workspace.run_args(
                "--store", store, "--run-group", "nightly-42", "--shard", f"{index}/2",
                "--output", f"shard{index}", "-q",
            ),
            cwd=workspace.root,
        )  # fmt: skip
        assert proc.returncode in (0, 1), proc.stderr
        [row] = _history(workspace, store)
        assert row["runId"] == "nightly-42" and row["group"] is True
        assert row["shards"] == {"reported": index, "expected": 2}
        assert row["state"] == ("partial" if index == 1 else "finished")
    assert row["cases"]["total"] == 3  # type: ignore[index]
    exported = in_process(
        "store", "export", "nightly-42", "--store", store, "-o", "exported", cwd=workspace.root
    )
    assert exported.returncode == 0, exported.stderr
    # merge of the shards in shard order, without --evalset: cases in evalId order.
    merged = in_process("merge", "shard1", "shard2", "-o", "merged", cwd=workspace.root)
    assert merged.returncode == 1, merged.stderr

    def content(directory: str) -> dict[str, object]:
        [path] = list((workspace.root / directory).iterdir())
        data: dict[str, object] = json.loads(path.read_text())
        for key in ("creationTimestamp", "evalSetResultId", "evalSetResultName"):
            data.pop(key, None)
        return data

    assert content("exported") == content("merged")


def test_a_run_stored_in_a_group_says_the_name_that_reads_it(
    workspace: Workspace, tmp_path: Path
) -> None:
    # "stored run 91a3e1324135 in …": `show @91a3e1324135` then said no such run (a member is
    # named by its group).
    store = f"sqlite:///{tmp_path / 'g.sqlite'}"
    proc = in_process(
        *workspace.run_args("--store", store, "--run-group", "g-7"), cwd=workspace.root
    )
    assert proc.returncode == 1, proc.stderr
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("stored run ")]
    assert line.endswith(f" in {store}, in run group g-7 (read it as @g-7)")
    shown = in_process("show", "@g-7", "--store", store, cwd=workspace.root)
    assert shown.returncode == 1 and "FAILED: 2 of 3 cases passed" in shown.stdout, shown.stderr


CONCURRENT_WRITER = """
import os, sys
sys.path[:0] = {paths!r}
os.chdir({root!r})
from typer.testing import CliRunner
from agenteval.cli import app
runner = CliRunner()
for index in range(20):
    result = runner.invoke(app, {args!r} + ["--store", {url!r}, "-q"])
    assert result.exit_code == 1, result.output
print("done")
"""


def test_two_writers_x_20_runs_into_one_postgres_store(workspace: Workspace, pg_url: str) -> None:
    paths = [str(Path(__file__).resolve().parents[1])]
    script = CONCURRENT_WRITER.format(
        paths=paths, root=str(workspace.root), args=workspace.run_args(), url=pg_url
    )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            env=clean_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for child in children:
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0 and out.strip() == "done", out + err
    rows = _history(workspace, pg_url)
    assert len(rows) == 40
    assert len({row["runId"] for row in rows}) == 40
    assert {(row["state"], row["outcome"]) for row in rows} == {("finished", "failed")}
    engine_url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    # Nothing lost or mixed: every run has exactly its own 3 cases, 3 case runs, 6 metrics.
    assert _count(engine_url, "SELECT count(*) FROM cases") == 120
    assert _count(engine_url, "SELECT count(*) FROM case_runs") == 120
    assert _count(engine_url, "SELECT count(*) FROM metric_results") == 240
    assert (
        _count(
            engine_url,
            "SELECT count(*) FROM (SELECT run FROM cases GROUP BY run HAVING count(*) <> 3) AS odd",
        )
        == 0
    )
    assert _count(engine_url, "SELECT count(DISTINCT run) FROM document_chunks") == 40


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_agents_spend_is_stored_and_history_shows_it_beside_the_judges(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # Turns priced by the built-in table (openai:gpt-4o-mini: $0.15 / $0.60 per million).
    evalset = write_usage_suite(tmp_path, TOOL_COUNT, model="openai:gpt-4o-mini")
    if backend == "sqlite":
        store, other = "sqlite:///h.sqlite", "sqlite:///added.sqlite"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        store, other = server.create_database(), server.create_database()
    proc = in_process(
        "run", "--evalset", str(evalset), "--no-cache", "--no-progress", "--store", store,
        "--output", "out", "--json", "run.json", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = json.loads((tmp_path / "run.json").read_text())
    [row] = _history(tmp_path, store)
    assert row["agentUsage"] == {
        "turns": 3,
        "turnsWithoutUsage": 0,
        "inferenceCalls": 6,
        "inputTokens": 7000,
        "outputTokens": 1100,
        "unpricedTurns": 0,
        "costUsd": 0.00171,
    }
    spent = cost(TURNS["refund"]) + cost(TURNS["status"])
    assert Decimal(repr(row["agentUsage"]["costUsd"])) == spent == Decimal("0.00171")  # type: ignore[index]
    assert row["agentUsage"]["costUsd"] == document["agentUsage"]["costUsd"]  # type: ignore[index]
    listed = invoke(tmp_path, "history", "--store", store)
    assert listed.exit_code == 0, listed.output
    assert "6 model calls · 8,100 tok · $0.00171" in listed.stdout
    # The same run's result files added to another store: the same spend.
    added = invoke(tmp_path, "store", "add", "out", "--store", other)
    assert added.exit_code == 0, added.output
    [again] = _history(tmp_path, other)
    assert again["agentUsage"] == row["agentUsage"]


def _answers_suite(path: Path, answers: dict[str, str]) -> None:
    """A trace-mode eval set ``rerun`` whose case ``ID`` answered ``answers[ID]`` ("yes" passes)."""

    def turn(answer: str) -> list[dict[str, object]]:
        return [
            {
                "invocationId": "t1",
                "userContent": {"role": "user", "content": "q"},
                "finalResponse": {"role": "assistant", "content": answer},
            }
        ]

    cases = [
        {
            "evalId": eval_id,
            "evalMode": "trace",
            "sessionInput": {"appName": "x", "userId": "u"},
            "actualConversation": turn(answer),
            "conversation": turn("yes"),
        }
        for eval_id, answer in answers.items()
    ]
    path.write_text(json.dumps({"evalSetId": "rerun", "evalCases": cases}))


def test_a_shard_run_again_in_its_group_replaces_the_earlier_run_everywhere(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "rerun.evalset.json"
    (tmp_path / "m.json").write_text('[{"metricName": "exact_match", "threshold": 1.0}]')
    store = "sqlite:///rerun.sqlite"

    def run(shard: str, *extra: str) -> Ran:
        args = ("run", "-e", str(suite), "-m", "m.json", "--store", store, "--no-progress")
        return in_process(*args, "--shard", shard, "--run-group", "g1", *extra, cwd=tmp_path)

    # b and e fail the first time; every case passes when shard 1 runs again (the CI retry).
    _answers_suite(suite, dict(a="yes", b="no", c="yes", d="yes", e="no", f="yes"))
    assert run("1/2").returncode in (0, 1) and run("2/2").returncode in (0, 1)
    [before] = _history(tmp_path, store)
    assert before["cases"] == {
        "total": 6, "passed": 4, "failed": 2, "notEvaluated": 0, "incomplete": 0
    }  # fmt: skip
    first = before["runs"][0]  # type: ignore[index]
    _answers_suite(suite, dict.fromkeys("abcdef", "yes"))
    again = run("1/2")
    assert again.returncode == 0, again.stderr
    assert f"rerun that run {first} of this group held: it replaces that run" in again.stderr
    [row] = _history(tmp_path, store)
    # 6 cases, each once: the retried shard's cases count, the earlier run's do not.
    assert row["cases"] == {
        "total": 6, "passed": 6, "failed": 0, "notEvaluated": 0, "incomplete": 0
    }  # fmt: skip
    assert row["replacedRuns"] == [first] and len(row["runs"]) == 2  # type: ignore[arg-type]
    assert "g1 (group, 1 rerun)" in invoke(tmp_path, "history", "--store", store).stdout
    trend = json.loads(invoke(tmp_path, "trend", "--store", store, "--json").stdout)
    assert trend["verdicts"]["stable_pass"] == 6 and trend["verdicts"]["stable_fail"] == 0
    assert trend["metrics"][0]["averages"] == [1.0]
    shown = in_process("show", "@g1", "--store", store, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    exported = in_process("store", "export", "g1", "--store", store, "-o", "out", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    [written] = list((tmp_path / "out").iterdir())
    cases = json.loads(written.read_text())["evalCaseResults"]
    assert sorted(case["evalId"] for case in cases) == list("abcdef")
    # As a baseline: the retried shard's passes, so the same answers are no regression.
    args = ("run", "-e", str(suite), "-m", "m.json", "--store", store, "--baseline", "@g1")
    baseline = in_process(*args, cwd=tmp_path)
    assert baseline.returncode == 0, baseline.stderr
    assert "compared with @g1" in baseline.stdout
