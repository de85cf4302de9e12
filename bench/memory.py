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

Measured after the streaming work (issue 13, item 5; ``python bench/memory.py`` on the
2-core box, load ~0.8):

    cases:  10,000  peak RSS:  92 MB  per case: 372 us  ratio 1.00x  run.json:  80 MB
    cases:  50,000  peak RSS: 154 MB  per case: 388 us  ratio 1.04x  run.json: 400 MB
    cases: 100,000  peak RSS: 240 MB  per case: 369 us  ratio 0.99x  run.json: 799 MB

(before: 661 / 2,983 / 5,897 MB and 633 / 641 / 697 us per case).  What is left grows
with the file, not with what a case holds: at 100,000 cases ~44 MB of Python after the
imports, the eval set's 114 MB of bytes that the lazy cases are validated from one at a
time (``lazy_cases.py``), a few ints and the evalId per case for the checks, the summary
and the report tallies (~80 bytes per passing case, ``report/set_tally.py``).  Every
case result is encoded into a spool file as it finishes and dropped
(``report/result_stream.py``); the result file and the run document are copied out of
the spools at the end in 1 MiB pieces.

Where the memory went before (main at 7a9feac, ``--profile 50000 --frames 4``): the
``--json`` document built whole (~2.4 GB live at 50k), the stored case results
(~450 MB), the eval set as models (~365 MB), the summaries (~285 MB), the result file
encoded whole (~349 MB).
"""

from __future__ import annotations

import argparse
import linecache
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from deterministic import run_cli, write_suite

TARGET_PEAK_MB = 800.0
TARGET_RATIO = 1.10
DEFAULT_SIZES = "10000,50000,100000"


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
    """Score ``cases`` cases in-process under tracemalloc as ``agenteval run`` does (streamed
    into spools, then written); print the live holders after scoring and after writing."""
    from agenteval import api
    from agenteval.report import result_files
    from agenteval.report.result_stream import write_result_document, write_run_document
    from agenteval.report.streamed_run import StreamedRun

    snapshots: dict[str, tracemalloc.Snapshot] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        evalset = write_suite(root, cases)
        tracemalloc.start(frames)
        started = time.perf_counter()
        sink = StreamedRun(output=root / "out", app_name="agenteval", documents=True)
        api.evaluate(evalset, cache=None, sink=sink)
        snapshots["after scoring"] = tracemalloc.take_snapshot()
        _, peak_scoring = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        for item in sink.sets:
            assert item.document is not None and item.file_name is not None
            write_result_document(item.document, root / "out" / item.file_name)
        header = result_files.run_header([r.statuses.values() for r in sink.reports])
        documents = [item.document for item in sink.sets if item.document is not None]
        write_run_document(root / "run.json", documents, header, {"warnings": []})
        snapshots["after writing"] = tracemalloc.take_snapshot()
        _, peak_writing = tracemalloc.get_traced_memory()
        elapsed = time.perf_counter() - started
        tracemalloc.stop()
        sink.close()
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
