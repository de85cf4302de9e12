"""Benchmark: peak memory and time per case of ``agenteval run --output DIR --json FILE``.

Generates one deterministic eval set per size (single-turn trace cases from
``bench/deterministic.py``: a tool trajectory metric and a final-response text
metric), runs the CLI on it in a fresh child process per size and prints that
child's peak RSS (``os.wait4``, so the sizes never mix), wall time, time per
case and its ratio against the smallest size.
Targets (issue 13, item 5): peak RSS <= 800 MB at 100,000 cases; time per case
within 10 % of the 10,000-case run.

    python bench/memory.py [--cases 10000,50000,100000]
    python bench/memory.py --profile 50000 [--top 15] [--frames 4]   # tracemalloc, in-process

Where the memory goes today (main at 7a9feac, ``--profile 50000 --frames 4``;
tracemalloc MB = 10**6 bytes, Python allocations only; everything below grows
linearly with the number of cases; 2-4 live until the process ends, 1 and 5 during a write):

1. The ``--json`` run document, built whole before one write (the peak):
   ``result_files.run_document`` -> ``schema/base.py:91 dump()`` turns every
   ``EvalSetResult`` into plain dicts, 686 MB (9.25 M blocks) + 120 MB
   (``schema/base.py:79``), then ``result_files.py:47`` holds its text as a
   400 MB str *and* a 400 MB bytes copy.  Live at that write: 2,386 MB; traced
   peak 2,918 MB (1,308 MB while scoring).  ~32 KB per case, transient.
2. Stored per-case results (``runner.py``): two ``EvalMetricResult`` per case
   (``runner.py:163`` and ``:197``, 114 MB each), their details/values
   (``runner.py:180`` 54 MB, ``evaluators/base.py:122`` 54 MB, ``:126`` 42 MB),
   the case results (``runner.py:288`` 64 MB): ~450 MB, ~9 KB per case.
3. The loaded eval set, held by ``EvalSetPlan`` all run: pydantic models from
   ``loading.py:142 EvalSet.model_validate`` 274 MB (2.2 M blocks) plus the
   leaf strings/dicts of ``checks/documents.py:32 pydantic_core.from_json`` that
   the models keep, 91 MB: ~365 MB, ~7 KB per case.
4. Summaries computed from the stored results (``aggregation.py``): metric
   summaries ``:114`` 106 MB, counts ``:83`` 72 MB, case summaries ``:345``
   60 MB, case metrics ``:256`` 48 MB: ~285 MB, ~6 KB per case.
5. The ``--output`` result file, encoded whole: ``gojson.py:312`` one 349 MB
   bytes block while it is written (~7 KB per case, transient).

Measured at the same commit (``python bench/memory.py``, shared 2-core box):
peak RSS 661 MB at 10k, 2,983 MB at 50k, 5,897 MB at 100k (~59 KB per case);
633 / 641 / 697 us per case, 1.00x / 1.01x / 1.10x of 10k (run.json 80 / 400 / 799 MB).
To stream: write each case's result as it finishes (1, 5 go), keep only the
running tallies the summaries need (4 goes), drop a case's invocations and
metric results once written (2 goes) and load/score the eval set case by case (3).
"""

from __future__ import annotations

import argparse
import json
import linecache
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from deterministic import METRICS, make_case, run_cli

TARGET_PEAK_MB = 800.0
TARGET_RATIO = 1.10
DEFAULT_SIZES = "10000,50000,100000"


def write_suite(root: Path, cases: int) -> Path:
    """Write an eval set of ``cases`` cases (streamed, case by case) and its metric file."""
    rng = random.Random(7)
    evalset = root / f"mem{cases}.evalset.json"
    with evalset.open("w", encoding="utf-8") as out:
        out.write(f'{{"evalSetId": "mem{cases}", "evalCases": [')
        for index in range(cases):
            if index:
                out.write(",")
            out.write(json.dumps(make_case(index, rng)))
        out.write("]}")
    (root / f"mem{cases}.metrics.json").write_text(json.dumps(METRICS))
    return evalset


def measure(sizes: list[int]) -> None:
    """Run the CLI once per size, each in its own child, and print peak RSS and time per case."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base: float | None = None
    rows: list[tuple[int, float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # Untimed warm-up so every timed child imports compiled modules.
        warm = root / "warm"
        warm.mkdir()
        run_cli(cli_command(write_suite(warm, 50), warm), env)
        for cases in sizes:
            work = root / str(cases)
            work.mkdir()
            evalset = write_suite(work, cases)
            timing = run_cli(cli_command(evalset, work), env)
            per_case_us = timing.wall / cases * 1e6
            base = base or per_case_us
            peak_mb = timing.peak_mib * 1024 * 1024 / 1e6
            rows.append((cases, peak_mb, timing.wall, per_case_us))
            json_mb = (work / "run.json").stat().st_size / 1e6
            print(
                f"cases: {cases:>7,}  peak RSS: {peak_mb:7.0f} MB  wall: {timing.wall:7.2f} s  "
                f"per case: {per_case_us:6.0f} us  ratio vs {sizes[0]:,}: {per_case_us / base:.2f}x  "
                f"run.json: {json_mb:.0f} MB",
                flush=True,
            )
            for path in sorted(work.rglob("*")):
                if path.is_file():
                    path.unlink()
    largest = rows[-1]
    worst_ratio = max(row[3] for row in rows) / rows[0][3]
    print(
        f"target: peak RSS <= {TARGET_PEAK_MB:.0f} MB at 100,000 cases -> "
        f"{largest[1]:.0f} MB at {largest[0]:,} ({largest[1] / TARGET_PEAK_MB:.2f}x of target)"
    )
    print(
        f"target: time per case within 10 % of the {rows[0][0]:,} run -> "
        f"worst ratio {worst_ratio:.2f}x (limit {TARGET_RATIO:.2f}x)"
    )


def cli_command(evalset: Path, work: Path) -> list[str]:
    """The measured command: results to --output and the run document to --json."""
    return [
        sys.executable,
        "-m",
        "agenteval",
        "run",
        "--evalset",
        str(evalset),
        "--quiet",
        "--no-cache",
        "--output",
        str(work / "out"),
        "--json",
        str(work / "run.json"),
    ]


def profile(cases: int, top: int, frames: int) -> None:
    """Score ``cases`` cases in-process under tracemalloc; print the live holders at the peak."""
    from agenteval import api
    from agenteval.report import result_files
    from agenteval.report.atomic_write import write_bytes_atomic

    snapshots: dict[str, tracemalloc.Snapshot] = {}

    def snapshot_then_write(path: Path | str, payload: bytes) -> Path:
        # The moment just before a report's bytes go to disk: the dumped document is live.
        snapshots[f"while writing {Path(path).name[:40]}"] = tracemalloc.take_snapshot()
        return write_bytes_atomic(path, payload)

    vars(result_files)["write_bytes_atomic"] = snapshot_then_write
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        evalset = write_suite(root, cases)
        tracemalloc.start(frames)
        started = time.perf_counter()
        result = api.evaluate(evalset, cache=None)
        snapshots["after scoring"] = tracemalloc.take_snapshot()
        _, peak_scoring = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        for item in result.results:
            result_files.write_result(item, root / "out", "agenteval")
        result_files.write_run_json(root / "run.json", result)
        _, peak_writing = tracemalloc.get_traced_memory()
        elapsed = time.perf_counter() - started
        tracemalloc.stop()
    print(
        f"{cases:,} cases in {elapsed:.0f} s (traced); traced peak while scoring "
        f"{peak_scoring / 1e6:.0f} MB, while writing --output and --json {peak_writing / 1e6:.0f} MB"
    )
    for moment, snapshot in snapshots.items():
        print(f"live {moment}: {_total(snapshot) / 1e6:.0f} MB; by allocating line (top {top}):")
        for stat in snapshot.statistics("lineno")[:top]:
            _print_holder(stat.size, stat.count, stat.traceback[-1])
        print(f"  ... by the innermost agenteval line that caused it (top {top}):")
        holders: dict[tracemalloc.Frame, list[int]] = {}
        for stat in snapshot.statistics("traceback"):
            frame = _agenteval_frame(stat.traceback)
            tally = holders.setdefault(frame, [0, 0])
            tally[0] += stat.size
            tally[1] += stat.count
        for frame, (size, count) in sorted(holders.items(), key=lambda kv: -kv[1][0])[:top]:
            _print_holder(size, count, frame)


def _total(snapshot: tracemalloc.Snapshot) -> int:
    return sum(stat.size for stat in snapshot.statistics("filename"))


def _agenteval_frame(traceback: tracemalloc.Traceback) -> tracemalloc.Frame:
    """The most recent frame in agenteval's own code, else the allocating frame."""
    for frame in reversed(traceback):  # oldest first, so walk from the allocation outwards
        if "/agenteval/" in frame.filename and "site-packages/pydantic" not in frame.filename:
            return frame
    return traceback[-1]


def _print_holder(size: int, count: int, frame: tracemalloc.Frame) -> None:
    line = linecache.getline(frame.filename, frame.lineno).strip()
    print(
        f"  {size / 1e6:7.1f} MB {count:>9,} blocks  "
        f"{_short(frame.filename)}:{frame.lineno}  {line[:70]}"
    )


def _short(filename: str) -> str:
    marker = "site-packages/"
    if marker in filename:
        return filename.split(marker, 1)[1]
    return filename.split("/src/", 1)[-1]


def main() -> None:
    """Measure the sizes given, or profile one size with tracemalloc."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default=DEFAULT_SIZES, help="comma-separated sizes")
    parser.add_argument("--profile", type=int, metavar="N", help="tracemalloc N cases in-process")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--frames", type=int, default=4, help="traceback depth traced")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.top, args.frames)
        return
    measure([int(text) for text in args.cases.split(",") if text.strip()])


if __name__ == "__main__":
    main()
