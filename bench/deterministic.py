"""Benchmark: 10,000 cases end to end through the CLI (trajectory + final-response text/JSON/rouge1).

Prints cases per second and the peak memory of the agenteval process.
Target (issue 2): at least 2,000 cases per second on one core.

    python bench/deterministic.py [--cases N]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CITIES = [
    "Paris",
    "Rome",
    "Oslo",
    "Berlin",
    "Madrid",
    "Lisbon",
    "Vienna",
    "Prague",
    "Dublin",
    "Athens",
]
CONDITIONS = ["sunny", "cloudy", "rainy", "windy", "snowy"]


def make_case(index: int, rng: random.Random) -> dict[str, object]:
    """One trace-mode case with two tool calls and a JSON answer; about 1 in 10 differs."""
    city = rng.choice(CITIES)
    condition = rng.choice(CONDITIONS)
    temp = rng.randint(-5, 35)
    answer = {
        "city": city,
        "summary": f"The weather in {city} is {condition} at {temp} degrees today.",
        "temp": temp,
    }
    tools = [
        {
            "id": "c1",
            "name": "get_weather",
            "arguments": {"city": city, "unit": "celsius"},
            "result": {"city": city, "temp": temp, "condition": condition},
        },
        {
            "id": "c2",
            "name": "get_time",
            "arguments": {"city": city},
            "result": {"time": f"{rng.randint(0, 23)}:00"},
        },
    ]
    actual_answer = dict(answer)
    actual_tools = json.loads(json.dumps(tools))
    if index % 10 == 0:
        actual_tools[0]["arguments"]["unit"] = "fahrenheit"
    if index % 10 == 5:
        actual_answer["temp"] = temp + 1
    user = {"role": "user", "content": f"Weather in {city}?"}
    return {
        "evalId": f"case_{index:05d}",
        "evalMode": "trace",
        "actualConversation": [
            {
                "invocationId": "t1",
                "userContent": user,
                "finalResponse": {"role": "assistant", "content": json.dumps(actual_answer)},
                "tools": list(reversed(actual_tools)),
            }
        ],
        "conversation": [
            {
                "invocationId": "t1",
                "userContent": user,
                "finalResponse": {"role": "assistant", "content": json.dumps(answer)},
                "tools": tools,
            }
        ],
        "sessionInput": {"userId": "bench"},
    }


METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {
            "toolTrajectory": {
                "toolStrategy": {"get_time": {"name": {}, "result": {"ignore": True}}}
            }
        },
    },
    {
        "metricName": "answer",
        "evaluatorName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {
            "finalResponse": {
                "text": {"matchStrategy": "skip", "length": {"min": 10, "max": 400}},
                "json": {"matchStrategy": "exact"},
                "rouge": {"rougeType": "rouge1", "threshold": {"f1": 0.8}},
            }
        },
    },
]


def main() -> None:
    """Generate the suite, run the CLI on it, print the rate and peak memory."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        evalset = root / "bench.evalset.json"
        evalset.write_text(
            json.dumps(
                {"evalSetId": "bench", "evalCases": [make_case(i, rng) for i in range(args.cases)]}
            )
        )
        (root / "bench.metrics.json").write_text(json.dumps(METRICS))
        command = [
            sys.executable,
            "-m",
            "agenteval",
            "run",
            "--evalset",
            str(evalset),
            "--quiet",
            "--output",
            str(root / "out"),
        ]
        started = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode not in (0, 1):
        sys.exit(f"agenteval failed with exit code {proc.returncode}:\n{proc.stderr}")
    print(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "")
    rate = args.cases / wall
    print(
        f"cases: {args.cases}  wall: {wall:.2f} s  rate: {rate:,.0f} cases/s  "
        f"(target >= 2,000: {rate / 2000:.2f}x of target)  peak RSS: {peak_kib / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
