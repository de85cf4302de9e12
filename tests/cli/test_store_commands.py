"""``history``, ``trend``, ``store add|export``, ``report --trend`` and stored runs (``@latest``,
``@RUN_ID``, ``@branch:NAME``) wherever a command takes result files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cli.store_workspace import Workspace, in_process
from store.store_support import T0, scripted_result, write_result


@pytest.fixture
def project(tmp_path: Path) -> Workspace:
    """A project with three stored runs on main (flappy fails in the third)."""
    workspace = Workspace(tmp_path / "project")
    for run in (1, 2, 3):
        workspace.write_traces(run)
        workspace.commit(f"v{run}")
        ran = in_process(*workspace.run_args("--store", "h.sqlite", "-q"), cwd=workspace.root)
        assert ran.returncode == 1, ran.stdout + ran.stderr
    return workspace


def _ids(project: Workspace) -> list[str]:
    listed = in_process("history", "--store", "h.sqlite", "--json", cwd=project.root)
    return [row["runId"] for row in json.loads(listed.stdout)]


def test_history_and_trend_read_the_store_named_by_env_or_project_file(
    project: Workspace,
) -> None:
    (project.root / "pyproject.toml").write_text('[tool.agenteval]\nstore = "h.sqlite"\n')
    sub = project.root / "docs"
    sub.mkdir()
    # From a subdirectory: the project file names the store, relative to itself.
    listed = in_process("history", "--status", "failed", cwd=sub)
    assert listed.returncode == 0, listed.stderr
    assert f"3 runs from sqlite:///{project.root / 'h.sqlite'}" in listed.stdout
    shown = in_process("trend", "--last", "3", cwd=sub)
    assert shown.returncode == 0, shown.stderr
    assert "cases: 1 flaky · 1 stable fail · 1 stable pass" in shown.stdout
    assert "suite / flappy" in shown.stdout and "✓✓✗" in shown.stdout
    env = {"AGENTEVAL_STORE": f"sqlite:///{project.root / 'h.sqlite'}"}
    as_json = in_process("trend", "--json", "--metric", "quality", cwd=project.root.parent, env=env)
    data = json.loads(as_json.stdout)
    assert [m["metricName"] for m in data["metrics"]] == ["quality"]
    assert data["verdicts"] == {"flaky": 1, "stable_fail": 1, "stable_pass": 1, "undecided": 0}


def test_reading_commands_without_a_store_say_how_to_give_one(tmp_path: Path) -> None:
    for command in (
        ["history"],
        ["trend"],
        ["show", "@latest"],
        ["store", "export", "x", "-o", "o"],
    ):
        ran = in_process(*command, cwd=tmp_path)
        assert ran.returncode == 2, command
        assert "needs a run store (give --store URL, or set $AGENTEVAL_STORE" in ran.stderr
    missing = in_process("history", "--store", "nothing.sqlite", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.startswith(f"error: sqlite:///{tmp_path / 'nothing.sqlite'}: no store")
    assert not (tmp_path / "nothing.sqlite").exists()
    bad = in_process("history", "--store", "h.sqlite", "--since", "soon", cwd=tmp_path)
    assert bad.returncode == 2 and "--since: not a date or a time span: 'soon'" in bad.stderr


def test_stored_runs_wherever_result_files_are_taken(project: Workspace, tmp_path: Path) -> None:
    ids = _ids(project)
    store = ["--store", "h.sqlite"]
    shown = in_process("show", "@latest", *store, cwd=project.root)
    # The latest run (flappy failed) shown as a live run would show it, with its exit code.
    assert shown.returncode == 1, shown.stderr
    assert "FAILED: 1 of 3 cases passed (2 failed) · 1 eval set" in shown.stdout
    diffed = in_process("diff", f"@{ids[1][:6]}", "@latest", *store, cwd=project.root)
    assert diffed.returncode == 1, diffed.stderr
    assert "REGRESSED: 2 regressions" in diffed.stdout
    same = in_process("diff", "@branch:main", "@latest", *store, cwd=project.root)
    assert same.returncode == 0 and "NO REGRESSION" in same.stdout
    page = tmp_path / "compare.html"
    reported = in_process(
        "report", f"@{ids[1]}", "@latest", *store, "--html", str(page), cwd=project.root
    )
    assert reported.returncode == 0, reported.stderr
    assert page.read_bytes().count(b"flappy") >= 2
    unknown = in_process("show", "@feedbeef", *store, cwd=project.root)
    assert unknown.returncode == 2
    assert "@feedbeef: no run 'feedbeef' in the store" in unknown.stderr
    # A real file whose name starts with @ is read as a file.
    (project.root / "@latest").mkdir()
    write_result(scripted_result(1), project.root / "@latest")
    local = in_process("show", "@latest", cwd=project.root)
    assert local.returncode == 1 and "FAILED: 2 of 3 cases passed" in local.stdout


def test_one_stored_run_named_twice_on_one_side_is_refused(
    project: Workspace, tmp_path: Path
) -> None:
    # @latest and its @RUN_ID are one run: show read it twice ("2 of 6 cases passed").
    latest = f"@{_ids(project)[0]}"
    store = ["--store", "h.sqlite"]
    twice = f"given twice{{}}: @latest names the same stored run ({latest}) (give each once)"
    page = str(tmp_path / "r.html")
    refused = {
        ("show", "@latest", latest): f"error: {latest}: " + twice.format(""),
        ("report", "@latest", "--base", "@latest", "@branch:main", "--html", page): (
            "error: @branch:main: " + twice.format(" as BASE")
        ),
        ("diff", "@latest", latest, "--new", "@latest"): (
            f"error: {latest}: " + twice.format(" as BASE")
        ),
    }
    for args, error in refused.items():
        done = in_process(*args, *store, cwd=project.root)
        assert (done.returncode, done.stderr) == (2, error + "\n1 problem found.\n"), args
    assert not (tmp_path / "r.html").exists()
    # One run on both sides is a comparison, as one file is.
    same = in_process("diff", "@latest", "--new", latest, *store, cwd=project.root)
    assert same.returncode == 0 and "NO REGRESSION" in same.stdout


def test_resume_from_a_stored_run(project: Workspace) -> None:
    ran = in_process(
        *project.run_args("--resume", "@latest", "--store", "h.sqlite", "-q"), cwd=project.root
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert len(_ids(project)) == 4


def test_store_add_and_export(tmp_path: Path) -> None:
    files = [write_result(scripted_result(i), tmp_path / f"r{i}") for i in (1, 2)]
    for path in files:
        added = in_process(
            "store", "add", str(path), "--store", "team.sqlite", "--commit", "abc", "--branch", "main",
            cwd=tmp_path,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        assert added.stdout.startswith("stored run ")
    again = in_process("store", "add", str(files[0]), "--store", "team.sqlite", cwd=tmp_path)
    assert again.returncode == 2
    assert "result 'app_suite_0001' is stored already" in again.stderr
    listed = in_process("history", "--store", "team.sqlite", "--json", cwd=tmp_path)
    rows = json.loads(listed.stdout)
    assert [row["startedAt"] for row in rows] == ["2026-01-01T02:00:00Z", "2026-01-01T01:00:00Z"]
    assert T0 > 0
    out = tmp_path / "out"
    exported = in_process(
        "store", "export", rows[1]["runId"], "--store", "team.sqlite", "-o", str(out), cwd=tmp_path
    )
    assert exported.returncode == 0, exported.stderr
    [written] = list(out.iterdir())
    assert written.name == files[0].name
    assert written.read_bytes() == files[0].read_bytes()
    nothing = in_process("store", "export", "@latest", "--store", "team.sqlite", cwd=tmp_path)
    assert nothing.returncode == 2 and "nothing to write (give --output DIR" in nothing.stderr


def test_a_failed_store_add_leaves_no_new_store_behind(tmp_path: Path) -> None:
    # The store was opened (created, with its directory) before the inputs were read:
    # `store add nothere.json --store sqlite:///z.sqlite` failed and left an empty z.sqlite.
    (tmp_path / "notes.json").write_text('{"evalSetId": "s", "evalCases": [{"evalId": 1}]}')
    for given, store in (
        ("nothere.json", "sqlite:///z.sqlite"),
        ("notes.json", "new/z.sqlite"),
    ):
        added = in_process("store", "add", given, "--store", store, cwd=tmp_path)
        assert added.returncode == 2, added.stderr
        assert added.stderr.startswith(f"error: {given}: "), added.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.json"]


def test_export_to_a_place_that_cannot_take_it_is_a_located_exit_2(tmp_path: Path) -> None:
    # `store export @latest -o FILE` was "internal error: FileExistsError" (exit 4).
    path = write_result(scripted_result(1), tmp_path / "r")
    added = in_process("store", "add", str(path), "--store", "team.sqlite", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    (tmp_path / "afile").write_text("")
    (tmp_path / "adir").mkdir()
    for flag, where, problem in (
        ("-o", "afile", "afile: --output is not a directory (give a directory)"),
        ("--json", "afile/run.json", "afile/run.json: --json: Not a directory"),
        ("--json", "adir", "adir: --json is a directory (give a file name)"),
    ):
        exported = in_process(
            "store", "export", "@latest", "--store", "team.sqlite", flag, where, cwd=tmp_path
        )
        assert exported.returncode == 2, exported.stderr
        assert exported.stderr.startswith(f"error: {problem}\n"), exported.stderr
    assert (tmp_path / "afile").read_text() == "" and not any((tmp_path / "adir").iterdir())


def test_report_trend_page(project: Workspace, tmp_path: Path) -> None:
    page = tmp_path / "trend.html"
    made = in_process(
        "report", "--store", "h.sqlite", "--trend", "--html", str(page), "--last", "2",
        cwd=project.root,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == f"wrote {page}"
    html = page.read_text()
    assert html.count('class="point"') == 4  # two metrics × two runs
    assert "default-src 'none'" in html
    both = in_process(
        "report", "x.json", "--store", "h.sqlite", "--trend", "--html", str(page), cwd=project.root
    )
    assert both.returncode == 2 and "reads the store only; give no result files" in both.stderr


@pytest.mark.parametrize(
    ("edit", "where", "problem"),
    [
        (
            "UPDATE run_sets SET case_statuses = 'pf' WHERE run = 1",
            "run_sets run 1 position 0/case_statuses",
            "2 statuses for 3 case ids",
        ),
        ("UPDATE runs SET started_at = 'x'", "runs id 1/started_at", "'x' is not a number"),
        (
            "UPDATE set_metrics SET score_sum = 'x' WHERE run = 1",
            "set_metrics run 1 position 0/score_sum",
            "'x' is not a number",
        ),
        (
            "UPDATE agenteval_schema SET version = 'abc'",
            "agenteval_schema/version",
            "'abc' is not an integer",
        ),
        (
            "UPDATE run_sets SET case_ids = '[1' WHERE run = 2",
            "run_sets run 2 position 0/case_ids",
            "is not a JSON list of evalIds",
        ),
        # An unknown state read as finished; an unknown outcome was printed raw by history.
        (
            "UPDATE runs SET state = 'done'",
            "runs id 1/state",
            "'done' is not one of running, finished, interrupted",
        ),
        (
            "UPDATE runs SET outcome = 'passed\x1b[2J' WHERE id = 1",
            "runs id 1/outcome",
            "'passed\\x1b[2J' is not one of incomplete, failed, passed, not_evaluated",
        ),
    ],
)
def test_a_hand_edited_row_is_a_located_exit_2_never_an_internal_error(
    project: Workspace, edit: str, where: str, problem: str
) -> None:
    with sqlite3.connect(project.root / "h.sqlite") as db:
        db.execute(edit)
    url = f"sqlite:///{project.root / 'h.sqlite'}"
    for command in ("trend", "history"):
        ran = in_process(command, "--store", "h.sqlite", cwd=project.root)
        if command == "history" and where.startswith("run_sets"):
            assert ran.returncode == 0, ran.stderr  # history does not read the packed statuses
            continue
        assert ran.returncode == 2, ran.stdout + ran.stderr
        assert ran.stderr == (
            f"error: {url}: {where}: {problem} "
            "(the store was changed outside agenteval: restore it from a backup)\n"
            "1 problem found.\n"
        )
