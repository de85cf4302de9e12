"""Benchmark: peak memory and time of loading and checking an eval set (``api.prepare`` alone).

Generates the eval sets of ``bench/memory.py`` (single-turn trace cases, two
metrics), then in a fresh child process per size imports agenteval, calls
``prepare()`` on the set and walks the planned cases once (under
``api.relaxed_gc()``, as ``agenteval run`` does).  Prints the child's
peak RSS (``os.wait4``), its RSS after the imports (the floor no eval set can
go below), the time of ``prepare()`` and of one pass over ``plan.cases``, and
the time per case against the smallest size.
Target (issue 13 item 5, part L): a 100,000-case set loads well under 300 MB
peak RSS, and loading time per case does not grow with the size.

    python bench/load.py [--cases 10000,50000,100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memory import write_suite

TARGET_PEAK_MB = 300.0
DEFAULT_SIZES = "10000,50000,100000"


def child(evalset: str) -> None:
    """In the measured process: prepare, walk the cases once, print the numbers as JSON."""
    import resource

    from agenteval import api

    floor_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with api.relaxed_gc():  # as `agenteval run` does
        started = time.perf_counter()
        prepared = api.prepare([evalset], api.Options(cache=None))
        prepare_s = time.perf_counter() - started
        started = time.perf_counter()
        walked = sum(1 for plan in prepared.plans for _ in plan.cases)
        iterate_s = time.perf_counter() - started
    print(
        json.dumps(
            {"floor_kb": floor_kb, "prepare": prepare_s, "iterate": iterate_s, "cases": walked}
        )
    )


def measure(sizes: list[int], repeat: int) -> None:
    """``repeat`` children per size (the fastest counts); print peak RSS and times per case."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for cases in sizes:
            work = Path(tmp) / str(cases)
            work.mkdir()
            evalset = write_suite(work, cases)
            size_mb = evalset.stat().st_size / 1e6
            runs = [_child_run(evalset, cases, env) for _ in range(repeat)]
            numbers = min(runs, key=lambda run: run["prepare"])
            peak_mb = max(run["peak_kb"] for run in runs) * 1024 / 1e6
            floor_mb = numbers["floor_kb"] * 1024 / 1e6
            per_case_us = numbers["prepare"] / cases * 1e6
            base = base or per_case_us
            print(
                f"cases: {cases:>7,}  file: {size_mb:5.0f} MB  peak RSS: {peak_mb:5.0f} MB "
                f"(after imports {floor_mb:.0f} MB)  prepare: {numbers['prepare']:6.2f} s  "
                f"per case: {per_case_us:5.0f} us ({per_case_us / base:.2f}x of {sizes[0]:,})  "
                f"one pass over plan.cases: {numbers['iterate']:6.2f} s",
                flush=True,
            )
            for path in work.iterdir():
                path.unlink()
    print(f"target: peak RSS well under {TARGET_PEAK_MB:.0f} MB at 100,000 cases")


def _child_run(evalset: Path, cases: int, env: dict[str, str]) -> dict[str, float]:
    """One measured child: its numbers plus its peak RSS (KiB, from wait4)."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", str(evalset)], stdout=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"the child failed on {cases} cases")
    numbers: dict[str, float] = json.loads(out)
    assert numbers["cases"] == cases, numbers
    numbers["peak_kb"] = usage.ru_maxrss
    return numbers


def main() -> None:
    """Parse the options and measure (or be the measured child)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=DEFAULT_SIZES, help="comma-separated sizes")
    parser.add_argument("--repeat", type=int, default=1, help="children per size; fastest counts")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
    else:
        measure([int(n) for n in args.cases.split(",")], args.repeat)


if __name__ == "__main__":
    main()
