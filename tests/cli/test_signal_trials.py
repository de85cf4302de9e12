"""Scripted signal trials: SIGINT and SIGTERM at many points of a run, then --resume.

Every trial must leave only whole files (no temp file, every file parses), keep every
case it reports as finished exactly as an uninterrupted run scores it, and ``--resume``
must complete the run to the same summary, with no judge call paid twice (cache on and
off).  Points are start-up, loading, scoring and the writing of the reports.

The default suite stops each run in every phase (16 trials); the other points and the
20,000-case trials are long trials (``slow``: ``make test-long``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agenteval.run.case_split import share_bounds
from judge_server import JudgeServer, Reply
from tests.cli.test_interrupt_resume import CASES, write_suite

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from deterministic import METRICS, make_case  # noqa: E402

DETERMINISTIC_CASES = 1000
# Each trial is made with both signals a terminal or a supervisor sends to stop a run.
EITHER_SIGNAL = pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"]
)


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agenteval", "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    stdout, stderr = proc.communicate(timeout=300)
    return proc.returncode, stdout, stderr


def cases_of(path: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(path.read_text())
    return {c["evalId"]: c for c in data["evalCaseResults"] or []}


def scored(case: dict[str, Any]) -> tuple[object, object]:
    return case["finalEvalStatus"], case["overallEvalMetricResults"]


def check_whole(tmp: Path) -> None:
    """No temp file anywhere; every report file parses."""
    leftovers = [p for p in tmp.rglob("*") if p.name.endswith(".tmp")]
    assert not leftovers, leftovers
    for path in tmp.rglob("*.json"):
        json.loads(path.read_bytes())
    for path in tmp.rglob("*.xml"):
        assert path.read_text().rstrip().endswith("</testsuites>")


def killed_while_starting(code: int, sig: int, output: str) -> bool:
    """The signal reached the interpreter before agenteval's first line ran: it died by the
    signal, or (a KeyboardInterrupt while Python imports ``site``, or ``runpy`` for ``-m``,
    both seen with two test workers on a loaded box) Python itself exited 1 with its own
    message. None of them can be helped."""
    if "agenteval/entry.py" in output or "agenteval/cli/" in output:
        return False
    if code == 1 and output.startswith("Could not import runpy module\n"):
        return True
    return code == -sig or (code == 1 and "Fatal Python error: init_import_site" in output)


def check_no_traceback(code: int, sig: int, stderr: str) -> None:
    """No traceback from agenteval; the interpreter's own, for a signal that killed it before
    agenteval's first line ran (``python -m`` still importing), cannot be helped."""
    if "Traceback" not in stderr:
        return
    assert killed_while_starting(code, sig, stderr), stderr


def check_exit(code: int, sig: int, tmp: Path, allowed: tuple[int, ...], output: str) -> None:
    """``allowed`` exit codes; or death by the signal itself, which only happens before the
    interpreter reaches agenteval's first line (a loaded machine: Python's own start-up),
    and then nothing may have been written."""
    if killed_while_starting(code, sig, output):
        # Death by the signal itself: either before agenteval's first line (nothing written),
        # or after the run restored the default handlers on its way out (every report
        # already written whole; check_whole and the resume below hold it to that).
        outputs = [tmp / "out", tmp / "run.json", tmp / "run.xml"]
        written = [p for p in outputs if p.exists()]
        assert not written or {"out", "run.json"} <= {p.name for p in written}, written
        return
    assert code in allowed, (code, output)


def known_stray_sigint(code: int, sig: int, stderr: str, tmp: Path) -> bool:
    """The one outcome seen but not explained (closing note of issue 13): a SIGTERM during
    loading printed "interrupted", wrote nothing, and the process then died by SIGINT instead
    of exiting 3 (about 1 in 90 trials on a loaded box).  Such a trial is run once more; the
    same outcome twice fails."""
    written = [p for p in (tmp / "out", tmp / "run.json", tmp / "run.xml") if p.exists()]
    return (
        sig == signal.SIGTERM
        and code == -signal.SIGINT
        and stderr == "interrupted\n"
        and not written
    )


def stop_run(
    args: list[str], sig: int, tmp: Path, wait: Callable[[subprocess.Popen[str]], None]
) -> tuple[int, str, str]:
    """Start a run, ``wait``, send ``sig``; the run's exit code and output."""
    for attempt in range(2):
        proc = start(args)
        wait(proc)
        proc.send_signal(sig)
        code, stdout, stderr = finish(proc)
        if attempt == 0 and known_stray_sigint(code, sig, stderr, tmp):
            continue
        return code, stdout, stderr
    return code, stdout, stderr


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], limit: float) -> None:
    deadline = time.monotonic() + limit
    while not condition() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


@pytest.fixture(scope="module")
def big_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], float]:
    """A deterministic suite, its uninterrupted result and how long that run took."""
    root = tmp_path_factory.mktemp("trials")
    rng = random.Random(7)
    cases = [make_case(i, rng) for i in range(DETERMINISTIC_CASES)]
    evalset = root / "big.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "big", "evalCases": cases}))
    (root / "big.metrics.json").write_text(json.dumps(METRICS))
    began = time.monotonic()
    proc = start(["--evalset", str(evalset), "--output", str(root / "full"), "-q"])
    code, _, stderr = finish(proc)
    assert code == 1, stderr
    (full,) = (root / "full").glob("*.evalset_result.json")
    return evalset, cases_of(full), time.monotonic() - began


def sized(points: list[Any], long_only: set[Any], prefix: str = "") -> list[Any]:
    """The points as parameters; those in ``long_only`` run with the long trials only (``slow``),
    so the default suite keeps a stop in every phase and stays within ~90 s on 2 cores."""
    return [
        pytest.param(p, id=f"{prefix}{p}", marks=[pytest.mark.slow] if p in long_only else [])
        for p in points
    ]


# Seconds after start (start-up, loading) or fractions of a full run (scoring), or "writing".
POINTS: list[float | str] = [0.15, 0.3, 0.5, 0.7, 0.85, "writing"]


@EITHER_SIGNAL
@pytest.mark.parametrize("point", sized(POINTS, long_only={0.3, 0.7}))
def test_deterministic_run(
    big_suite: tuple[Path, dict[str, Any], float], tmp_path: Path, sig: int, point: float | str
) -> None:
    evalset, full, seconds = big_suite
    out = tmp_path / "out"
    args = ["--evalset", str(evalset), "--output", str(out), "--json", str(tmp_path / "run.json")]
    args += ["--junit", str(tmp_path / "run.xml"), "-q"]

    def wait(proc: subprocess.Popen[str]) -> None:
        if point == "writing":
            wait_for(lambda: out.exists() and any(out.iterdir()), proc, 300)
        else:
            assert isinstance(point, float)
            time.sleep(point if point < 0.5 else point * seconds)

    code, stdout, stderr = stop_run(args, sig, tmp_path, wait)
    check_no_traceback(code, sig, stderr)
    check_exit(code, sig, tmp_path, (1, 3), stdout + stderr)
    check_whole(tmp_path)
    partial = list(out.glob("*.evalset_result.json")) if out.exists() else []
    resume: list[str] = []
    if partial:
        (path,) = partial
        kept = cases_of(path)
        for eval_id, case in kept.items():
            assert scored(case) == scored(full[eval_id])
        resume = ["--resume", str(path)]
    again = tmp_path / "again"
    code, _, stderr = finish(start(["--evalset", str(evalset), "--output", str(again), *resume]))
    assert code == 1, stderr
    (done,) = again.glob("*.evalset_result.json")
    final = cases_of(done)
    assert list(final) == list(full)
    assert all(scored(final[i]) == scored(full[i]) for i in full)


JUDGE_POINTS = [0.15, 0.3, 1, 5, 10, CASES]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("point", sized(JUDGE_POINTS, long_only={0.15, 5}, prefix="p"))
def test_judge_run(judge_server: JudgeServer, tmp_path: Path, cache: bool, point: float) -> None:
    """Points: seconds after start (floats) or judge requests received (ints)."""
    judge_server.when(
        "Reference response", Reply(content="reasoning: same\nis_the_agent_response_valid: valid")
    )
    judge_server.latency = 0.2
    evalset, metrics = write_suite(tmp_path, judge_server)
    caching = ["--cache", str(tmp_path / "c.sqlite")] if cache else ["--no-cache"]
    base = ["--evalset", str(evalset), "--metrics", str(metrics), "--concurrency", "3", *caching]
    out = tmp_path / "out"
    proc = start([*base, "--output", str(out), "--json", str(tmp_path / "run.json")])
    if isinstance(point, float):
        time.sleep(point)
    else:
        wait_for(lambda: judge_server.count >= point, proc, 60)
    sig = signal.SIGINT if int(point * 10) % 2 == 0 else signal.SIGTERM
    proc.send_signal(sig)
    code, stdout, stderr = finish(proc)
    check_no_traceback(code, sig, stderr)
    check_exit(code, sig, tmp_path, (0, 3), stdout + stderr)
    check_whole(tmp_path)
    resume: list[str] = []
    partial = list(out.glob("*.evalset_result.json")) if out.exists() else []
    if partial:
        (path,) = partial
        kept = cases_of(path)
        assert all(c["finalEvalStatus"] == "passed" for c in kept.values())
        resume = ["--resume", str(path)]
    first = judge_server.count
    again = tmp_path / "again"
    code, _, stderr = finish(start([*base, "--output", str(again), *resume]))
    assert code == 0, stderr
    (done,) = again.glob("*.evalset_result.json")
    assert len(cases_of(done)) == CASES
    assert judge_server.count == CASES, f"{first} before the stop, {judge_server.count} in all"


# The scale: a 20,000-case run, SIGINT and SIGTERM at ten points from start-up to the
# last write: "0.5s" is seconds after start (start-up, loading), "55%" a fraction of the full
# run's time (scoring), "writing" once the first report file is in place.
LARGE_CASES = 20_000
LARGE_POINTS = ["0.05s", "0.2s", "0.5s", "1s", "15%", "35%", "55%", "75%", "95%", "writing"]
# Resumed to the end (both signals): one stop during scoring, one while writing.
LARGE_RESUMED = {"55%", "writing"}


@pytest.fixture(scope="module")
def large_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], float]:
    """The 20,000-case suite, its uninterrupted result and how long that run took."""
    root = tmp_path_factory.mktemp("large")
    rng = random.Random(11)
    evalset = root / "large.evalset.json"
    with evalset.open("w", encoding="utf-8") as out:
        out.write('{"evalSetId": "large", "evalCases": [')
        out.write(",".join(json.dumps(make_case(i, rng)) for i in range(LARGE_CASES)))
        out.write("]}")
    (root / "large.metrics.json").write_text(json.dumps(METRICS))
    began = time.monotonic()
    code, _, stderr = finish(
        start(["--evalset", str(evalset), "--output", str(root / "full"), "-q"])
    )
    assert code == 1, stderr
    (full,) = (root / "full").glob("*.evalset_result.json")
    return evalset, cases_of(full), time.monotonic() - began


def stop_large_run(
    large_suite: tuple[Path, dict[str, Any], float],
    tmp_path: Path,
    sig: int,
    point: str,
    flags: list[str],
    speed: float = 1.0,
) -> dict[str, Any] | None:
    """The 20,000-case run with ``flags``, stopped by ``sig`` at ``point`` ("writing", "0.5s"
    after start, or "55%" of the full run's time times ``speed``): checked whole, its kept
    cases (by evalId, in file order; None: no result file) each scored as the
    uninterrupted run scored it."""
    evalset, full, seconds = large_suite
    out = tmp_path / "out"
    args = ["--evalset", str(evalset), "--output", str(out), "--json", str(tmp_path / "run.json")]

    def wait(proc: subprocess.Popen[str]) -> None:
        if point == "writing":
            wait_for(lambda: out.exists() and any(out.iterdir()), proc, 600)
        elif point.endswith("s"):
            time.sleep(float(point[:-1]))
        else:
            time.sleep(float(point[:-1]) / 100 * seconds * speed)

    code, stdout, stderr = stop_run([*args, *flags, "-q"], sig, tmp_path, wait)
    check_no_traceback(code, sig, stderr)
    check_exit(code, sig, tmp_path, (1, 3), stdout + stderr)
    check_whole(tmp_path)
    partial = list(out.glob("*.evalset_result.json")) if out.exists() else []
    if not partial:
        return None
    (path,) = partial
    kept = cases_of(path)
    assert all(scored(case) == scored(full[eval_id]) for eval_id, case in kept.items())
    # The run document holds the same cases (counted without parsing 160 MB again).
    held = (tmp_path / "run.json").read_bytes().count(b'"sessionId"')
    assert held == len(kept)
    return kept


def resume_large_run(
    large_suite: tuple[Path, dict[str, Any], float], tmp_path: Path, flags: list[str]
) -> None:
    """``--resume`` the stopped run's result file (if any): every case, as one pass scored it."""
    evalset, full, _ = large_suite
    partial = list((tmp_path / "out").glob("*.evalset_result.json"))
    resume = ["--resume", str(partial[0])] if partial else []
    again = tmp_path / "again"
    args = ["--evalset", str(evalset), "--output", str(again), *flags, *resume]
    code, _, stderr = finish(start(args))
    assert code == 1, stderr
    (done,) = again.glob("*.evalset_result.json")
    final = cases_of(done)
    assert list(final) == list(full)
    assert all(scored(final[i]) == scored(full[i]) for i in full)


@pytest.mark.slow  # make test-long
@EITHER_SIGNAL
@pytest.mark.parametrize("point", LARGE_POINTS)
def test_large_run(
    large_suite: tuple[Path, dict[str, Any], float], tmp_path: Path, sig: int, point: str
) -> None:
    junit = ["--junit", str(tmp_path / "run.xml")]
    kept = stop_large_run(large_suite, tmp_path, sig, point, junit) or {}
    # Every finished case is held, in file order.
    assert list(kept) == list(large_suite[1])[: len(kept)]
    if point in LARGE_RESUMED:
        resume_large_run(large_suite, tmp_path, [])


# The same run in two shares (--jobs 2): a stop during the checks (workers check the later
# share), during scoring (a worker scores it) and while writing.  Each share keeps a prefix of
# its cases: nothing finished is lost, and --resume scores the rest.
SHARED_POINTS = ["0.4s", "35%", "75%", "writing"]
SHARED_RESUMED = {"35%", "writing"}


@pytest.mark.slow  # make test-long
@EITHER_SIGNAL
@pytest.mark.parametrize("point", SHARED_POINTS)
def test_large_run_in_shares(
    large_suite: tuple[Path, dict[str, Any], float], tmp_path: Path, sig: int, point: str
) -> None:
    jobs = ["--jobs", "2"]
    # Two cores: the run takes ~0.6 of the time.
    held = stop_large_run(large_suite, tmp_path, sig, point, jobs, speed=0.6)
    kept = held or {}
    ids = list(large_suite[1])
    place = {eval_id: at for at, eval_id in enumerate(ids)}
    cut = share_bounds(len(ids), 2)[1]
    first = [i for i in kept if place[i] < cut]
    second = [i for i in kept if place[i] >= cut]
    # Each share's finished cases, in file order: a prefix of it.
    assert list(kept) == first + second
    assert first == ids[: len(first)] and second == ids[cut : cut + len(second)]
    if held is not None and point in ("75%", "writing"):
        assert second  # the worker scored (it compared shares, not one pass)
    if point in SHARED_RESUMED:
        resume_large_run(large_suite, tmp_path, jobs)


# A signal at any moment of agenteval's own life: at chosen import events (an audit hook sends
# it from inside the import, so it lands exactly there: the command line's imports, the lazy
# ones of scoring and of the reports), and right after the summary is printed.  Counting starts
# with the first import after ``agenteval.entry`` (the start-up guard is its first statement;
# before it only the interpreter's own machinery runs: locating two small modules).
IMPORT_HOOK = """
import os, runpy, sys
target, sig, count = int(sys.argv[1]), int(sys.argv[2]), [0, False]
def hook(event, args):
    if event != "import":
        return
    if not count[1]:
        count[1] = args[0] == "agenteval.entry"
        return
    count[0] += 1
    if count[0] == target:
        os.kill(os.getpid(), sig)
    if target == 0:
        print(args[0], file=sys.stderr)
sys.addaudithook(hook)
sys.argv = ["agenteval", *sys.argv[3:]]
runpy.run_module("agenteval", run_name="__main__", alter_sys=True)
"""


def interrupted_lines(stdout: str, stderr: str) -> list[str]:
    return [line for line in (stdout + stderr).splitlines() if "interrupted" in line.lower()]


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small")
    rng = random.Random(5)
    evalset = root / "small.evalset.json"
    cases = [make_case(i, rng) for i in range(40)]
    evalset.write_text(json.dumps({"evalSetId": "small", "evalCases": cases}))
    (root / "small.metrics.json").write_text(json.dumps(METRICS))
    return evalset


def test_a_signal_at_any_import_is_one_interrupted_line(small_suite: Path, tmp_path: Path) -> None:
    args = ["run", "--evalset", str(small_suite), "--output", str(tmp_path / "out"), "-q"]
    probe = subprocess.run(
        [sys.executable, "-c", IMPORT_HOOK, "0", "0", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert probe.returncode == 1, probe.stderr
    total = len(probe.stderr.splitlines())
    # The package's first imports one by one (where a traceback used to come from), then
    # points spread over the rest of the run.
    points = sorted({*range(1, 6), *range(6, total + 1, max(1, total // 12))})
    for index, point in enumerate(points):
        sig = signal.SIGINT if index % 2 == 0 else signal.SIGTERM
        done = subprocess.run(
            [sys.executable, "-c", IMPORT_HOOK, str(point), str(int(sig)), *args],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        where = f"import {point} of {total}, {sig.name}: {done.stdout + done.stderr}"
        assert done.returncode == 3, where
        assert "Traceback" not in done.stderr, where
        assert len(interrupted_lines(done.stdout, done.stderr)) == 1, where


# A signal inside compiled code that calls back into Python: pydantic-core, building a model's
# validator as the command line is imported, reads each enum member's value through Python;
# a KeyboardInterrupt raised there comes back as pydantic-core's own SchemaError (CI saw it
# once, from a Ctrl-C at start-up).  The profile hook sends the signal from inside the Nth
# such call, so it lands exactly there.
SCHEMA_HOOK = """
import os, runpy, sys
target, sig, count = int(sys.argv[1]), int(sys.argv[2]), [0]
def hook(frame, event, arg):
    caller = frame.f_back
    if event != "call" or caller is None or not frame.f_code.co_filename.endswith("enum.py"):
        return
    if caller.f_code.co_name != "create_schema_validator":
        return
    count[0] += 1
    if target == 0:
        print("enum read", file=sys.stderr)
    if count[0] == target:
        sys.setprofile(None)
        os.kill(os.getpid(), sig)
sys.setprofile(hook)
sys.argv = ["agenteval", *sys.argv[3:]]
runpy.run_module("agenteval", run_name="__main__", alter_sys=True)
"""


def schema_run(suite: Path, out: Path, target: int, sig: int) -> subprocess.CompletedProcess[str]:
    args = ["run", "--evalset", str(suite), "--output", str(out), "-q"]
    return subprocess.run(
        [sys.executable, "-c", SCHEMA_HOOK, str(target), str(sig), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def enum_reads(small_suite: Path, tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many enum reads the validator builds of a run make (a signal-free run counts)."""
    probe = schema_run(small_suite, tmp_path_factory.mktemp("probe"), 0, 0)
    reads = probe.stderr.count("enum read")
    assert probe.returncode == 1 and reads > 0, probe.stderr
    return reads


# Every validator is built while the command line is imported, before a command's guard runs
# (tests/cli/test_guard.py covers one built inside it).
@pytest.mark.parametrize("point", ["first", "middle", "last"])
@EITHER_SIGNAL
def test_a_signal_inside_a_schema_build_is_one_interrupted_line(
    small_suite: Path, enum_reads: int, tmp_path: Path, point: str, sig: signal.Signals
) -> None:
    target = {"first": 1, "middle": (enum_reads + 1) // 2, "last": enum_reads}[point]
    done = schema_run(small_suite, tmp_path / "out", target, int(sig))
    where = f"read {target} of {enum_reads}, {sig.name}: {done.stdout + done.stderr}"
    assert done.returncode == 3, where
    assert "Traceback" not in done.stderr and "SchemaError" not in done.stderr, where
    assert len(interrupted_lines(done.stdout, done.stderr)) == 1, where


def test_a_signal_right_after_the_summary_is_one_interrupted_line(
    small_suite: Path, tmp_path: Path
) -> None:
    """The eval set tables are printed before the reports are written, the verdict line
    after them; the process ends soon after. Once its output streams are closed its status
    is decided (entry.py closes them last), so a signal sent after that cannot count and
    those delays are left out."""
    landed = 0
    for index, delay in enumerate([0, 0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08]):
        sig = signal.SIGINT if index % 2 == 0 else signal.SIGTERM
        out = tmp_path / f"out{index}"
        args = ["run", "--evalset", str(small_suite), "--output", str(out), "--no-progress"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "agenteval", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        fd = proc.stdout.fileno()
        seen = b""
        while b"eval set " not in seen and (chunk := os.read(fd, 65536)):
            seen += chunk
        time.sleep(delay)
        os.set_blocking(fd, False)
        try:
            while chunk := os.read(fd, 65536):
                seen += chunk
            ended = True  # end of the stream: the process has decided its status
        except BlockingIOError:
            ended = False
        os.set_blocking(fd, True)
        if not ended:
            proc.send_signal(sig)
            landed += 1
        rest, stderr_bytes = proc.communicate(timeout=60)
        if ended:
            continue
        stdout, stderr = (seen + rest).decode(), stderr_bytes.decode()
        where = f"{delay} s after the summary, {sig.name}: {stdout + stderr}"
        assert proc.returncode == 3, where
        assert "Traceback" not in stderr, where
        assert len(interrupted_lines(stdout, stderr)) == 1, where
    assert landed >= 4
