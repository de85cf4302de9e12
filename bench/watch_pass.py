"""Benchmark: a `run --watch` pass after one metric's threshold is saved, against a full run.

Builds an eval set of ``--cases`` copies of the shipped travel-assistant cases (3
deterministic metrics each: trajectory, ROUGE, length), scores it once as the first watch
pass does, saves a new threshold for one metric, and times (CPU seconds, best of
``--repeat``):

* ``full``: ``api.evaluate`` of the whole eval set (what a watch without pair reuse would do);
* ``pass``: ``api.prepare`` + ``score_pass`` with the previous pass's pairs (what a save costs).

Prints both, the pairs re-scored and the ratio pass/full (1/3 of the pairs are stale, so
the ideal is about the share of time the scoring takes beyond reading the files).

    python bench/watch_pass.py [--cases N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from agenteval import api
from agenteval.watch.pairs import score_pass

ROOT = Path(__file__).resolve().parents[1]


def build(folder: Path, copies: int) -> tuple[Path, Path]:
    """An eval set of ``copies`` × the travel-assistant cases and its metric file."""
    source = json.loads((ROOT / "evalsets" / "travel-assistant.evalset.json").read_text())
    cases = []
    for index in range(copies):
        for case in source["evalCases"]:
            cases.append({**case, "evalId": f"{case['evalId']}_{index}"})
    evalset = folder / "big.evalset.json"
    evalset.write_text(json.dumps({**source, "evalSetId": "big", "evalCases": cases}))
    metrics = folder / "big.metrics.json"
    metrics.write_text((ROOT / "metrics" / "travel-assistant.metrics.json").read_text())
    return evalset, metrics


def cpu(action: object) -> float:
    start = time.process_time()
    action()  # type: ignore[operator]
    return time.process_time() - start


def main() -> None:
    """Print full-run and watch-pass CPU seconds and their ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=500, help="copies of the 4 cases")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        evalset, metrics = build(Path(tmp), args.cases)
        options = api.Options(cache=None)
        first = score_pass(api.prepare([str(evalset)], options), options, {})
        data = json.loads(metrics.read_text())
        data[1]["threshold"] = 0.5
        metrics.write_text(json.dumps(data))
        full = min(cpu(lambda: api.evaluate([str(evalset)], options)) for _ in range(args.repeat))
        outcome = []
        pass_times = []
        for _ in range(args.repeat):
            pass_times.append(
                cpu(
                    lambda: outcome.append(
                        score_pass(api.prepare([str(evalset)], options), options, first.pairs)
                    )
                )
            )
        one = min(pass_times)
        total = len(first.pairs)
        print(f"cases {args.cases * 4}, pairs {total}, re-scored {len(outcome[-1].rescored)}")
        print(f"full run   {full:.3f} s CPU")
        print(
            f"watch pass {one:.3f} s CPU  ratio {one / full:.2f} (re-scored share {len(outcome[-1].rescored) / total:.2f})"
        )


if __name__ == "__main__":
    main()
