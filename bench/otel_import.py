"""Benchmark: importing 10,000 OpenTelemetry spans (issue 17 target: at most 2 s).

Builds the spans with the OpenTelemetry SDK (sessions of GenAI ``invoke_agent`` turns with
``chat`` and ``execute_tool`` spans), exports them as OTLP JSON (one document per trace line,
hex ids, as a collector writes) and as OTLP protobuf, then times for each file, best of
``--repeat`` rounds:

* ``import``: reading the file, mapping spans to sessions and writing the eval set, in process;
* ``cli``: ``agenteval import otel FILE -o DIR`` as a fresh process (interpreter start included).

Each line prints CPU seconds (what the import costs, whatever else the shared machine runs)
and wall seconds, each with its ratio to the 2 s budget.

``--flood N`` measures the hostile case of issue 22 instead: N spans that no turn holds,
``empty`` (``{}``: 3 bytes each, a 6 MB file holds 2,000,000) and ``orphan`` (ids and a
name, outside every agent turn), each imported by ``agenteval import otel`` in a child
process: its CPU seconds, peak RSS (``os.wait4``), warning lines printed and CPU per span
(linear when it stays flat as N grows).

    python bench/otel_import.py [--spans N] [--repeat R]
    python bench/otel_import.py --flood 300000 [--flood 2000000] [--timeout S]
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
from agenteval.inputs.otlp_file import read_spans
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
    mapping = map_spans(read_spans(path).spans)
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


def flood_file(directory: Path, kind: str, spans: int) -> Path:
    """An OTLP JSON file of ``spans`` spans outside every turn: ``empty`` or ``orphan``."""
    path = directory / f"{kind}{spans}.otlp.json"
    with path.open("w", encoding="utf-8") as out:
        out.write('{"resourceSpans":[{"scopeSpans":[{"spans":[')
        for index in range(spans):
            if index:
                out.write(",")
            if kind == "empty":
                out.write("{}")
            else:
                out.write(
                    f'{{"traceId":"{index // 100:032x}","spanId":"{index + 1:016x}",'
                    f'"name":"GET /health","startTimeUnixNano":"{index}"}}'
                )
        out.write("]}]}]}\n")
    return path


def flood_once(path: Path, out: Path, timeout: float) -> str:
    """One ``import otel`` of a flood file in a child: CPU, peak RSS, warning lines."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "agenteval", "import", "otel", str(path), "-o", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                cpu = usage.ru_utime + usage.ru_stime
                return f"killed after {timeout:.0f} s wall · cpu {cpu:.1f} s · peak {usage.ru_maxrss / 1024:,.0f} MiB"
            time.sleep(0.05)
        wall = time.perf_counter() - started
        err.seek(0)
        lines = sum(1 for line in err if line.startswith(b"warning"))
    cpu = usage.ru_utime + usage.ru_stime
    spans = int("".join(c for c in path.name if c.isdigit()))
    return (
        f"exit {os.waitstatus_to_exitcode(status)} · cpu {cpu:.2f} s · wall {wall:.1f} s · "
        f"peak {usage.ru_maxrss / 1024:,.0f} MiB · {lines:,} warning lines · "
        f"{cpu / spans * 1e6:.1f} us cpu per span"
    )


def flood(sizes: list[int], timeout: float) -> None:
    """Import flood files of each size and kind; one line each."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for size in sizes:
            for kind in ("empty", "orphan"):
                path = flood_file(directory, kind, size)
                mb = path.stat().st_size / 1e6
                result = flood_once(path, directory / "out", timeout)
                print(f"{kind:6} {size:>9,} spans ({mb:5.1f} MB): {result}")
                path.unlink()
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _fmt(cpu: float, wall: float) -> str:
    return (
        f"cpu {cpu:.3f} s ({cpu / BUDGET:.2f}× budget) · wall {wall:.3f} s ({wall / BUDGET:.2f}×)"
    )


def main() -> None:
    """Build, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--flood", type=int, action="append", help="spans outside any turn")
    parser.add_argument("--timeout", type=float, default=600.0, help="per flood import")
    args = parser.parse_args()
    if args.flood:
        flood(args.flood, args.timeout)
        return
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
