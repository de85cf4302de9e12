"""Report destinations on the command line: checked before scoring, written through, failures named.

Runs as root in CI, where mode bits stop nothing: a read-only place is made with
``chattr +i`` and a full disk with a small tmpfs (skipped, with the reason, where the
system does not allow them).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_server import JudgeServer, Reply
from tests.cli.test_commands import agenteval_cli, write_suite
from tests.cli.test_interrupt_resume import write_suite as write_judged_suite


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``chattr +i``: not even root can create files in it."""
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"chattr +i not possible here: {done.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


@contextlib.contextmanager
def full_tmpfs(mount_point: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs with every byte taken."""
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        with contextlib.suppress(OSError), open(mount_point / "filler", "wb") as handle:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)


def test_devices_and_fifos_without_a_reader_are_refused_before_scoring(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    evalset = judged(tmp_path, judge_server)
    fifo = tmp_path / "nobody-reads"
    os.mkfifo(fifo)
    for flag, path, problem in (
        ("--json", fifo, "a FIFO nothing reads (writing would wait forever)"),
        ("--html", fifo, "a FIFO nothing reads (writing would wait forever)"),
        ("--junit", Path("/dev/full"), "a device, not a file"),
        ("--html", Path("/dev/zero"), "a device, not a file"),
    ):
        if not path.exists():
            continue
        proc = agenteval_cli("run", "--evalset", str(evalset), flag, str(path))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"error: {path}: {flag}: {problem}" in proc.stderr
    assert judge_server.count == 0
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_fifo_and_symlink_targets_are_written_through(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    fifo = tmp_path / "junit.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "summary.md"
    link.symlink_to(real)
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--junit", str(fifo), "--markdown", str(link)
    )
    reader.join(timeout=30)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert received and received[0].startswith(b"<?xml") and b"<testsuites" in received[0]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert link.is_symlink() and "suite" in real.read_text()
    assert not temp_files(tmp_path)


def test_json_to_stdout_with_a_dash(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    proc = agenteval_cli("run", "--evalset", str(suite), "--json", "-", "--quiet")
    assert proc.returncode == 1, proc.stderr
    assert '"evalSetResults"' in proc.stdout


@pytest.mark.parametrize("flag", ["--json", "--junit", "--markdown"])
def test_a_report_on_stdout_is_alone_there(tmp_path: Path, flag: str) -> None:
    # `run --json - --quiet | jq .` failed: the failing case's lines, the annotations,
    # "wrote -" and the verdict line were printed to stdout around the document.
    suite = write_suite(tmp_path)
    step = tmp_path / "step.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step)}
    proc = agenteval_cli("run", "--evalset", str(suite), flag, "-", env=env)
    assert proc.returncode == 1, proc.stderr
    reports = {
        "--json": lambda text: json.loads(text)["caseStatusCounts"]["failed"],
        "--junit": lambda text: ET.fromstring(text).get("failures"),
        "--markdown": lambda text: text.startswith("## ") and "| suite | bad |" in text,
    }
    assert reports[flag](proc.stdout) in (1, "1", True), proc.stdout
    assert "::error title=agenteval%3A suite/bad failed" in proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith("FAILED: 1 of 2 cases passed")
    assert "● bad  FAILED" in proc.stderr and "wrote -" in proc.stderr


def judged(tmp_path: Path, server: JudgeServer) -> Path:
    server.when(
        "Reference response", Reply(content="reasoning: same\nis_the_agent_response_valid: valid")
    )
    evalset, _ = write_judged_suite(tmp_path, server)
    return evalset


@pytest.mark.parametrize("flag", ["--json", "--junit", "--markdown", "--html"])
def test_file_flag_at_a_directory_fails_before_any_judge_call(
    tmp_path: Path, judge_server: JudgeServer, flag: str
) -> None:
    evalset = judged(tmp_path, judge_server)
    proc = agenteval_cli("run", "--evalset", str(evalset), flag, str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{tmp_path}: {flag} is a directory (give a file name)" in proc.stderr
    assert judge_server.count == 0


def test_output_that_is_a_file_fails_before_any_judge_call(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    evalset = judged(tmp_path, judge_server)
    proc = agenteval_cli("run", "--evalset", str(evalset), "--output", str(evalset))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{evalset}: --output is not a directory" in proc.stderr
    assert judge_server.count == 0


def test_read_only_output_fails_before_any_judge_call(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    evalset = judged(tmp_path, judge_server)
    locked = tmp_path / "locked"
    locked.mkdir()
    with immutable(locked):
        for args in (["--output", str(locked)], ["--json", str(locked / "run.json")],
                     ["--html", str(locked / "r.html")],
                     ["--output", str(locked / "new" / "dir")]):  # fmt: skip
            proc = agenteval_cli("run", "--evalset", str(evalset), *args)
            assert proc.returncode == 2, proc.stdout + proc.stderr
            assert f"cannot write in {locked}: Operation not permitted" in proc.stderr
        assert not list(locked.iterdir())
    assert judge_server.count == 0


def test_full_disk_names_the_file_and_writes_the_rest(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    doc = tmp_path / "run.json"
    with full_tmpfs(tmp_path / "full") as full:
        proc = agenteval_cli(
            "run", "--evalset", str(suite), "--output", str(full), "--json", str(doc)
        )
        leftovers = temp_files(full)
        results = list(full.glob("*.evalset_result.json"))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert f"error: {full} (result file of suite): cannot write: No space left on device" in (
        proc.stderr
    )
    assert not leftovers and not results
    assert '"evalSetResults"' in doc.read_text()


def test_unwritable_step_summary_is_named_exit_3(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(tmp_path)}
    proc = agenteval_cli("run", "--evalset", str(suite), "--output", str(out), env=env)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert f"error: {tmp_path}: cannot write: Is a directory" in proc.stderr
    assert len(list(out.glob("*.evalset_result.json"))) == 1


def test_report_refuses_its_html_destination_before_reading(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    out = tmp_path / "out"
    assert agenteval_cli("run", "--evalset", str(suite), "--output", str(out)).returncode == 1
    fifo = tmp_path / "nobody-reads"
    os.mkfifo(fifo)
    for page, problem in ((tmp_path, "--html is a directory (give a file name)"),
                          (fifo, "--html: a FIFO nothing reads (writing would wait forever)")):  # fmt: skip
        proc = agenteval_cli("report", str(out), "--html", str(page))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"error: {page}: {problem}" in proc.stderr
    locked = tmp_path / "locked"
    locked.mkdir()
    with immutable(locked):
        proc = agenteval_cli("report", str(out), "--html", str(locked / "r.html"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"cannot write in {locked}: Operation not permitted" in proc.stderr


def test_html_into_a_fifo_with_a_reader(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = agenteval_cli("run", "--evalset", str(suite), "--html", str(fifo))
    reader.join(timeout=30)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert received and received[0].startswith(b"<!doctype html>")


def test_a_reader_that_leaves_stdout_does_not_lose_the_run(tmp_path: Path) -> None:
    # `agenteval run ... | head`: rich exited 1 at the first line it could not print, so the
    # result files were never written and the exit code was not the verdict's.
    evalset = write_suite(tmp_path)
    out = tmp_path / "out"
    args = ["run", "-e", str(evalset), "-o", str(out), "--json", str(tmp_path / "run.json")]
    with subprocess.Popen(
        [sys.executable, "-m", "agenteval", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before anything is printed
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=120) == 1, stderr  # `bad` failed: the verdict's code
    assert stderr == ""
    (result,) = out.glob("*.evalset_result.json")
    statuses = [
        case["finalEvalStatus"] for case in json.loads(result.read_text())["evalCaseResults"]
    ]
    assert statuses == ["passed", "failed"]
    assert json.loads((tmp_path / "run.json").read_text())["overallStatus"] == "failed"
