"""Benchmark: what the up-front checks of issue 12 add to loading a large eval set.

Times, on a generated eval set of N cases (bench/deterministic.py's cases), the
loader alone (``loading.parse_evalset``) and the loader with the checks ``run``
and ``validate`` now do before anything is scored (file kind, non-finite
numbers, unknown keys on the one shared JSON parse, then the case layouts).
Prints the best of ``--repeat`` rounds and the ratio.

    python bench/strict_reading.py [--cases N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from deterministic import make_case

from agenteval.checks.case_layout import check_case_layouts
from agenteval.checks.documents import check_evalset_document, parsed
from agenteval.inputs.loading import parse_evalset


def best(repeat: int, work: Callable[[], object]) -> float:
    """The fastest of ``repeat`` timed calls, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    """Generate the eval set, time loader and checks, print seconds and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(7)
    text = json.dumps(
        {"evalSetId": "bench", "evalCases": [make_case(i, rng) for i in range(args.cases)]}
    )
    evalset, problems = parse_evalset(text, "bench.evalset.json")
    assert evalset is not None and not problems

    def checked_load() -> None:
        data = parsed(text)
        readable, found, warnings = check_evalset_document(data, "b", strict=False, text=text)
        assert readable and not found and not warnings
        loaded, _ = parse_evalset(text, "bench.evalset.json", data)
        assert loaded is not None and not check_case_layouts(loaded, "b", None)

    load = best(args.repeat, lambda: parse_evalset(text, "bench.evalset.json"))
    checked = best(args.repeat, checked_load)
    print(f"{args.cases} cases, {len(text) / 1e6:.1f} MB of JSON")
    print(f"load alone (parse_evalset):          {load:.3f} s")
    print(f"load with the checks of issue 12:    {checked:.3f} s")
    print(f"ratio:                               {checked / load:.2f}")


if __name__ == "__main__":
    main()
