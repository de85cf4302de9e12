"""Benchmark: importing 10,000 OpenTelemetry spans (issue 17 target: at most 2 s).

Builds the spans with the OpenTelemetry SDK (sessions of GenAI ``invoke_agent`` turns with
``chat`` and ``execute_tool`` spans), exports them as OTLP JSON (one document per trace line,
hex ids, as a collector writes) and as OTLP protobuf, then times for each file, best of
``--repeat`` rounds:

* ``import``: reading the file, mapping spans to sessions and writing the eval set, in process;
* ``cli``: ``agenteval import otel FILE -o DIR`` as a fresh process (interpreter start included).

Each line prints CPU seconds (what the import costs, whatever else the shared machine runs)
and wall seconds, each with its ratio to the 2 s budget.

    python bench/otel_import.py [--spans N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "importers"))

from otel_spans import Recorder, record_semconv

from agenteval.importers.otel import map_spans
from agenteval.importers.otel_traces import evalset_from_spans
from agenteval.importers.otlp_file import read_spans
from agenteval.schema.base import dump_json_bytes
from agenteval.schema.evalset import Invocation, Message, Tool

BUDGET = 2.0
SPANS_PER_TURN = 5  # invoke_agent, two chat calls, two tool calls
TURNS_PER_SESSION = 4


def turn(index: int) -> Invocation:
    """One turn with two tool calls."""
    city = ["Paris", "Oslo", "Rome", "Lisbon"][index % 4]
    return Invocation(
        user_content=Message(
            role="user", content=f"Weather and hotels in {city}, request {index}?"
        ),
        final_response=Message(role="assistant", content=f"{city}: mild, 3 hotels under 120 EUR."),
        tools=[
            Tool(
                id=f"c{index}a",
                name="get_forecast",
                arguments={"city": city, "days": 2},
                result={"high": 17},
            ),
            Tool(
                id=f"c{index}b",
                name="find_hotels",
                arguments={"city": city, "max": 120},
                result={"count": 3},
            ),
        ],
    )


def build(spans: int, directory: Path) -> tuple[Path, Path, int]:
    """The OTLP JSON and protobuf files of about ``spans`` spans, and the exact span count."""
    recorder = Recorder()
    turns = max(1, spans // SPANS_PER_TURN)
    for start in range(0, turns, TURNS_PER_SESSION):
        count = min(TURNS_PER_SESSION, turns - start)
        record_semconv(
            recorder.tracer,
            f"session-{start // TURNS_PER_SESSION}",
            [turn(start + i) for i in range(count)],
        )
    total = len(recorder.spans())
    return (
        recorder.write_json(directory / "spans.otlp.jsonl"),
        recorder.write_protobuf(directory / "spans.otlp.pb"),
        total,
    )


def import_once(path: Path, out: Path) -> tuple[float, float, int]:
    """CPU and wall seconds to read, map and write one file in process; and the number of turns."""
    cpu, wall = time.process_time(), time.perf_counter()
    mapping = map_spans(read_spans(path))
    evalset = evalset_from_spans("bench", mapping)
    out.write_bytes(dump_json_bytes(evalset))
    return (
        time.process_time() - cpu,
        time.perf_counter() - wall,
        sum(len(s.turns) for s in mapping.sessions.values()),
    )


def cli_once(path: Path, out: Path) -> tuple[float, float]:
    """CPU and wall seconds of ``agenteval import otel`` as a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agenteval", "import", "otel", str(path), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _fmt(cpu: float, wall: float) -> str:
    return (
        f"cpu {cpu:.3f} s ({cpu / BUDGET:.2f}× budget) · wall {wall:.3f} s ({wall / BUDGET:.2f}×)"
    )


def main() -> None:
    """Build, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        json_file, protobuf_file, total = build(args.spans, directory)
        print(
            f"{total:,} spans · JSON {json_file.stat().st_size / 1e6:.1f} MB · protobuf {protobuf_file.stat().st_size / 1e6:.1f} MB"
        )
        for label, path in (("OTLP JSON", json_file), ("OTLP protobuf", protobuf_file)):
            runs = [import_once(path, directory / "out.evalset.json") for _ in range(args.repeat)]
            cpu, wall, turns = min(runs)
            print(
                f"{label:14} import  {_fmt(cpu, wall)} · {turns:,} turns · {total / cpu:,.0f} spans per CPU second"
            )
            cli_cpu, cli_wall = min(cli_once(path, directory / "cli") for _ in range(args.repeat))
            print(f"{label:14} cli     {_fmt(cli_cpu, cli_wall)}")
        print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
