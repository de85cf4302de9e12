"""cli/saved_results: what a stored run's exported copy is shown as (pinned_name); a result
file named twice on one side is refused (given_once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.cli.saved_results import pinned_name
from cli_process import run_cli
from trace_cases import trace_case

PINNED = {"/tmp/s/0/run-ab12.json": "@ab12", "/tmp/s/1": "@group-7"}


def test_a_copy_and_a_file_of_a_copied_run_group_are_named_by_their_run() -> None:
    assert pinned_name("/tmp/s/0/run-ab12.json", PINNED) == "@ab12"
    assert pinned_name("/tmp/s/1/qa.evalset_result.json", PINNED) == "@group-7"


def test_other_paths_keep_their_name_even_when_they_share_a_prefix() -> None:
    assert (
        pinned_name("/tmp/s/10/qa.evalset_result.json", PINNED)
        == "/tmp/s/10/qa.evalset_result.json"
    )
    assert pinned_name("results/qa.json", PINNED) == "results/qa.json"
    assert pinned_name("results/qa.json", {}) == "results/qa.json"


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A passing run's result file and its --json run document."""
    root = tmp_path_factory.mktemp("saved")
    turn = {"invocationId": "t1", "userContent": {"role": "user", "content": "q"},
            "finalResponse": {"role": "assistant", "content": "a"}}  # fmt: skip
    evalset = root / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [trace_case("c", turn)]}))
    metric = {"metricName": "m", "evaluatorName": "final_response_avg_score", "threshold": 1,
              "criterion": {"finalResponse": {"text": {}}}}  # fmt: skip
    (root / "s.metrics.json").write_text(json.dumps([metric]))
    args = ["run", "-e", str(evalset), "-o", str(root / "out"), "--json", str(root / "doc.json")]
    made = run_cli(args, cwd=root, timeout=120)
    assert made.returncode == 0, made.stdout + made.stderr
    (result,) = (root / "out").glob("*.json")
    return result, root / "doc.json"


def _twice(name: Path, side: str = "") -> str:
    where = f" as {side}" if side else ""
    return f"error: {name}: given twice{where} (give each once)\n1 problem found.\n"


def test_a_file_given_twice_on_one_side_is_refused(
    saved: tuple[Path, Path], tmp_path: Path
) -> None:
    # show counted its cases twice ("0 of 2"), report drew a run document given twice as one
    # run holding each case twice; store add stored it as two runs.  merge and diff
    # refused plain files only, by their cases.
    result, doc = saved
    page, store = str(tmp_path / "r.html"), f"sqlite:///{tmp_path / 's.sqlite'}"
    refused = {
        ("show", str(result), str(result)): _twice(result),
        ("report", str(result), "--base", str(doc), str(doc), "--html", page): _twice(doc, "BASE"),
        ("report", str(doc), str(doc), "--base", str(result), "--html", page): _twice(doc),
        ("diff", str(result), "--new", str(doc), str(doc)): _twice(doc, "NEW"),
        ("merge", str(doc), str(doc), "-o", str(tmp_path / "m.json")): _twice(doc),
        ("store", "add", str(doc), str(doc), "--store", store): _twice(doc),
        ("explain", str(doc), str(doc), "--case", "c", "--metric", "m"): _twice(doc),
        ("run", "-e", "x", "--resume", str(doc), "--resume", str(doc)): _twice(doc, "--resume"),
    }
    for args, stderr in refused.items():
        done = run_cli(args, cwd=tmp_path, timeout=120)
        assert (done.returncode, done.stderr) == (2, stderr), args
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "s.sqlite").exists()


def test_the_same_file_on_both_sides_is_a_comparison(
    saved: tuple[Path, Path], tmp_path: Path
) -> None:
    result, doc = saved
    assert run_cli(["diff", str(result), "--new", str(result)], timeout=120).returncode == 0
    page = tmp_path / "r.html"
    done = run_cli(["report", str(doc), "--base", str(doc), "--html", str(page)], timeout=120)
    assert done.returncode == 0, done.stderr
    assert page.exists()
