"""Judge calls saved by ``final_response_gate``: 10,000 turns, 10% of them need the judge.

Builds one eval set of 1,000 trace-mode cases x 10 turns whose answers are
45% the reference up to case and punctuation (decided by ``exact``), 45% the
reference with one word changed or added (``rouge``, F1 >= 0.8) and 10%
paraphrases (ROUGE-1 F1 about 0.5: only the judge can decide them).  Each
metric runs end to end through ``agenteval.evaluate`` against the loopback
judge (tests/judge_server.py, in this process, a few ms of latency per call),
and the judge calls are counted from the server's request log.

Metrics compared on the same turns:

* ``final_response_gate`` with the default gate (rougeF1 0.8, judge on);
* ``llm_final_response``, the judge-only baseline: one judge call per turn;
* the gate with ``rougeF1: 1.01`` (ROUGE never decides), for reference.

Target (issue 6): the gate's calls are at most 11% of the judge-only count.

    .venv/bin/python bench/gate.py [--cases N] [--turns T] [--latency S]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from agenteval import api  # noqa: E402
from judge_server import JudgeServer, Reply  # noqa: E402

CITIES = ["Paris", "Rome", "Oslo", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
CARRIERS = ["DHL", "UPS", "FedEx", "GLS"]
GATE_VERDICT = '{"score": 1.0, "pass": true, "reasoning": "Same order, place, day and carrier."}'


def answer_pair(kind: str, rng: random.Random) -> tuple[str, str, str]:
    """(question, reference, candidate) of one turn that ``kind`` (exact|rouge|judge) decides."""
    order = rng.randint(1000, 9999)
    city, day, carrier = rng.choice(CITIES), rng.choice(DAYS), rng.choice(CARRIERS)
    question = f"When does order {order} ship?"
    reference = f"The order {order} ships from {city} on {day} by {carrier}."
    if kind == "exact":
        candidate = rng.choice(
            [reference.upper(), reference.rstrip("."), reference.replace(" ", "  ") + "!"]
        )
    elif kind == "rouge":
        candidate = rng.choice(
            [
                f"Your order {order} ships from {city} on {day} by {carrier}.",
                f"The order {order} ships from {city} on {day} by {carrier} today.",
                f"The order {order} leaves from {city} on {day} by {carrier}.",
            ]
        )
    else:
        candidate = f"{carrier} will deliver order {order}, sending it out of {city} {day}."
    return question, reference, candidate


def make_evalset(cases: int, turns: int, judge_share: float, seed: int) -> dict[str, Any]:
    """An eval set whose turn kinds are shuffled with exact counts: judge_share of all turns."""
    rng = random.Random(seed)
    total = cases * turns
    judged = round(total * judge_share)
    kinds = ["judge"] * judged
    kinds += ["exact"] * ((total - judged) // 2)
    kinds += ["rouge"] * (total - len(kinds))
    rng.shuffle(kinds)
    eval_cases = []
    for c in range(cases):
        actual, expected = [], []
        for t in range(turns):
            question, reference, candidate = answer_pair(kinds[c * turns + t], rng)
            user = {"role": "user", "content": question}
            actual.append(
                {
                    "invocationId": f"t{t}",
                    "userContent": user,
                    "finalResponse": {"role": "assistant", "content": candidate},
                }
            )
            expected.append(
                {
                    "invocationId": f"t{t}",
                    "userContent": user,
                    "finalResponse": {"role": "assistant", "content": reference},
                }
            )
        eval_cases.append(
            {
                "evalId": f"case-{c:05d}",
                "evalMode": "trace",
                "actualConversation": actual,
                "conversation": expected,
                "sessionInput": {"appName": "bench", "userId": "bench"},
            }
        )
    return {"evalSetId": "gate-bench", "evalCases": eval_cases}


def metric(name: str, base_url: str, gate: dict[str, Any] | None = None) -> dict[str, Any]:
    """One metric config whose judge is the loopback server."""
    criterion: dict[str, Any] = {
        "llmJudge": {
            "judgeModel": {
                "providerName": "openai",
                "modelName": "bench-judge",
                "baseURL": base_url,
                "apiKey": "sk-bench",
            }
        }
    }
    if gate is not None:
        criterion["gate"] = gate
    return {"metricName": name, "threshold": 1.0, "criterion": criterion}


def run_metric(
    server: JudgeServer, workdir: Path, label: str, config: dict[str, Any], concurrency: int
) -> tuple[int, float, Counter[str]]:
    """Run one metric over the eval set; return (judge calls, wall seconds, methods decided)."""
    metrics_path = workdir / f"{label}.metrics.json"
    metrics_path.write_text(json.dumps([config]))
    server.reset()
    server.when("<candidate_answer>", Reply(content=GATE_VERDICT))
    started = time.perf_counter()
    result = api.evaluate(
        str(workdir / "gate-bench.evalset.json"),
        metrics=str(metrics_path),
        cache=None,
        concurrency=concurrency,
    )
    wall = time.perf_counter() - started
    if result.judge_failures:
        raise SystemExit(f"{label}: judge failures: {result.judge_failures[:3]}")
    methods: Counter[str] = Counter()
    for evalset in result.results:
        for case in evalset.case_results():
            for overall in case.overall_eval_metric_results or ():
                methods.update((overall.model_extra or {}).get("methods", {}))
    return server.count, wall, methods


def main(argv: list[str]) -> int:
    """Build the set, run the three metrics and print the judge calls of each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--judge-share", type=float, default=0.10)
    parser.add_argument("--latency", type=float, default=0.005, help="judge seconds per call")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args(argv)

    total = args.cases * args.turns
    with tempfile.TemporaryDirectory() as tmp, JudgeServer(latency=args.latency) as server:
        workdir = Path(tmp)
        evalset = make_evalset(args.cases, args.turns, args.judge_share, args.seed)
        (workdir / "gate-bench.evalset.json").write_text(json.dumps(evalset))
        url = server.base_url
        runs = [
            ("final_response_gate", metric("final_response_gate", url)),
            ("llm_final_response", metric("llm_final_response", url)),
            ("gate, rougeF1 1.01", metric("final_response_gate", url, {"rougeF1": 1.01})),
        ]
        print(
            f"{total:,} turns ({args.cases:,} cases x {args.turns}), "
            f"{args.judge_share:.0%} need the judge; loopback judge latency "
            f"{args.latency * 1000:g} ms, concurrency {args.concurrency}"
        )
        print(f"{'metric':<22} {'judge calls':>11} {'wall s':>8}  decided by")
        calls: dict[str, int] = {}
        for index, (label, config) in enumerate(runs):
            count, wall, methods = run_metric(
                server, workdir, f"run{index}", config, args.concurrency
            )
            calls[label] = count
            decided = " · ".join(f"{methods[m]:,} {m}" for m in ("exact", "rouge", "judge"))
            print(f"{label:<22} {count:>11,} {wall:>8.2f}  {decided if methods else '-'}")
    gate, baseline = calls["final_response_gate"], calls["llm_final_response"]
    ratio = gate / baseline if baseline else float("nan")
    verdict = "meets" if ratio <= 0.11 else "MISSES"
    print(
        f"gate calls / judge-only (llm_final_response) calls = {gate:,} / {baseline:,} "
        f"= {ratio:.1%} ({verdict} the <= 11% target)"
    )
    return 0 if ratio <= 0.11 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
