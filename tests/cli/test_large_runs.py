"""The 100,000-case benches' correctness checks, as long trials (``make test-long``).

bench/memory.py, bench/load.py and bench/report_memory.py measure memory and time at 100,000
cases; these tests run the same scenarios and assert what must hold whatever the machine: every
case loaded, scored, written whole and in order, with the statuses its construction decides
(``bench/deterministic.make_case``: case ``i`` fails when ``i % 10`` is 0 or 5), and the
streamed reports byte-identical to the reports of the whole result. Times are never asserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import load  # noqa: E402
import memory  # noqa: E402
import report_memory  # noqa: E402

CASES = 100_000

pytestmark = pytest.mark.slow


def expected_status(index: int) -> str:
    """What bench/deterministic.make_case builds case ``index`` to score."""
    return "failed" if index % 10 in (0, 5) else "passed"


def scored(cases: list[dict[str, object]]) -> list[tuple[object, object]]:
    """Each case's evalId and final status, in document order."""
    return [(case["evalId"], case["finalEvalStatus"]) for case in cases]


def test_a_100000_case_run_writes_every_case_whole_and_in_order(tmp_path: Path) -> None:
    # bench/memory.py's command: --output and --json at 100,000 cases.
    evalset = memory.write_suite(tmp_path, CASES)
    done = subprocess.run(
        memory.cli_command(evalset, tmp_path), capture_output=True, text=True, check=False
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    failed = sum(expected_status(i) == "failed" for i in range(CASES))
    assert done.stdout.splitlines()[-1].startswith("FAILED")
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]

    # Both documents parse whole, hold every case once and in order, each as it was built to score.
    expected = [(f"case_{i:05d}", expected_status(i)) for i in range(CASES)]
    (result_file,) = (tmp_path / "out").glob("*.evalset_result.json")
    document = orjson.loads(result_file.read_bytes())
    assert scored(document["evalCaseResults"]) == expected
    del document
    run = orjson.loads((tmp_path / "run.json").read_bytes())
    counts = {"passed": CASES - failed, "failed": failed, "notEvaluated": 0}
    assert run["caseStatusCounts"] == counts
    (only,) = run["evalSetResults"]
    assert scored(only["evalCaseResults"]) == expected


def test_a_100000_case_eval_set_is_planned_case_by_case(tmp_path: Path) -> None:
    # bench/load.py's child: prepare() and one pass over every planned case.
    evalset = memory.write_suite(tmp_path, CASES)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    numbers = load._child_run(evalset, CASES, env)
    assert numbers["cases"] == CASES


def test_the_streamed_reports_of_100000_cases_equal_the_whole_results(tmp_path: Path) -> None:
    # bench/report_memory.py: console, JUnit, Markdown, step summary and annotations, made
    # from the tally as cases stream past and from the whole result, byte for byte.
    templates = report_memory.write_templates(tmp_path)
    _, tally = report_memory.run_child("tally", CASES, templates, tmp_path, None)
    _, whole = report_memory.run_child("whole", CASES, templates, tmp_path, None)
    assert set(tally["digests"]) >= {"junit.xml", "report.md", "console", "annotations"}
    assert tally["digests"] == whole["digests"]
