"""Benchmark: the result readers (show, diff, merge, report, run --resume) on a large run.

Scores ``bench/memory.py``'s eval set (single-turn trace cases, a tool trajectory and a
final-response metric; 1 in 5 fails) once with ``agenteval run --output DIR --json
FILE`` (timed: the reference for ``diff``) and once more as two shards, then runs each
reader in a fresh child process and prints its peak RSS (``os.wait4``) and wall time:

* ``show RESULT --quiet``;
* ``diff RESULT RUN.json`` (the result file against the run document);
* ``merge SHARD1 SHARD2 -o merged.json --quiet``;
* ``report RESULT --html report.html --quiet``;
* ``run --evalset … --resume DIR --output … --quiet`` (every case kept).

With ``--legacy SRC`` each reader also runs on the code in SRC (``python -m agenteval``
with ``PYTHONPATH=SRC``), e.g. ``git archive 49630cd src | tar -x -C /tmp/legacy`` for
main before the readers streamed, so one invocation prints before and after on the
same inputs and the same machine load.  Targets (issue 22, item 1): every reader
≤ 800 MB peak RSS at 100,000 cases, ``diff`` ≤ 1.5× the wall time of the ``run`` that
wrote one input.

    python bench/result_reading.py [--cases 100000] [--legacy /tmp/legacy/src]
                                   [--commands show,diff,merge,report,resume]

(the two shard runs that ``merge`` reads are only scored when ``merge`` is asked for).

How the readers stream (src/agenteval/inputs/result_inputs.py, result_scan.py): a first pass
walks each file a 4 MB window at a time (the stdlib's C decoder finds each case's end)
and keeps the eval set result's head and each case's byte span, evalId and runId
(~16 bytes and an id per case); the commands then read, parse and validate one case at
a time from its span and fold it into what they print or write (show: the report
tallies; diff: each case's and metric's status and score; merge: the result document
spooled as the live run writes it; --resume: handed to the run at its place).

Measured on the shared 2-core box with the other helpers' test runs going (load
average 7-25, so times are rough; each reader ran before, then after, in one
invocation), ``--legacy`` = main at 49630cd, 100,000 cases, 2 metrics, result file
697 MB, run document 799 MB; the scoring run took 600 s and 241 MB:

    python bench/result_reading.py --cases 100000 --legacy /tmp/legacy/src
    show    after    105 MB   93.4 s   before  4,472 MB  102.4 s   0.02x RSS, 0.91x time
    diff    after    275 MB  188.0 s   before  7,073 MB  244.5 s   0.04x RSS, 0.77x time
    merge   after    135 MB  243.2 s   before  6,351 MB  312.6 s   0.02x RSS, 0.78x time
    report  after  3,200 MB  136.2 s   before  4,472 MB  137.2 s   0.72x RSS, 0.99x time
    resume  after    293 MB  367.7 s   before  4,617 MB  244.0 s   0.06x RSS, 1.51x time
    diff / run wall: 0.31x (target ≤ 1.5x)

Re-measured after the merges (main at fbcc342, one invocation, each reader once; load
average 11-16 the whole time, so walls are long: the 100,000-case run itself took 790 s
of wall for ~75 s of CPU), and ``report`` again once it stopped reading its input whole
(5e687e8: the page model is fed case by case, RunBuilder.feed_source; ``merge`` and
``--resume`` were not re-run, their figures above stand):

    python bench/result_reading.py --cases 100000 --commands show,diff,report
    run     244 MB  790.3 s   (scoring; the reference for diff)
    show    123 MB  237.8 s
    diff    283 MB  481.4 s   diff / run wall: 0.61x (target ≤ 1.5x)
    report  2,698 MB  513.6 s (fbcc342: over 800 MB, the result read whole for the page)
    report    232 MB  421.0 s (5e687e8, another invocation, load ~16: the run took 1450 s)

    python bench/result_reading.py --cases 20000 --commands report --legacy <fbcc342 src>
    report  after 109 MB 189.3 s   before 597 MB 152.1 s   0.18x RSS, 1.24x time

What is left: ``diff`` keeps each case's and metric's status and score on both sides
(~1.3 KB a case for two sides); ``--resume`` reads the kept cases twice (once to
refuse a broken file before anything is scored, once when the run reaches them),
which is its extra time.  ``report`` of two runs (a comparison) still reads both whole
for the comparison table.
Profile of a resume of 10,000 cases (cProfile): 42 s preparing (25 s the eval set's
checks, as in any run; ~15 s reading the kept cases twice), 39 s scoring and writing.

2026-12-03, the readers check every piece as an eval set is checked (numbers JSON cannot
hold, misspelt and unknown keys: inputs/result_inputs.piece_problems), 10,000 cases,
``--legacy`` = the commit before, load ~1:

    python bench/result_reading.py --cases 10000 --legacy /tmp/legacy/src --commands show,diff,merge
    show    after     62 MB    3.3 s   before     66 MB    3.0 s   0.94x RSS, 1.12x time
    diff    after     75 MB    7.3 s   before     75 MB    5.2 s   1.00x RSS, 1.40x time
    merge   after     66 MB    6.5 s   before     66 MB    5.2 s   1.00x RSS, 1.24x time

(a noisy machine: diff alone, 3 alternated runs each, 4.7-6.7 s against 3.7-5.2 s).  A
case costs ~25-45 µs more (a parse that refuses NaN and Infinity itself, a C look for an
overflowing exponent, the key walk with each distinct criterion walked once per file):
about half of validating it.  The first cut cost 1.4-2x: the stdlib-text gate sent
every case whose session id held a digit-e-three-digits shape to the value walk.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from memory import write_suite

TARGET_PEAK_MB = 800.0
TARGET_DIFF_RATIO = 1.5
COMMANDS = ("show", "diff", "merge", "report", "resume")


@dataclass(frozen=True, slots=True)
class Measured:
    """One child process: wall seconds, peak RSS in MB, exit code."""

    wall: float
    peak_mb: float
    code: int


def child(command: list[str], src: str | None) -> Measured:
    """Run one agenteval command in a fresh process; its own peak RSS from wait4."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = src
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "agenteval", *command], stdout=out, stderr=err, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if code not in (0, 1, 3):
        sys.exit(f"agenteval {' '.join(command[:1])} failed with exit code {code}:\n{stderr}")
    return Measured(wall, usage.ru_maxrss * 1024 / 1e6, code)


@dataclass(frozen=True, slots=True)
class Inputs:
    """The scored run: eval set, its result file and run document, two shards' results."""

    root: Path
    evalset: Path
    result: Path
    document: Path
    shards: tuple[Path, Path]
    run: Measured


def make_inputs(root: Path, cases: int, *, shards_too: bool = True) -> Inputs:
    """Write the eval set, score it whole (timed) and as two shards (for ``merge`` only)."""
    evalset = write_suite(root, cases)
    out, document = root / "out", root / "run.json"
    common = ["--evalset", str(evalset), "--quiet", "--no-cache", "--no-progress"]
    run = child(["run", *common, "--output", str(out), "--json", str(document)], None)
    shards = []
    for index in (1, 2) if shards_too else ():
        shard_out = root / f"shard{index}"
        child(["run", *common, "--shard", f"{index}/2", "--output", str(shard_out)], None)
        (found,) = shard_out.glob("*.evalset_result.json")
        shards.append(found)
    (result,) = out.glob("*.evalset_result.json")
    pair = (shards[0], shards[1]) if shards else (result, result)
    return Inputs(root, evalset, result, document, pair, run)


def reader(name: str, inputs: Inputs, scratch: Path) -> list[str]:
    """The command line of one reader."""
    if name == "show":
        return ["show", str(inputs.result), "--quiet"]
    if name == "diff":
        return ["diff", str(inputs.result), str(inputs.document)]
    if name == "merge":
        shards = [str(path) for path in inputs.shards]
        return ["merge", *shards, "-o", str(scratch / "merged.json"), "--quiet"]
    if name == "report":
        return ["report", str(inputs.result), "--html", str(scratch / "report.html"), "--quiet"]
    return [
        "run", "--evalset", str(inputs.evalset), "--resume", str(inputs.result.parent),
        "--output", str(scratch / "resumed"), "--quiet", "--no-cache", "--no-progress",
    ]  # fmt: skip


def main() -> None:
    """Score the suite, run every reader before (--legacy) and after, print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--legacy", metavar="SRC", help="the code before, e.g. /tmp/legacy/src")
    parser.add_argument("--commands", default=",".join(COMMANDS))
    args = parser.parse_args()
    names = [name for name in args.commands.split(",") if name]
    sides = [("before", args.legacy), ("after", None)] if args.legacy else [("after", None)]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = make_inputs(Path(tmp), args.cases, shards_too="merge" in names)
        size = inputs.result.stat().st_size / 1e6
        print(
            f"{args.cases:,} cases: run {inputs.run.wall:.1f} s, {inputs.run.peak_mb:.0f} MB; "
            f"result file {size:.0f} MB, run document "
            f"{inputs.document.stat().st_size / 1e6:.0f} MB",
            flush=True,
        )
        table: dict[str, dict[str, Measured]] = {}
        for name in names:
            for side, src in sides:
                scratch = Path(tmp) / f"{side}-{name}"
                scratch.mkdir()
                measured = child(reader(name, inputs, scratch), src)
                table.setdefault(name, {})[side] = measured
                shutil.rmtree(scratch)
                print(
                    f"  {name:7} {side:6} peak RSS {measured.peak_mb:7,.0f} MB  "
                    f"wall {measured.wall:7.1f} s  exit {measured.code}",
                    flush=True,
                )
    print("summary (peak RSS, wall):")
    for name, sides_measured in table.items():
        after = sides_measured["after"]
        line = f"  {name:7} after {after.peak_mb:6,.0f} MB {after.wall:6.1f} s"
        if "before" in sides_measured:
            before = sides_measured["before"]
            line += (
                f"   before {before.peak_mb:6,.0f} MB {before.wall:6.1f} s"
                f"   {after.peak_mb / before.peak_mb:.2f}x RSS, {after.wall / before.wall:.2f}x time"
            )
        verdict = "ok" if after.peak_mb <= TARGET_PEAK_MB else "OVER"
        print(f"{line}   (≤ {TARGET_PEAK_MB:.0f} MB: {verdict})")
    if "diff" in table:
        ratio = table["diff"]["after"].wall / inputs.run.wall
        verdict = "ok" if ratio <= TARGET_DIFF_RATIO else "OVER"
        print(
            f"diff / run wall: {ratio:.2f}x (target ≤ {TARGET_DIFF_RATIO}x: {verdict}); "
            f"run {inputs.run.wall:.1f} s"
        )


if __name__ == "__main__":
    main()
