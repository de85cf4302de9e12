"""``agenteval import``'s errors said as every other command says them (cli/guard.py):
problem lines, then the ``N problems found.`` count, exit 2, a traceback only with -v."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_process import run_cli

SHIPPED = Path(__file__).resolve().parents[2] / "evalsets" / "adk" / "travel.evalset.json"


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120)


def test_import_bad_input_ends_with_the_problem_count(tmp_path: Path) -> None:
    missing, other = tmp_path / "gone.json", tmp_path / "notes.txt"
    other.write_text("plain text, no JSON\n")
    for kind in ("adk", "otel"):
        proc = agenteval("import", kind, str(missing), str(other), "-o", str(tmp_path / "out"))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stderr.splitlines()
        assert lines[0] == f"error: {missing}: file not found"
        assert lines[1].startswith(f"error: {other}: ")
        assert lines[2:] == ["2 problems found."]
        assert not (tmp_path / "out").exists()


def test_import_verbose_shows_the_traceback_of_bad_input(tmp_path: Path) -> None:
    taken = tmp_path / "out"
    taken.write_text("a file where the output directory goes\n")
    for verbose in ((), ("-v",)):
        proc = agenteval("import", "adk", str(SHIPPED), "-o", str(taken), *verbose)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr.splitlines()[-2:] == [f"error: {taken}: File exists", "1 problem found."]
        assert ("Traceback (most recent call last)" in proc.stderr) == bool(verbose)
        assert ("FileExistsError" in proc.stderr) == bool(verbose)
    assert taken.read_text() == "a file where the output directory goes\n"
