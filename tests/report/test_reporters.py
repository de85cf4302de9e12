"""agenteval.report.reporters: report formats by name, a plugin's among them.

A plugin file in the test registers a CSV reporter; ``run --report csv=FILE`` and the
Python API (``RunReports(formats=...)``) write the same bytes with it, beside the built-in
JUnit written through the same registry; a misspelt name, a value without ``=`` and a
reporter that raises are each one located line, and the last never loses the run's other
reports.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import agenteval
from agenteval.errors import ConfigError, Problem
from agenteval.report.reporters import reporter_problems, reporters, write_with
from agenteval.report.run_reports import RunReports
from tests.cli.test_commands import agenteval_cli, write_suite

CSV_PLUGIN = """
from agenteval.plugins import register_reporter

@register_reporter("test_csv")
def write_csv(path, reports, **facts):
    lines = ["evalSetId,evalId,status"]
    for report in reports:
        lines += [f"{report.eval_set_id},{i},{s.value}" for i, s in report.statuses.items()]
    lines.append(f"warnings,{len(facts['notes'].lines())},")
    path.write_text("\\n".join(lines) + "\\n")
    return path
"""
CSV = "evalSetId,evalId,status\nsuite,good,passed\nsuite,bad,failed\nwarnings,0,\n"


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "csv_reporter.py"
    path.write_text(textwrap.dedent(CSV_PLUGIN))
    return path


def test_a_plugins_reporter_writes_its_file_from_run_and_from_the_api(
    tmp_path: Path, plugin: Path
) -> None:
    suite = write_suite(tmp_path)
    cli_csv, py_csv = tmp_path / "cli.csv", tmp_path / "py.csv"
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--plugin", str(plugin),
        "--report", f"test_csv={cli_csv}", "--report", f"junit={tmp_path / 'cli.xml'}",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert cli_csv.read_text() == CSV
    assert f"wrote {cli_csv}" in proc.stdout
    # --report junit=FILE is --junit FILE: the same registry entry writes it.
    assert 'tests="2" failures="1" errors="0"' in (tmp_path / "cli.xml").read_text()

    reports = RunReports(formats=(("test_csv", py_csv),), ci=False)
    result = agenteval.evaluate([str(suite)], plugins=[str(plugin)], reports=reports)
    assert result.exit_code == 1
    assert py_csv.read_bytes() == cli_csv.read_bytes()
    assert result.reports is not None and result.reports.written == [str(py_csv)]


def test_a_misspelt_reporter_or_a_value_without_a_file_is_refused_before_scoring(
    tmp_path: Path, plugin: Path
) -> None:
    suite = write_suite(tmp_path)
    run = ["run", "--evalset", str(suite), "--plugin", str(plugin)]
    misspelt = agenteval_cli(*run, "--report", f"test_cvs={tmp_path / 'x.csv'}")
    assert misspelt.returncode == 2
    assert 'error: --report: test_cvs: no reporter of this name (did you mean "test_csv"?)' in (
        misspelt.stderr
    )
    bare = agenteval_cli(*run, "--report", "test_csv")
    assert bare.returncode == 2
    assert "error: --report: test_csv: expected NAME=FILE (e.g. --report junit=out.xml)" in (
        bare.stderr
    )
    assert not list(tmp_path.glob("*.csv")) and "wrote" not in misspelt.stdout + bare.stdout


def test_a_reporter_that_raises_is_its_file_not_written_and_the_run_incomplete(
    tmp_path: Path,
) -> None:
    suite = write_suite(tmp_path)
    broken = tmp_path / "broken_reporter.py"
    broken.write_text(
        "from agenteval.plugins import register_reporter\n\n"
        "@register_reporter('test_broken')\n"
        "def write(path, reports, **facts):\n"
        "    return {}['missing']\n"
    )
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--plugin", str(broken),
        "--report", f"test_broken={tmp_path / 'b.txt'}", "--junit", str(tmp_path / "j.xml"),
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    line = f"{tmp_path / 'b.txt'}: cannot write: reporter test_broken raised KeyError: 'missing'"
    assert line in " ".join(proc.stderr.split())
    assert (tmp_path / "j.xml").is_file()  # the run's other reports are written
    assert "1 report not written" in proc.stdout


def test_the_registry_has_the_built_in_formats_and_names_the_closest() -> None:
    assert {"junit", "markdown"} <= set(reporters.names())
    assert reporter_problems(["junit", "markdwn"]) == [
        Problem("--report", "markdwn", "no reporter of this name", 'did you mean "markdown"?')
    ]
    with pytest.raises(LookupError, match='unsupported reporter "nope"'):
        write_with("nope", Path("x"), [])


def test_a_reporters_own_value_error_is_kept_as_it_is(tmp_path: Path) -> None:
    def refuses(path: Path, reports: object, **facts: object) -> None:
        raise ValueError("cannot encode")

    reporters.register("test_refuses", refuses)
    try:
        with pytest.raises(ValueError, match=r"^cannot encode$"):
            write_with("test_refuses", tmp_path / "x", [])
    finally:
        reporters.unregister("test_refuses")


def test_problems_name_a_report_file_that_cannot_be_written(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    formats = (("junit", blocked / "x.xml"), ("junit", tmp_path / "fine.xml"))
    problems = RunReports(formats=formats).problems()
    # Located as --junit's would be: the file, then the flag and the OS error; a reporter
    # named twice has each of its files checked.
    assert [(p.file, p.message) for p in problems] == [
        (str(blocked / "x.xml"), "--report junit: Not a directory")
    ]
    suite = write_suite(tmp_path)
    with pytest.raises(ConfigError) as refused:
        agenteval.evaluate([str(suite)], reports=RunReports(formats=(("nope", tmp_path / "y"),)))
    assert [(p.file, p.path) for p in refused.value.problems] == [("--report", "nope")]
    assert not (tmp_path / "y").exists()
