"""Per-case cost: the whole ``agenteval run`` CLI against google-adk's evaluators in-process.

Generates N trace-mode cases (default 10,000): one turn each with two tool calls and a
~30-word answer; some cases call a tool with other arguments or in the other order, and
most answers are reworded a little, so both scores vary.  The same cases are built as
google-adk 2.13.0 ``Invocation`` objects and scored by ADK's ``TrajectoryEvaluator``
(EXACT match, threshold 1.0) and ``RougeEvaluator`` (ROUGE-1 F with ADK's Unicode-aware
stemming tokenizer, threshold 0.8), constructed once and called per case in this process.
Only ADK's evaluation calls are timed: building its ``Invocation`` objects, importing
google-adk and constructing the two evaluators are not.  agenteval is timed as a user
runs it: a fresh ``python -m agenteval run --output DIR --jobs 2`` process (interpreter
start, imports, reading the eval set and metric file, scoring, writing the result file),
on two cores (``--jobs 1``: on one; ADK's loop runs on one).

The metric file says what ADK's evaluators do: ``tool_trajectory_avg_score`` compares
names and arguments (never results) in order with no extra or missing call (ADK's
EXACT, as ``agenteval import adk`` writes it), and ``response_match_score`` is ADK's
ROUGE-1 F.  The per-metric average over all cases must be equal (1e-9) on both sides.

Rounds are interleaved (ADK, then agenteval); each side's median of ``--repeat`` rounds
(at least 3) is reported with the ratio agenteval / ADK, agenteval's CPU per case
(user + system of its process, from wait4) and the load average, since the machine may be
shared.  Target (issue 23): ratio <= 0.25.

    .venv/bin/python bench/adk_side_by_side.py [--cases 10000] [--repeat 3]
    .venv/bin/python bench/adk_side_by_side.py --instructions [--adk-sample 1000]

``--instructions`` counts instead of timing, under ``valgrind --tool=cachegrind``: the
whole CLI run, against ADK's evaluation calls per case (two worker runs that build the
same inputs and score ``--adk-sample`` more cases, the difference divided by them) times
the number of cases.  The count is the same on a busy machine; the CPU time per
instruction is not the same on both sides (see below), so it is a floor, not the ratio.

Measured (2 cores shared with other jobs, so wall times swing: ADK's in-process wall
ranged 24-111 s for 9-16 s of CPU; the CPU times and instruction counts are what to
compare).  Instructions from ``valgrind --tool=cachegrind`` of the same CLI command on
this script's 10,000 cases (seed 23); ADK's evaluation calls cost 7.18 M instructions
a case (1,000 cases in-process, building and warm-up subtracted): 71.8 G.

    main fbcc342 (load 12-13): ratio 0.531, cpu ratio 0.555, agenteval cpu 753 µs/case
        (adk 1358); 23.9 G instructions (0.333 of ADK's), of which 2.82 G start-up
        (a 10-case run); 23 pydantic validations, 2 JSON parses + 1 stdlib scan and
        2 serialisations a case
    perf e898d78 (load 5-7):   ratio 0.541 and 0.339 (two runs), cpu ratio 0.480 and
        0.484, agenteval cpu 534 and 726 µs/case (adk 1113 and 1498); 20.7 G
        instructions (0.289 of ADK's), start-up 1.87 G; still 23 validations a case
        (each cheaper: no Python call per null-able field)
    main aa6d367 (load 7-11): cpu ratio 0.523 (rounds 0.44-0.58), agenteval cpu 682
        µs/case (adk 1304); 21.02 G instructions (after the packages' merges), start-up
        1.915 G (a 10-case run)
    perf2 84ac74d (load 9-10): cpu ratio 0.495 (rounds 0.363, 0.495, 0.571), agenteval
        cpu 477 µs/case (adk 964); 20.85 G instructions (0.290 of ADK's), start-up
        1.808 G; a 10-case run's CPU 0.80 -> 0.68 s (min of 5, load 8-10)
    perf3 9e41bd3, every command started with only its own module (load ~1, rounds of
        both sides interleaved, ADK's CPU swinging 8.7-16.8 s): cpu ratio 0.451 (rounds
        0.413, 0.496, 0.421), agenteval cpu 432 µs/case (adk 957), against 0.567
        (rounds 0.567, 0.282, 0.701), 534 µs/case for its base 7dc7c79 measured just
        before; 20.84 G instructions (base 21.02 G), start-up 1.586 G (base 1.865 G,
        -15 %; 172 agenteval modules instead of 183, no other command, explain or
        calibrate); a 10-case run's CPU min 0.40 s, median 0.52 (base 0.45-0.54, median
        0.64-0.68; 9 runs each)

    main 01ef313 (2026-12-02, load 2-3.5): ratio 0.491 (rounds 0.632, 0.457, 0.385), cpu
        ratio 0.513, agenteval cpu 494 µs/case (adk 963); one run alone 4.25 s wall, 4.18 s
        CPU, of which start-up 0.42 s (a 10-case run; importing pydantic, rich, typer and
        httpx alone 0.24 s)
    main d73d5d3 (2026-12-02, load ~0.9): ratio 0.498 (rounds 0.428, 0.498, 0.492), cpu
        ratio 0.490 (0.421-0.490), agenteval cpu 363 µs/case (adk 742); 18.66 G
        instructions against 20.81 G for c1858e8 measured beside it (-215 k a case,
        -10.3 %; 0.260 of ADK's 71.8 G); a 10,000-case run's CPU min 2.57 s, median 3.25,
        against 3.00 and 3.55 for c1858e8 (5 runs each, alternated).  What changed: case
        summaries built as plain data and written by orjson (272 k -> ~121 k instructions a
        case; models only when a summary is kept), each case parsed once by the up-front
        checks (the stdlib decoder's value, which finding the case's end gives anyway) and
        validated again from its text, a cheaper unknown-key walk, and the run no longer
        loading the JSON Schema module.  Tried and not kept: the case results written from
        plain data by a walker of the result models (377 k -> 304 k instructions a case, ~4 %
        of the run) -- a second writer of the result format beside pydantic's, with a
        fallback to it for what orjson cannot write; not worth two paths for one job.
    main 70eb4e5 (2026-12-02, evening, load ~1, no change on this path since d73d5d3 but the
        JSON compare's one member loop): ratio 0.418 (5 rounds 0.384-0.481), cpu ratio 0.411,
        agenteval cpu 287 µs/case (adk 699); one 10,000-case run alone: 2.64 s wall, 2.44 s
        CPU; a 10-case run 0.37-0.40 s (pydantic's plugin scan of the installed
        distributions 0.03 s of it, not ours to switch off).  py-spy of the 10,000-case run:
        imports 13.6 %, the up-front checks 12.2 %, building each case again 8.2 %, scoring
        26 % (the two evaluators 15 %), the result document 28 % (a case result's JSON 15 %:
        31 µs, of which each invocation 5 µs and a trajectory metric result 7 µs with its
        criterion), the console's 200 failed cases 6.8 %.  0.25 needs 1.7x less; plain
        result records written by orjson (below) would give ~1.3x, both cores ~1.5-1.8x of
        wall only -- and neither alone reaches it.
    main 2026-12-02, night (a slower, noisier machine than in the evening: ADK 1,108-1,578
        µs/case, the same agenteval run 3.8-6.7 s): ratio 0.381 (5 rounds 0.331-0.530; two
        more runs of 3 rounds 0.385 and 0.412), cpu ratio 0.379, agenteval cpu 464 µs/case
        (adk 1,227); ``--instructions``: 18.48 G against 18.55 G before these changes
        (7.18 M a case for ADK): 0.257.  What changed: a result file is linked into place
        instead of copied and fsynced again (atomic_write.py; it failed over to the copy on
        every Linux) and the scan looks for a backslash before two surrogate-escape
        searches (a console printing each eval set in one print was reverted: it
        shortened the window of a signal trial for ~9 ms).  The instruction ratio is
        within 3 % of 0.25; the time ratio is 1.5x worse because the CLI runs ~4.1 G
        instructions a second (start-up 3.6 G) against ADK's warm loop's ~6 G.
    main 2026-12-03 (a slow day: a 10^7-step Python loop took 1.7-2.0 s against 0.56-0.69 s
        the evening before; ADK 1,381-1,853 µs/case): ratio 0.380 (rounds 0.369-0.392), cpu
        ratio 0.382, agenteval cpu 682 µs/case (adk 1,785), against 0.387 (rounds 0.346-0.426)
        for ea7eaa1 two hours earlier; ``--instructions``: 18.59 G against ADK's 7.13 M a
        case: 0.261.  The same CLI command under cachegrind: 20.93 G at 426331f, 18.67 G
        after this change (-10.8 %).  What changed: the console's case tables are laid out
        by report/cell_table.py itself instead of a rich ``Table`` inside a ``Padding`` (the
        200 tables printed in 0.18 s instead of 0.73 s in-process).  What is left is where
        the night's entry says: a case result's pydantic serialisation measured 67-97 µs
        today (orjson writes the same data as a dict in 5.5 µs), and the gap between the
        instruction and the time ratios is the CLI's ~2.7 G instructions a second against
        ADK's warm loop's ~3.9 G on this slow day (18.6 G in 7.0 s, 71.3 G in 18.5 s).
    main 023d21b again (2026-12-03, 08:2x, loop 1.6-1.9 s, load ~1.1; nothing on this path
        changed): ratio 0.364 (rounds 0.421, 0.351, 0.436), cpu ratio 0.361, agenteval
        cpu 455 µs/case (adk 1,258).
    main c9950c2 (2026-12-03, 10:2x-10:4x, a fast, quiet machine: loop 0.27-0.38 s, load
        0.1-0.8; nothing on this path changed): ratio 0.404 (rounds 0.404, 0.416, 0.320) and
        0.401 (rounds 0.401, 0.516, 0.461), agenteval cpu 624 and 423 µs/case (adk 1,556 and
        1,063).  A faster machine does not move the ratio: both sides speed up alike.
        py-spy of one 10,000-case run (4,131 samples at 500 Hz): imports 13 %, the up-front
        checks 13 %, building each case again 7 %, scoring 16 % (trajectory 6 %, ROUGE 7 %),
        building the result objects 4 %, the case result's pydantic serialisation 15 %, the
        case summaries and tallies 8 %, the rest 23 % (the runner's loop and each case's
        own steps, the console's 200 failed cases, hashing the inputs, spreading thin).
        Even if the result objects, their serialisation, indenting and the summaries cost
        nothing (27 % of the run), the ratio would be ~0.29: 0.25 needs every stage cut.
    main 85e14be (2026-12-03, 12:19, load 1.2, a noisy machine; this path unchanged but for
        a status read as a literal and the trace usage rules): rounds 0.383, 0.617, 0.389,
        median ratio 0.494 (ADK 10.49 s, agenteval 5.18 s; round 2 an outlier).  With and
        without ``--output`` the same run takes 5.2-6.3 and 3.7-4.3 s of CPU: the result
        file is a third of it, and a case result's pydantic serialisation 48-75 µs of that
        (orjson writes the same data from a dict in ~5 µs; the ``go_number`` callback is
        5-10 % of the serialisation).
    main e462d39 (2026-12-04, 16:2x, a fast machine after the suite: load 2.2-2.8 falling):
        ratio 0.427 (rounds 0.411, 0.494, 0.364), cpu ratio 0.423, agenteval cpu 294 µs/case
        (adk 696).  Against d93f470 (the start of the day), alternated 5 times each: 2.60 s
        against 2.62 s of CPU a run (nothing on this path got slower).  Measured for the
        route to 0.25: the same 10,000 cases as two 5,000-case eval sets run at once by two
        processes, each doing everything (start-up, checks, scoring, writing), finish in
        1.52-1.60 s against 2.56-2.57 s for one process with all of them (3 rounds each):
        1.69x, which at 0.427 is ~0.25.  So a run that splits a deterministic eval set
        across both cores after start-up (each worker checks, builds, scores and writes its
        share; the parent splices the documents and merges the tallies in file order) is
        the one change that reaches the target; splitting only the scoring after the checks
        does not (start-up and the checks, ~30 % of the run, would stay on one core: ~1.3x).

    main 2026-12-04, evening (--jobs 2, the default of this bench since; a quiet machine,
        load 0.6-1.0): ratio 0.240 (5 rounds 0.238-0.250), cpu ratio 0.403, agenteval cpu
        249 µs/case (adk 617); the same run with --jobs 1: 0.408 (2.42 s wall, 240 µs/case
        of CPU).  What changed: ``--jobs N`` shares three steps out to processes forked from
        the run (results/share_workers.py): workers check the later half of the file's
        cases while the run checks the first (0.40 -> 0.20 s), a worker scores the later
        share of the cases into its own document spools and recording tallies, which the
        run absorbs in file order (scoring 1.63 -> 0.85 s; the floats are added again one by
        one, so the numbers and bytes are a single pass's), and a worker writes the result
        file while the run prints its 200 failed cases (0.045 s hidden).  Also: the reason
        lines laid out without a rich table (render 0.10 -> 0.044 s) and the case summaries
        written from the mapped spool in batches (18 -> 11 ms).  Where the 1.48 s go now
        (in-process marks): start-up 0.29 s, the checks 0.20, this process's share of the
        scoring 0.82-0.85, waiting for and absorbing the worker's share 0.02-0.04, finishing
        the document 0.02, printing 0.045 (the file written meanwhile), exit ~0.02.  Careful
        when measuring by hand: a directory that keeps every run's 64 MB result file (3 GB
        after fifty runs) made each write 0.19 s instead of 0.045 (this bench empties it).
        Later the same evening (printing 0.034 s: --quiet's cases as one group) the same
        code measured 0.256 (rounds 0.253-0.268) and 0.262 (rounds 0.221-0.386, a machine
        whose speed swung: agenteval's CPU per run 2.57-3.45 s for the same work), and an
        A/B of the code of the 0.240 run against the later one, alternated 5 times, gave
        1.51-1.65 s against 1.48-1.62 s: the ratio sits at the target, within the machine's
        noise (+-5 %), not below it with a margin.  What would give one: forking the worker
        before the imports (start-up, 0.29 s, is serial: the worker waits idle meanwhile),
        so that it reads and checks its share of the file itself.
    main 77d0beb (2026-12-04, night, quiet: load 0.1-1.0, a 10^7-step loop 0.68 s): ratio
        0.269 (rounds 0.252-0.289) and 0.270 (rounds 0.251-0.285), agenteval cpu 269-270
        µs/case (adk 599-609): the evening's 0.240 was the low end of this code's spread.
        In-process marks of five runs: start-up 0.32-0.47 s, checks 0.20-0.33, this
        process's share 0.84-1.14, waiting 0.006-0.09, the rest 0.11-0.13; 2.5-2.8 s of CPU
        on two cores, so after the serial start-up both cores are busy: the margin has to
        come from CPU a case, not from more overlap.  Forking before the imports would
        overlap nothing (both processes need them) but the CLI's own modules (~0.06 s).
        Measured on one case of this bench: pydantic's ``to_json`` of the case result 30.8
        µs (10 µs of it the indent) against orjson's 2.1 µs for the same data as a dict;
        validating that result 23 µs; the case validated twice (checks 10.9 µs from the
        parsed dict, scoring 15.5 from its text).  Case results built and written as plain
        data would save ~40 µs a case (~0.2 s of wall on two cores: ratio ~0.235); every
        other stage left (imports of judge code a deterministic run never calls 0.02 s,
        the spool's batch joins: no measurable change) is under 2 % each.  At de10487 (the
        night's fixes, none on the scoring path; load 1.3-1.6 after the suite): 0.266
        (rounds 0.257-0.307), agenteval cpu 268 µs/case (adk 623).
    main e2d0d99 (2026-12-05, just after midnight; load 1.2-1.9 after the suites, a
        10^7-step loop 0.79 s): ratio 0.253 (rounds 0.245-0.274) and 0.256 (rounds
        0.248-0.270), agenteval cpu 250-253 µs/case (adk 595-601): closer, not met (at
        e99e599, the same scoring path: 0.251 and 0.258, rounds 0.250-0.278).  On
        this path: the cases' dumps share one memo, so a metric's criterion is serialised
        once per document (-25 k instructions a case), and each case's text is checked for
        a key given twice (+41 k, in the checks, which both cores share).  cachegrind, a
        2,000-case --jobs 1 run minus a 10-case one, per case: 1.763 M -> 1.800 M
        instructions (start-up 1.589 -> 1.599 G); the lower CPU a case than the night's
        (268-270 µs) is the machine's speed that hour, not the code.  Measured and not
        kept: the cyclic collector off for the whole run (2.36-2.54 s of CPU against
        2.42-2.53: nothing), builders without validation (0.76 µs against 1.1 a result).
    main cc6174d (2026-12-05, 01:53-02:12, load 0.7-1.4, no other job): ratio 0.250
        (rounds 0.234-0.254), 0.241 (0.240-0.248), 0.240 (0.236-0.249), 0.245 and 0.236,
        agenteval cpu 242-249 µs/case (adk 592-607); its base 0ef3831 measured 0.244,
        0.248 and 0.249 just before (246-250 µs/case).  What changed on the path: the
        judge evaluators are imported only when a registry needs one (registry.defer;
        start-up 1.601 -> 1.533 G instructions, ~20 ms), a case is checked by a closed
        twin of EvalCase's validator and walked for unknown keys only when the twin
        refuses it (-59 k instructions a case: 1.800 -> 1.741 M; 1.735 M at cc6174d), a
        share's case summaries are read from its own spool (15 -> 1 ms of the serial
        tail) and passed cases need no run record in the console tally.  Where a further
        margin could come from, measured: pydantic's to_json of a case result is 31-36 µs
        (an Invocation alone 7 µs against orjson's 1.1 for its dict), ~70 of agenteval's
        dataclasses cost ~35 ms of start-up to create (methods compiled from source), and
        the writer's fsync of the 70 MB file is ~30 ms (overlapping the console print).
        At 822571f (the session's last fixes, none on the scoring path; 02:33-02:36, load
        1.3-1.5): 0.237 and 0.236, agenteval cpu 240-244 µs/case (adk 600-612).

What stood between this and 0.25 before --jobs, measured in-process on one case of this bench (min
of 3 x 5,000 calls): pydantic's serializer writes a case result in 40-44 µs where orjson
writes the same data as a dict in 3.2 µs, and a plain pydantic model tree of the same
shape without any of our serializers still takes 37 µs (our integral-score callbacks
cost ~4 µs of it); validating the result (the builders' 23 validations) ~50 µs, the case
summary 21 µs + 13 µs to write it.  Result records built and written as plain data
(validated models only where an API caller asks for them) would save ~125 µs a case:
~0.33, not 0.25; the rest would have to come from the input side (the up-front checks
and the re-read, ~80 µs) and start-up.  Using both cores (the 2026-12-04 entry: each
worker checking, scoring and writing its share) reaches it in wall time, which is what the
acceptance line measures, while the CPU a case costs stays as it is; not built yet.

Why the CPU ratio (~0.5) is so much worse than the instruction ratio (0.29): start-up.
A 10-case run (interpreter, 553 modules, ~70 pydantic models' schemas, ~175 dataclasses
whose methods are compiled from source, two entry-point scans) is 1.6 G instructions
(1.8-1.9 G before run started alone), 8 % of the 10,000-case run's, but takes 0.4-1.4 s
of CPU, 10-25 % of it: that cold,
run-once code executes 1.4-2.4 G instructions a second, the per-case loop ~4.8 G and
ADK's warm in-process loop (its imports and set-up untimed) 5.5-7.5 G.  Not the cause:
system time is ~0.2 s (4 %; 20,500 page faults, reading 13 MB and writing 70 MB), there
are 3 fsyncs a run, no thread or subprocess on the path, and the cyclic collector is
1.1 % of the instructions.  Where the 10,000-case run's instructions go: pydantic-core
(validation, JSON parse and serialisation) 4.84 G, the interpreter's eval loop 2.7 G,
parsing and compiling generated code 0.29 G (start-up), the stdlib JSON scanner that
finds each case's span 0.20 G.  Per case, in-process (stages of a 2,000-case run, load
10): the up-front checks 64 µs (scan 28, validation 21, unknown-key walk 15, non-finite
check 7), building the case again 30, scoring 109 (the two evaluators 67), the result
document 102 (the case's JSON 52, its summary's 16, the tally 20), the console tallies
10; the failed cases printed with rich (at most 200) ~0.25 s whatever the size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.evaluation.eval_case import IntermediateData, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
from google.genai import types

TOLERANCE = 1e-9
TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE = "response_match_score"
THRESHOLDS = {TRAJECTORY: 1.0, RESPONSE: 0.8}

CITIES = ["Paris", "Rome", "Oslo", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague"]
CONDITIONS = ["sunny", "cloudy", "rainy", "windy", "snowy"]
# fmt: off
FILLER = [
    "the", "forecast", "for", "tomorrow", "shows", "mild", "temperatures", "with", "light",
    "winds", "from", "the", "west", "and", "a", "small", "chance", "of", "showers", "later",
    "in", "the", "evening", "so", "bring", "a", "light", "jacket", "when", "walking",
    "around", "the", "old", "town", "centre", "today",
]
# fmt: on
SWAPS = ["expected", "predicted", "calm", "strong", "warm", "cold", "umbrella", "coat"]

# What ADK's TrajectoryEvaluator (EXACT) and RougeEvaluator compute, as agenteval metrics.
METRICS: list[dict[str, Any]] = [
    {
        "metricName": TRAJECTORY,
        "threshold": THRESHOLDS[TRAJECTORY],
        "criterion": {
            "toolTrajectory": {
                "orderSensitive": True,
                "subsetMatching": False,
                "defaultStrategy": {
                    "name": {"matchStrategy": "exact"},
                    "arguments": {"numberTolerance": 0},
                },
            }
        },
    },
    {"metricName": RESPONSE, "threshold": THRESHOLDS[RESPONSE]},
]


@dataclass(frozen=True, slots=True)
class Case:
    """One generated case: the user's question, expected and actual answers and tool calls."""

    eval_id: str
    question: str
    expected_answer: str
    actual_answer: str
    expected_tools: list[dict[str, Any]]
    actual_tools: list[dict[str, Any]]


def make_case(index: int, rng: random.Random) -> Case:
    """A case with two tool calls and a ~30-word answer; about 1 in 5 trajectories differ."""
    city = rng.choice(CITIES)
    condition = rng.choice(CONDITIONS)
    temp = rng.randint(-5, 35)
    words = [f"In {city} it is {condition} at {temp} degrees;", *FILLER[: rng.randint(18, 24)]]
    answer = " ".join(words)
    actual_words = answer.split()
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5, 8])):
        actual_words[rng.randrange(len(actual_words))] = rng.choice(SWAPS)
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
    actual_tools = json.loads(json.dumps(tools))
    if index % 10 == 0:
        actual_tools[0]["arguments"]["unit"] = "fahrenheit"
    elif index % 10 == 5:
        actual_tools.reverse()
    elif index % 10 == 7:
        # Results differ; neither side compares them.
        actual_tools[1]["result"] = {"time": "later"}
    return Case(
        eval_id=f"case_{index:05d}",
        question=f"What is the weather in {city} today?",
        expected_answer=answer,
        actual_answer=" ".join(actual_words),
        expected_tools=tools,
        actual_tools=actual_tools,
    )


def agenteval_case(case: Case) -> dict[str, Any]:
    """The case as a trpc-agent-go trace-mode eval case."""

    def turn(answer: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "invocationId": "t1",
            "userContent": {"role": "user", "content": case.question},
            "finalResponse": {"role": "assistant", "content": answer},
            "tools": tools,
        }

    return {
        "evalId": case.eval_id,
        "evalMode": "trace",
        "conversation": [turn(case.expected_answer, case.expected_tools)],
        "actualConversation": [turn(case.actual_answer, case.actual_tools)],
        "sessionInput": {"userId": "bench"},
    }


def adk_invocation(case: Case, answer: str, tools: list[dict[str, Any]]) -> Invocation:
    """The same turn as a google-adk ``Invocation`` (tool uses with their responses)."""
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=case.question)]),
        final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
        intermediate_data=IntermediateData(
            tool_uses=[
                types.FunctionCall(id=t["id"], name=t["name"], args=t["arguments"]) for t in tools
            ],
            tool_responses=[
                types.FunctionResponse(id=t["id"], name=t["name"], response=t["result"])
                for t in tools
            ],
        ),
    )


AdkInputs = list[tuple[list[Invocation], list[Invocation]]]


def adk_round(inputs: AdkInputs) -> tuple[float, float, dict[str, float]]:
    """Score every case with ADK's two evaluators; the evaluation's wall and CPU seconds, means."""
    evaluators = {
        TRAJECTORY: TrajectoryEvaluator(
            eval_metric=EvalMetric(metric_name=TRAJECTORY, threshold=THRESHOLDS[TRAJECTORY])
        ),
        RESPONSE: RougeEvaluator(EvalMetric(metric_name=RESPONSE, threshold=THRESHOLDS[RESPONSE])),
    }
    totals = dict.fromkeys(evaluators, 0.0)
    started, cpu = time.perf_counter(), time.process_time()
    for actual, expected in inputs:
        for name, evaluator in evaluators.items():
            result = evaluator.evaluate_invocations(actual, expected)
            totals[name] += result.overall_score
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return seconds, cpu, {name: total / len(inputs) for name, total in totals.items()}


@dataclass(frozen=True, slots=True)
class CliRun:
    """One ``agenteval run`` process: wall and CPU seconds and the result file's mean scores."""

    wall: float
    cpu: float
    means: dict[str, float]


def cli_round(
    command: list[str], out: Path, cases: int, env: dict[str, str] | None = None
) -> CliRun:
    """Run the CLI once (its own rusage from wait4) and average its result file's scores."""
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        errors = stderr.read().decode("utf-8", "replace")
    if code not in (0, 1):
        sys.exit(f"agenteval failed with exit code {code}:\n{errors}")
    (result_file,) = out.glob("*.evalset_result.json")
    document = json.loads(result_file.read_text(encoding="utf-8"))
    results = document["evalCaseResults"]
    if len(results) != cases:
        sys.exit(f"{result_file}: {len(results)} case results, expected {cases}")
    totals: dict[str, float] = {}
    for case in results:
        for metric in case["overallEvalMetricResults"]:
            totals[metric["metricName"]] = totals.get(metric["metricName"], 0.0) + metric["score"]
    return CliRun(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        means={name: total / cases for name, total in totals.items()},
    )


_VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
# ADK's lazy imports and first calls, scored before what is counted.
_WARM_UP = 50


def instructions(command: list[str], env: dict[str, str] | None = None) -> int:
    """Instructions ``command`` executes, as cachegrind counts them (same count on a busy
    machine: the number to compare when wall times swing)."""
    proc = subprocess.run([*_VALGRIND, *command], capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        sys.exit(f"{command[0]} failed under valgrind ({proc.returncode}):\n{proc.stderr}")
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if found is None:
        sys.exit(f"no instruction count in valgrind's output:\n{proc.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def adk_worker(cases: int, scored: int, seed: int) -> None:
    """Build ``cases`` ADK inputs and score the first ``scored`` (for --instructions)."""
    rng = random.Random(seed)
    made = [make_case(i, rng) for i in range(cases)]
    inputs: AdkInputs = [
        (
            [adk_invocation(c, c.actual_answer, c.actual_tools)],
            [adk_invocation(c, c.expected_answer, c.expected_tools)],
        )
        for c in made
    ]
    adk_round(inputs[:scored])


def count_instructions(args: argparse.Namespace, command: list[str], env: dict[str, str]) -> None:
    """--instructions: agenteval's whole CLI against ADK's evaluation calls, in instructions.

    ADK's per-case count is the difference of two runs that build the same inputs and
    differ only in the cases scored (after a warm-up both score), so interpreter start,
    imports, building and warm-up cancel out.
    """
    ours = instructions(command, env)
    sample = min(args.adk_sample, args.cases)
    worker = [sys.executable, __file__, "--adk-worker", "--seed", str(args.seed)]
    worker += ["--cases", str(_WARM_UP + sample)]
    base = instructions([*worker, "--scored", str(_WARM_UP)])
    full = instructions([*worker, "--scored", str(_WARM_UP + sample)])
    adk_case = (full - base) / sample
    print(
        f"cases: {args.cases}  agenteval CLI: {ours / 1e9:.2f} G instructions "
        f"({ours / args.cases / 1e3:.0f} k/case)  adk: {adk_case / 1e3:.0f} k/case "
        f"({sample} cases counted)  ratio: {ours / (adk_case * args.cases):.3f} (target <= 0.25)"
    )


def load() -> str:
    """The 1-minute load average, as a shared machine's timings need it beside them."""
    return f"{os.getloadavg()[0]:.2f}"


def main() -> None:
    """Generate the cases, time both sides interleaved, print medians, ratio and means."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds (at least 3); medians")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under valgrind instead of timing (a busy machine's number)",
    )
    parser.add_argument("--adk-sample", type=int, default=1000, help="ADK cases counted")
    parser.add_argument(
        "--jobs", type=int, default=2, help="agenteval's --jobs (the cores it may use; 1: one)"
    )
    parser.add_argument("--adk-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scored", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.adk_worker:
        adk_worker(args.cases, args.scored, args.seed)
        return
    if args.instructions and shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    rng = random.Random(args.seed)
    cases = [make_case(i, rng) for i in range(args.cases)]
    adk_inputs: AdkInputs = (
        []
        if args.instructions
        else [
            (
                [adk_invocation(c, c.actual_answer, c.actual_tools)],
                [adk_invocation(c, c.expected_answer, c.expected_tools)],
            )
            for c in cases
        ]
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        evalset = root / "bench.evalset.json"
        evalset.write_text(
            json.dumps({"evalSetId": "bench", "evalCases": [agenteval_case(c) for c in cases]}),
            encoding="utf-8",
        )
        (root / "bench.metrics.json").write_text(json.dumps(METRICS), encoding="utf-8")
        out = root / "out"
        command = [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset)]
        command += ["--quiet", "--no-progress", "--no-cache", "--output", str(out)]
        command += ["--jobs", str(args.jobs)]
        if args.instructions:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            cli_round(command, out, args.cases, env)  # bytecode caches written first
            count_instructions(args, command, env)
            return
        # Untimed warm-up of both sides: ADK's lazy imports done, and agenteval's bytecode
        # caches written, so the timed runs import compiled modules as an installed package
        # does (PYTHONDONTWRITEBYTECODE, set in some shells, would make every run compile).
        adk_round(adk_inputs[:50])
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cli_round(command, out, args.cases, env)
        adk_times: list[float] = []
        adk_cpus: list[float] = []
        cli_runs: list[CliRun] = []
        adk_means: dict[str, float] = {}
        for index in range(max(args.repeat, 3)):
            seconds, adk_cpu, adk_means = adk_round(adk_inputs)
            adk_times.append(seconds)
            adk_cpus.append(adk_cpu)
            cli_runs.append(cli_round(command, out, args.cases))
            run = cli_runs[-1]
            print(
                f"round {index + 1}: adk {seconds:.2f} s (cpu {adk_cpu:.2f} s)  "
                f"agenteval {run.wall:.2f} s (cpu {run.cpu:.2f} s)  "
                f"ratio {run.wall / seconds:.3f} (cpu {run.cpu / adk_cpu:.3f})  load {load()}",
                flush=True,
            )
    adk = statistics.median(adk_times)
    wall = statistics.median(r.wall for r in cli_runs)
    cpu = statistics.median(r.cpu for r in cli_runs)
    adk_cpu = statistics.median(adk_cpus)
    ours = cli_runs[-1].means
    for name in (TRAJECTORY, RESPONSE):
        print(f"mean {name:<26} adk {adk_means[name]:.12f}  agenteval {ours[name]:.12f}")
        assert abs(adk_means[name] - ours[name]) <= TOLERANCE, (name, adk_means, ours)
    print(
        f"cases: {args.cases}  adk in-process: {adk:.2f} s ({adk / args.cases * 1e6:.0f} µs/case)  "
        f"agenteval CLI (--jobs {args.jobs}): {wall:.2f} s  ratio: {wall / adk:.3f} (target <= 0.25)  "
        f"cpu ratio: {cpu / adk_cpu:.3f}  agenteval cpu: {cpu / args.cases * 1e6:.0f} µs/case  "
        f"(adk {adk_cpu / args.cases * 1e6:.0f})  load: {load()}"
    )


if __name__ == "__main__":
    main()
