"""Benchmark: memory and time of the console, JUnit, Markdown and GitHub reports at 100,000 cases.

Scores 100 cases of ``bench/deterministic.py`` in-process (one turn, two tool
calls, a trajectory and a final-response metric; 1 in 10 fails) and uses their
case results as templates: each measured child makes N case results from them
(``EvalCaseResult.model_validate_json``, fresh objects, as the runner does) and
renders every report: the console (``--max-shown`` 200, to /dev/null), JUnit
and Markdown files, the GitHub step summary and the annotations.  Children:

* ``tally``: each case goes into a :class:`SetTally` as it is made and is
  dropped; the reports read the :class:`SetReport` (the streamed run's path);
* ``whole``: every case is kept in one ``EvalSetResult`` and the reports are
  made by the ``Sequence[EvalSetResult]`` entry points (the path before
  streaming; with ``--legacy SRC`` that child imports agenteval from SRC, e.g.
  ``git archive b288887 src | tar -x -C /tmp/legacy`` for the code before
  the tally);
* ``make``: the cases are only made and dropped (the floor both share).

Each child's peak RSS comes from ``os.wait4``; report time is the time in the
tally and the reporters, without making the cases.

    python bench/report_memory.py [--cases 100000] [--legacy /tmp/legacy/src]

Measured on the shared 2-core box (load average ~4 from other work, so times are
rough), stream-report at 01bd155, 20 % of the cases failing; ``--legacy`` = main at
b288887, the code before the tally (ElementTree JUnit, reports walking whole results):

    python bench/report_memory.py --cases 100000 --legacy /tmp/legacy/src
    make   peak RSS      70 MB  (making the cases: 19.7 s)
    tally  peak RSS     105 MB  reports    8.0 s     80 us/case  (junit.xml 15 MB)
    whole  peak RSS   3,579 MB  reports   14.2 s    142 us/case  (junit.xml 15 MB)
    legacy peak RSS   3,640 MB  reports   48.1 s    481 us/case  (junit.xml 15 MB)
    every report byte-identical across tally, whole, legacy: True
    tally / whole: 0.03x peak RSS (35 MB above the floor against 3,509 MB), 0.56x report time
    tally / legacy: 0.03x peak RSS (35 MB above the floor against 3,570 MB), 0.17x report time

    python bench/report_memory.py --cases 10000
    tally  peak RSS      70 MB  reports    1.4 s    142 us/case  (junit.xml 2 MB)
    whole  peak RSS     393 MB  reports    2.6 s    258 us/case  (junit.xml 2 MB)

The tally path's report time includes every ``SetTally.add``; its per-case time
falls from 10k to 100k because the console's 200 detailed cases are a fixed cost.
The tally holds ~80 bytes per passing case, ~0.8 KB per failing one and ~290 bytes
per case result of a three-run set until ``finish`` (tests/report/test_set_tally.py
measures each with tracemalloc), against ~35 KB per whole case result here.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deterministic import METRICS, make_case

TEMPLATE_CASES = 100
ID_MARK = "@@EVAL_ID@@"


def write_templates(root: Path) -> Path:
    """The templates file, written by a child process (returns its path).

    A child's peak RSS as ``wait4`` reports it starts from its parent's at the fork (Linux
    keeps the high-water mark across ``exec``): scoring the templates here, agenteval
    imported, made this process ~51 MB, and every child read at least that much (at 2,000
    cases ``make`` and ``tally`` both 51 MB, "0 MB above the floor").
    """
    subprocess.run([sys.executable, __file__, "--write-templates", str(root)], check=True)
    return root / "templates.json"


def _write_templates_here(root: Path) -> None:
    """Score TEMPLATE_CASES cases in-process; write their case results with a marked evalId."""
    from agenteval import api
    from agenteval.schema.gojson import model_to_go_json_bytes

    rng = random.Random(7)
    evalset = root / "tpl.evalset.json"
    cases = [make_case(index, rng) for index in range(TEMPLATE_CASES)]
    evalset.write_text(json.dumps({"evalSetId": "reports", "evalCases": cases}))
    (root / "tpl.metrics.json").write_text(json.dumps(METRICS))
    result = api.evaluate(evalset, cache=None)
    document = json.loads(model_to_go_json_bytes(result.results[0]))
    templates = []
    for case in document["evalCaseResults"]:
        case["evalId"] = ID_MARK
        templates.append(json.dumps(case))
    (root / "templates.json").write_text(json.dumps(templates))


def child(kind: str, cases: int, templates_path: Path, out: Path) -> None:
    """Make ``cases`` case results and render every report along ``kind``'s path; print timings."""
    from rich.console import Console

    from agenteval.schema.result import EvalCaseResult, EvalSetResult

    templates = json.loads(templates_path.read_text())
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(out / "step.md")}
    screen = io.StringIO()  # the console prints 200 cases in detail: a few hundred KB
    console = Console(file=screen, width=120, force_terminal=False)
    made = reporting = 0.0
    annotations: list[str] = []

    def make(index: int) -> EvalCaseResult:
        text = templates[index % len(templates)].replace(ID_MARK, f"case_{index:06d}")
        return EvalCaseResult.model_validate_json(text)

    if kind == "tally":
        from agenteval.report.console import render_reports
        from agenteval.report.github import write_ci_outputs
        from agenteval.report.junit import write_junit_reports
        from agenteval.report.markdown import write_markdown_reports
        from agenteval.report.set_tally import ConsoleView, SetTally

        tally = SetTally("reports", 1, view=ConsoleView(max_shown=200))
        for index in range(cases):
            started = time.perf_counter()
            case = make(index)
            added = time.perf_counter()
            tally.add(case)
            made += added - started
            reporting += time.perf_counter() - added
        del case
        started = time.perf_counter()
        reports = [tally.finish(EvalSetResult(eval_set_id="reports"))]
        render_reports(console, reports, duration_seconds=1.0)
        write_junit_reports(out / "junit.xml", reports, elapsed=1.0)
        write_markdown_reports(out / "report.md", reports, elapsed=1.0)
        sources = ["x.evalset.json"]
        write_ci_outputs(reports, environ, sources=sources, elapsed=1.0, emit=annotations.append)
        reporting += time.perf_counter() - started
    elif kind == "whole":
        from agenteval.report import github
        from agenteval.report.console import ConsoleView, render_results
        from agenteval.report.junit import write_junit
        from agenteval.report.markdown import append_step_summary, write_markdown

        started = time.perf_counter()
        whole = [make(index) for index in range(cases)]
        result = EvalSetResult(eval_set_id="reports", eval_case_results=whole)
        made = time.perf_counter() - started
        started = time.perf_counter()
        render_results(console, [result], duration_seconds=1.0, view=ConsoleView(max_shown=200))
        write_junit(out / "junit.xml", [result], elapsed=1.0)
        write_markdown(out / "report.md", [result], elapsed=1.0)
        append_step_summary([result], environ, elapsed=1.0)
        annotations = github.annotations([result], files={"reports": "x.evalset.json"})
        reporting = time.perf_counter() - started
    else:
        started = time.perf_counter()
        for index in range(cases):
            make(index)
        made = time.perf_counter() - started
    digests = {p.name: _digest(p.read_bytes()) for p in sorted(out.iterdir())}
    digests["console"] = _digest(screen.getvalue().encode())
    digests["annotations"] = _digest("\n".join(annotations).encode())
    junit_mb = (out / "junit.xml").stat().st_size / 1e6 if kind != "make" else 0.0
    print(json.dumps({"made": made, "reporting": reporting, "digests": digests, "junit": junit_mb}))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def run_child(
    kind: str, cases: int, templates: Path, root: Path, legacy: str | None
) -> tuple[float, dict[str, object]]:
    """One child; returns its peak RSS in MB (10**6 bytes) and what it printed."""
    out = root / kind
    out.mkdir()
    env = dict(os.environ)
    if kind == "legacy" and legacy is not None:
        env["PYTHONPATH"] = os.pathsep.join([legacy, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    child_kind = "whole" if kind == "legacy" else kind
    command = [sys.executable, __file__, "--child", child_kind, "--cases", str(cases)]
    command += ["--templates", str(templates), "--out", str(out)]
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen(command, stdout=stdout, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{kind} child failed")
        stdout.seek(0)
        printed = json.loads(stdout.read().decode().strip().splitlines()[-1])
    return usage.ru_maxrss * 1024 / 1e6, printed


def measure(cases: int, legacy: str | None) -> None:
    """Run the children and print peak RSS, report time and the ratios."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        templates = write_templates(root)
        kinds = ["make", "tally", "whole"] + (["legacy"] if legacy else [])
        rows: dict[str, tuple[float, dict[str, object]]] = {}
        for kind in kinds:
            rows[kind] = run_child(kind, cases, templates, root, legacy)
            peak, printed = rows[kind]
            reporting = float(str(printed["reporting"]))
            line = f"{kind:<6} peak RSS {peak:7,.0f} MB"
            if kind == "make":
                line += f"  (making the cases: {float(str(printed['made'])):.1f} s)"
            else:
                line += f"  reports {reporting:6.1f} s  {reporting / cases * 1e6:5.0f} us/case"
                line += f"  (junit.xml {float(str(printed['junit'])):.0f} MB)"
            print(line, flush=True)
    floor = rows["make"][0]
    tally_peak, tally = rows["tally"]
    same = all(rows[k][1]["digests"] == tally["digests"] for k in rows if k != "make")
    print(f"every report byte-identical across {', '.join(k for k in rows if k != 'make')}: {same}")
    for other in [k for k in ("whole", "legacy") if k in rows]:
        peak, printed = rows[other]
        time_ratio = float(str(tally["reporting"])) / float(str(printed["reporting"]))
        print(
            f"tally / {other}: {tally_peak / peak:.2f}x peak RSS ({tally_peak - floor:,.0f} MB above "
            f"the floor against {peak - floor:,.0f} MB), {time_ratio:.2f}x report time"
        )


def main() -> None:
    """Parse the arguments; run as the parent or as one measured child."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--legacy", help="agenteval source dir for an extra old-code child")
    parser.add_argument("--child", choices=["make", "tally", "whole"], help=argparse.SUPPRESS)
    parser.add_argument("--templates", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--write-templates", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_templates:
        _write_templates_here(args.write_templates)
    elif args.child:
        child(args.child, args.cases, args.templates, args.out)
    else:
        measure(args.cases, args.legacy)


if __name__ == "__main__":
    main()
