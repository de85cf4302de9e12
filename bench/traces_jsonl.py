"""Benchmark: ``agenteval run --evalset E --traces T.jsonl`` at 10,000 and 100,000 cases.

Each case of ``bench/deterministic.py`` becomes a default-mode case (its reference turn in
``conversation``) and its recorded turn a ``--traces`` JSON-lines record, as ``--record``
writes them.  Each size is run by the CLI in a fresh child process; the line gives its
peak RSS (``os.wait4``), wall and CPU seconds and the traces file's size.  Target (issue 22,
item 1): peak RSS <= 800 MB at 100,000 cases, the traces read incrementally.

    python bench/traces_jsonl.py [--cases 10000,100000]

Measured on the shared 2-core box (load 9-13: wall times are loose, CPU and RSS hold),
before (the JSON lines read whole into models, at 265d9a3) and after (trace_records.py:
checked line by line, indexed, each record read again when a case needs it):

    before:  10,000 cases  peak 156 MiB  cpu  6.0 s   traces  5.6 MB
            100,000 cases  peak 942 MiB  cpu 40.1 s   traces 55.7 MB   (over the target)
    after:   10,000 cases  peak  81 MiB  cpu  7.1 s
            100,000 cases  peak 181 MiB  cpu 54.6 s

The CPU that memory costs: each record is parsed and validated three times instead of
once (the up-front check, the case's layout check, the case's run), ~40 us each, as the
eval set's own cases are (lazy_cases.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deterministic import METRICS, make_case

TARGET_PEAK_MIB = 800


def write_inputs(root: Path, cases: int) -> tuple[Path, Path]:
    """The eval set (reference turns only) and the traces JSON lines, written case by case."""
    rng = random.Random(7)
    evalset, traces = root / f"t{cases}.evalset.json", root / f"t{cases}.traces.jsonl"
    with evalset.open("w", encoding="utf-8") as sets, traces.open("w", encoding="utf-8") as lines:
        sets.write(f'{{"evalSetId": "t{cases}", "evalCases": [')
        for index in range(cases):
            case = make_case(index, rng)
            record = {"evalId": case["evalId"], "actualConversation": case["actualConversation"]}
            del case["evalMode"], case["actualConversation"]
            sets.write(("," if index else "") + json.dumps(case))
            lines.write(json.dumps(record) + "\n")
        sets.write("]}")
    (root / f"t{cases}.metrics.json").write_text(json.dumps(METRICS), encoding="utf-8")
    return evalset, traces


def run_once(evalset: Path, traces: Path) -> str:
    """One CLI run in a child: its peak RSS, wall and CPU."""
    command = [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset)]
    command += ["--traces", str(traces), "--quiet", "--no-progress"]
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        errors = err.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"agenteval exited {code}:\n{errors}")
    peak = usage.ru_maxrss / 1024
    mark = "ok" if peak <= TARGET_PEAK_MIB else "OVER"
    return (
        f"peak {peak:6,.0f} MiB ({mark} vs {TARGET_PEAK_MIB})  wall {wall:6.1f} s  "
        f"cpu {usage.ru_utime + usage.ru_stime:6.1f} s  traces "
        f"{traces.stat().st_size / 1e6:5.1f} MB"
    )


def main() -> None:
    """Generate each size, run it, print one line per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="10000,100000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.cases.split(",")):
            evalset, traces = write_inputs(Path(tmp), size)
            print(f"{size:>8,} cases  {run_once(evalset, traces)}", flush=True)
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
