"""Acceptance: one scripted 30-run history gives the same history, trend and verdicts on SQLite
and on PostgreSQL, and every stored run exports back to its result files byte for byte.

The history is made by ``agenteval run --store`` itself (in-process, so 60 runs take
seconds), in a git repository with one commit per run: ``steady`` always passes,
``broken`` always fails, ``flappy`` fails every third run, and from run 16 the
``quality`` metric matches exactly instead of by ``contains`` (a config change after
which its average drifts from 1 to 0.9167).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agenteval.store.connection import open_store
from agenteval.store.export import export_run
from agenteval.store.queries import logical_runs
from agenteval.store.urls import parse_store_url
from cli.store_workspace import Workspace
from cli.store_workspace import invoke as invoke_in
from postgres_server import PostgresServer

RUNS = 30
CHANGE_AT = 16


@dataclass
class History:
    """One store's history: its URL and, per run, what the run wrote."""

    url: str
    outputs: list[Path] = field(default_factory=list)
    documents: list[Path] = field(default_factory=list)


@dataclass
class Histories:
    """The workspace, its commits, and the two stores' histories."""

    workspace: Workspace
    commits: list[str]
    stores: dict[str, History]

    def cli(self, *args: str) -> Any:
        """The CLI in-process, in the workspace."""
        return invoke(self.workspace, *args)


def invoke(workspace: Workspace, *args: str) -> Any:
    """Run ``agenteval ARGS`` in-process in the workspace (no CI variables)."""
    return invoke_in(workspace.root, *args)


@pytest.fixture(scope="module")
def histories(
    tmp_path_factory: pytest.TempPathFactory, postgres_server: PostgresServer
) -> Iterator[Histories]:
    root = tmp_path_factory.mktemp("history")
    workspace = Workspace(root / "project")
    stores = {
        "sqlite": History(f"sqlite:///{root}/history.sqlite"),
        "postgresql": History(postgres_server.create_database()),
    }
    commits = []
    for run in range(1, RUNS + 1):
        workspace.write_traces(run)
        if run == CHANGE_AT:
            workspace.tighten_quality()
        commits.append(workspace.commit(f"agent v{run}"))
        for name, history in stores.items():
            out = root / name / f"run{run:02d}"
            document = root / name / f"run{run:02d}.json"
            result = invoke(
                workspace,
                *workspace.run_args(
                    "--store", history.url, "--output", str(out), "--json", str(document), "-q"
                ),
            )
            assert result.exit_code == 1, result.output  # broken fails every run
            history.outputs.append(out)
            history.documents.append(document)
    yield Histories(workspace, commits, stores)


def _ids(history_json: list[dict[str, Any]]) -> dict[str, str]:
    """Run id → ``run01``… (oldest first), to compare two stores' outputs."""
    ordered = [row["runId"] for row in reversed(history_json)]
    return {run_id: f"run{i:02d}" for i, run_id in enumerate(ordered, start=1)}


def _normalized(text: str, ids: dict[str, str], url: str) -> str:
    for run_id, name in ids.items():
        text = text.replace(run_id, name)
    text = text.replace(url, "STORE")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "TIME", text)
    return re.sub(r'"durationSeconds": [0-9.e-]+', '"durationSeconds": "D"', text)


def _outputs(histories: Histories, *args: str) -> dict[str, str]:
    """``args`` run against both stores, each output with its ids, times and URL normalized."""
    found = {}
    for name, history in histories.stores.items():
        listed = histories.cli("history", "--store", history.url, "--json", "--last", "0")
        ids = _ids(json.loads(listed.stdout))
        result = histories.cli(*args, "--store", history.url)
        assert result.exit_code == 0, result.output
        shown = re.sub(r"sqlite:///\S+|postgresql://\S+", "STORE", result.stdout)
        found[name] = _normalized(shown, ids, history.url)
    return found


def test_history_is_the_same_on_sqlite_and_postgresql(histories: Histories) -> None:
    outputs = _outputs(histories, "history", "--json", "--last", "0")
    assert outputs["sqlite"] == outputs["postgresql"]
    rows = json.loads(outputs["sqlite"])
    assert len(rows) == RUNS
    assert [row["runId"] for row in rows] == [f"run{i:02d}" for i in range(RUNS, 0, -1)]
    assert {(row["state"], row["outcome"], row["branch"]) for row in rows} == {
        ("finished", "failed", "main")
    }
    assert [row["commit"] for row in reversed(rows)] == histories.commits
    oldest = rows[-1]
    assert oldest["cases"] == {
        "total": 3,
        "passed": 2,
        "failed": 1,
        "notEvaluated": 0,
        "incomplete": 0,
    }
    assert oldest["metricAverages"] == {"quality": 1, "tool_trajectory_avg_score": 2 / 3}
    assert rows[0]["metricAverages"]["quality"] == pytest.approx(11 / 12)
    text = _outputs(histories, "history", "--last", "5")
    assert text["sqlite"] == text["postgresql"]
    assert "5 runs from STORE" in text["sqlite"]


def test_trend_and_verdicts_are_the_same_on_sqlite_and_postgresql(histories: Histories) -> None:
    outputs = _outputs(histories, "trend", "--json", "--last", str(RUNS))
    assert outputs["sqlite"] == outputs["postgresql"]
    found = json.loads(outputs["sqlite"])
    assert [run["commit"] for run in found["runs"]] == histories.commits
    cases = {case["evalId"]: case for case in found["cases"]}
    assert [case["evalId"] for case in found["cases"]] == ["flappy", "broken", "steady"]
    assert (cases["steady"]["verdict"], cases["steady"]["passedRuns"]) == ("stable_pass", 30)
    assert (cases["broken"]["verdict"], cases["broken"]["passedRuns"]) == ("stable_fail", 0)
    flappy = cases["flappy"]
    assert (flappy["verdict"], flappy["passedRuns"], flappy["runs"]) == ("flaky", 20, 30)
    assert flappy["wilsonLow"] == pytest.approx(0.4878, abs=1e-4)
    assert flappy["wilsonHigh"] == pytest.approx(0.8077, abs=1e-4)
    # It fails in runs 3, 6, …, 30 and flips into and out of each failure.
    fails = list(range(3, RUNS + 1, 3))
    flips = sorted({run for run in fails} | {run + 1 for run in fails if run < RUNS})
    assert flappy["flippedIn"] == [f"run{run:02d}" for run in flips]
    assert flappy["outcomes"][:4] == ["pass", "pass", "fail", "pass"]
    metrics = {m["metricName"]: m for m in found["metrics"]}
    quality = metrics["quality"]
    assert quality["averages"] == [1] * (CHANGE_AT - 1) + [pytest.approx(11 / 12)] * (
        RUNS - CHANGE_AT + 1
    )
    [change] = quality["changePoints"]
    assert change["runId"] == f"run{CHANGE_AT}"
    assert change["commit"] == histories.commits[CHANGE_AT - 1]
    assert change["shift"] is True
    assert len(change["changed"]) == 1 and change["changed"][0].startswith("metric config ")
    # flappy's failures every third run move the tool metric's average, but not its medians.
    assert metrics["tool_trajectory_avg_score"]["changePoints"] == []
    console = _outputs(histories, "trend", "--last", str(RUNS))
    assert console["sqlite"] == console["postgresql"]
    text = console["sqlite"]
    assert "cases: 1 flaky · 1 stable fail · 1 stable pass" in text
    assert (
        f"change at run run{CHANGE_AT} (commit {histories.commits[CHANGE_AT - 1][:8]}): 1 → 0.9167"
        in text
    )
    assert "suite / quality  " + "█" * 15 + "▁" * 15 in text


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_every_stored_run_exports_to_its_result_files_byte_for_byte(
    histories: Histories, backend: str, tmp_path: Path
) -> None:
    history = histories.stores[backend]
    store = open_store(parse_store_url(history.url, "--store"), write=False)
    try:
        with store.transaction() as conn:
            runs = logical_runs(conn)
        assert len(runs) == RUNS
        for index, run in enumerate(runs):
            out = tmp_path / run.id
            export_run(store, run, out, out / "run.json")
            [written] = sorted(history.outputs[index].iterdir())
            assert (out / written.name).read_bytes() == written.read_bytes()
            assert (out / "run.json").read_bytes() == history.documents[index].read_bytes()
    finally:
        store.close()
    # The command does the same (first, changed, last run).
    for index in (0, CHANGE_AT - 1, RUNS - 1):
        out = tmp_path / f"cli{index}"
        result = histories.cli(
            "store", "export", runs[index].id, "--store", history.url, "-o", str(out),
            "--json", str(out / "run.json"),
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        [written] = sorted(history.outputs[index].iterdir())
        assert f"wrote {out / written.name}" in result.stdout
        assert (out / written.name).read_bytes() == written.read_bytes()
        assert (out / "run.json").read_bytes() == history.documents[index].read_bytes()
