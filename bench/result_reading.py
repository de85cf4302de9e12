"""Benchmark: reading a result file (show, diff, report, --resume), old route against new.

Writes the eval set of ``bench/memory.py``'s ``write_suite`` (10,000 single-turn
trace cases by default), scores it once with ``agenteval run --output DIR`` and
reads the result file (70 MB at 10k cases) with

* ``old``: the route every result reader took before, kept here as it was: parse
  the JSON to tell the file kind, then ``EvalSetResult.model_validate_json``, with
  the cyclic garbage collector on;
* ``new``: :func:`agenteval.result_inputs.read_results`, as the commands call it.

Each read runs in a fresh child process (so one route's heap never slows the other),
interleaved, ``--repeat`` times; the best of each is printed with the ratio, once for
the read alone and once for read + ``show``'s console rendering (whatever collections
a route defers are paid there).

    python bench/result_reading.py [--cases 10000] [--repeat 3]

Profile of the old route (10k cases, ``cProfile`` of ``agenteval show``): 17.0 of
25.1 s inside pydantic-core's ``validate_json``, 3.1 s rendering.  With the
collector off the same validation took 1.5 s: ~5 million objects are built and
every automatic collection re-scanned all built so far.  What the new route does:

1. pauses the collector over parsing and validating, and freezes a large tree once
   built (``src/agenteval/long_lived.py``): 6-13 s -> ~2 s;
2. validates the JSON it already parsed to tell the file kind (strict Python mode)
   instead of parsing the text a second time, and validates each distinct criterion
   once (40,000 criterion trees, 45% of the models, keyed by ``marshal.dumps``)
   (``src/agenteval/result_validation.py``): parse + validate 1.66 s -> 1.36 s,
   collector off, best of 4.  Any failure is validated again from the text in JSON
   mode, so problems keep their wording.

Measured on the shared 2-core box (other developers' jobs running), 10,000 cases,
70 MB result file, ``--repeat 3``:

    load ~4.8:  read            old  10.56 s   new   1.94 s   5.4x faster
                read + render   old  11.65 s   new   2.49 s   4.7x faster
    load ~6:    read            old  18.24 s   new   2.44 s   7.5x faster
                read + render   old  19.47 s   new   3.82 s   5.1x faster
    load ~1.8:  read            old   7.76 s   new   1.17 s   6.6x faster
                read + render   old   8.29 s   new   1.71 s   4.9x faster   (--repeat 2)

Whole commands on that file, main at bc9cb62 against this branch, same output
byte for byte and the same exit code: ``agenteval show`` 21.6 / 18.0 s -> 4.65 /
4.45 s (two runs each), ``agenteval diff FILE FILE`` 35.3 s -> 6.7 s.  Rendering
(~1.2 s, ``report/console.py``) is not part of this change.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memory import write_suite

ROUTES = ("old", "new")


def old_route(path: Path) -> list[Any]:
    """The result reader before this bench's change (result_inputs.parse_results, RESULT kind)."""
    import pydantic_core

    from agenteval.checks.file_kind import FileKind, kind_of
    from agenteval.loading import read_text
    from agenteval.schema.result import EvalSetResult

    text = read_text(path)
    data = pydantic_core.from_json(text)
    if kind_of(data) is not FileKind.RESULT:
        sys.exit(f"{path}: not a result file")
    return [EvalSetResult.model_validate_json(text)]


def new_route(path: Path) -> list[Any]:
    """The result reader the commands call now."""
    from agenteval.result_inputs import read_results

    return read_results([path])[0]


def child(route: str, path: Path) -> None:
    """Read ``path`` by ``route``, render it like ``show``; print the seconds as JSON."""
    import io

    from rich.console import Console

    from agenteval.report import console as console_report

    assert gc.isenabled()
    started = time.perf_counter()
    results = old_route(path) if route == "old" else new_route(path)
    read = time.perf_counter() - started
    out = Console(file=io.StringIO(), width=160)
    console_report.render_run(out, results, max_shown=console_report.DEFAULT_MAX_SHOWN)
    total = time.perf_counter() - started
    cases = sum(len(r.case_results()) for r in results)
    print(json.dumps({"read": read, "total": total, "cases": cases}))


def result_file(root: Path, cases: int) -> Path:
    """Score the write_suite eval set once and return its result file."""
    evalset = write_suite(root, cases)
    metrics = evalset.with_name(evalset.name.replace(".evalset.json", ".metrics.json"))
    out = root / "out"
    command = [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset)]
    command += ["--metrics", str(metrics), "--output", str(out), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"agenteval run failed ({done.returncode}):\n{done.stderr}")
    (found,) = out.glob("*.evalset_result.json")
    return found


def measure(route: str, path: Path) -> dict[str, float]:
    """One read in a fresh child process."""
    command = [sys.executable, __file__, "--child", route, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def main() -> None:
    """Write the result file, time both routes, print the best times and the ratios."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", choices=ROUTES)
    parser.add_argument("path", nargs="?", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.path)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = result_file(Path(tmp), args.cases)
        size = path.stat().st_size / 1e6
        print(f"{args.cases} cases, result file {size:.0f} MB, best of {args.repeat}")
        best: dict[str, dict[str, float]] = {r: {} for r in ROUTES}
        for _ in range(args.repeat):
            for route in ROUTES:
                measured = measure(route, path)
                if measured["cases"] != args.cases:
                    sys.exit(f"{route}: read {measured['cases']} cases, not {args.cases}")
                for key in ("read", "total"):
                    best[route][key] = min(best[route].get(key, measured[key]), measured[key])
    for key, label in (("read", "read"), ("total", "read + render")):
        old, new = best["old"][key], best["new"][key]
        print(f"{label:15} old {old:6.2f} s   new {new:6.2f} s   {old / new:.1f}x faster")


if __name__ == "__main__":
    main()
