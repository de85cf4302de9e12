"""Benchmark: the HTML report of a large run — page size, build time, peak RSS, time to interactive.

Scores bench/deterministic.py's synthetic suite of N cases once (untimed, ``--output``)
to get a result file, then measures, each in its own process (peak RSS from ``wait4``):

* ``agenteval report RESULT --html PAGE``: wall seconds, peak RSS, the page's size and
  its sidecar's (``PAGE.cases/``, written above the inline limit);
* ``agenteval run --evalset … --html PAGE``: the same, scoring included (the page is
  built from the cases as they finish);

then opens the page from ``file://`` in headless Chromium (Debian's ``/usr/bin/chromium``)
through Playwright: milliseconds from navigation start until the case list answers input
(the page records it), and how long opening the first and the last case of the list
takes (their details parsed, or loaded from the sidecar, on demand).

With ``--long-text`` it also opens a one-case page whose final answer is one 1 MB
unbroken word, and one whose answer is 1 MB of ordinary words (target: 1 s each).

Targets: 100,000 cases in at most 800 MB peak RSS for ``--html``; interactive in at most
2 s at 10,000 cases.  The commands run the installed ``agenteval``; set ``PYTHONPATH`` to
another checkout's ``src`` to measure that one ("before" figures).

    python bench/html_report.py [--cases N] [--repeat R] [--long-text]

Measured on the shared 2-core machine (load average 10-30, so wall times are rough),
before (the page built from whole results read back, every detail inline) and after
(the page built case by case, details in a sidecar above 32 MiB, long texts capped):

=====================================  ==================  ====================================
                                       before              after
=====================================  ==================  ====================================
10,000 cases: ``run --html`` peak RSS  677 MiB             95 MiB
10,000 cases: page                     20.6 MiB            19.5 MiB (inline)
10,000 cases: interactive              0.65 s              0.71 s
100,000 cases: ``run --html`` RSS      6,177 MiB, 586 s    342 MiB, 241 s (222 MiB without --html)
100,000 cases: page                    205.7 MiB           17.3 MiB + 177.8 MiB in 501 shards
100,000 cases: interactive             3.7 s               2.0-6.2 s (the same within the noise)
100,000 cases: ``report --html`` RSS   4,265 MiB           4,266 MiB: reading the result file
                                                           whole (result_inputs); the page
                                                           itself is built from a case stream;
                                                           2,698 MB at fbcc342, 232 MB since
                                                           5e687e8 reads it case by case
                                                           (bench/result_reading.py)
1 MB unbroken word: case view          5.4 s               0.19 s
1 MB of words: case view               10.7 s              0.16 s
=====================================  ==================  ====================================
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deterministic import METRICS, make_case

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RSS_TARGET_MIB = 800
INTERACTIVE_TARGET_S = 2.0
LONG_TEXT_TARGET_S = 1.0


@dataclass(frozen=True, slots=True)
class Measured:
    """One CLI command: wall seconds and the peak resident memory of its process."""

    wall: float
    peak_mib: float


def run_cli(*args: str) -> Measured:
    """Run ``agenteval ARGS`` once; its own rusage comes from wait4."""
    command = [sys.executable, "-m", "agenteval", *args]
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            err.seek(0)
            sys.exit(f"agenteval {args[0]} failed with exit code {code}:\n{err.read().decode()}")
    return Measured(wall, usage.ru_maxrss / 1024)


def write_suite(root: Path, cases: int) -> Path:
    """The synthetic eval set of ``cases`` cases and its metrics file; returns the eval set.

    Written by a child process: a process's peak RSS as ``wait4`` reports it starts from
    its parent's at the fork, so this process stays small for the children it measures.
    """
    evalset = root / "bench.evalset.json"
    subprocess.run(
        [sys.executable, __file__, "--write-suite", str(root), "--cases", str(cases)], check=True
    )
    return evalset


def _write_suite_here(root: Path, cases: int) -> None:
    rng = random.Random(7)
    suite = {"evalSetId": "bench", "evalCases": [make_case(i, rng) for i in range(cases)]}
    (root / "bench.evalset.json").write_text(json.dumps(suite))
    (root / "bench.metrics.json").write_text(json.dumps(METRICS))


def scored_result(root: Path, evalset: Path) -> Path:
    """Score the suite once and return its result file."""
    out = root / "out"
    run_cli("run", "--evalset", str(evalset), "--output", str(out), "--quiet", "--no-progress")
    (result,) = out.glob("*.evalset_result.json")
    return result


def page_size(page: Path) -> tuple[float, float, int]:
    """MiB of the page, MiB of its sidecar directory and the sidecar's file count."""
    sidecar = page.with_name(page.stem + ".cases")
    files = list(sidecar.iterdir()) if sidecar.is_dir() else []
    return (
        page.stat().st_size / 2**20,
        sum(f.stat().st_size for f in files) / 2**20,
        len(files),
    )


# Click a row, then wait frame by frame until the case view shows that case and has been
# laid out and painted; resolves with the milliseconds it took (measured in the page).
_OPEN_ROW = """(position) => new Promise((resolve) => {
  const rows = document.querySelectorAll('#list .row');
  const row = position < 0 ? rows[rows.length - 1] : rows[position];
  const wanted = row.dataset.evalId;
  const started = performance.now();
  row.click();
  const check = () => {
    const title = document.querySelector('#case .case-title');
    if (title && title.textContent.includes(wanted)) {
      void document.body.offsetHeight;
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - started)));
    } else {
      requestAnimationFrame(check);
    }
  };
  check();
})"""


def open_page(browser: Browser, page_path: Path) -> tuple[float, float, float]:
    """Ms to interactive, ms to open the first case, ms to open the last case of the list."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(page_path.as_uri() + "#cases", wait_until="commit", timeout=600_000)
        page.wait_for_selector("html[data-ready='1']", timeout=600_000)
        ready = float(page.eval_on_selector("html", "e => e.dataset.readyMs"))
        page.wait_for_load_state("load", timeout=600_000)
        first = float(page.evaluate(_OPEN_ROW, 0))
        page.eval_on_selector("#list", "e => { e.scrollTop = e.scrollHeight; }")
        page.wait_for_timeout(100)
        last = float(page.evaluate(_OPEN_ROW, -1))
    finally:
        page.close()
    return ready, first, last


def long_text_pages(root: Path) -> dict[str, Path]:
    """One-case pages whose answer is a 1 MB unbroken word / 1 MB of words."""
    rng = random.Random(3)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    texts = {
        "1 MB unbroken word": "".join(rng.choice(letters) for _ in range(1_000_000)),
        "1 MB of words": " ".join(
            "".join(rng.choice(letters) for _ in range(rng.randint(2, 9)))
            for _ in range(1_000_000 // 6)
        ),
    }
    pages = {}
    for number, (name, text) in enumerate(texts.items()):

        def turn(answer: str) -> dict[str, object]:
            return {
                "userContent": {"role": "user", "content": "q"},
                "finalResponse": {"role": "assistant", "content": answer},
            }

        case = {"evalId": "long", "evalMode": "trace", "sessionInput": {},
                "actualConversation": [turn(text)], "conversation": [turn(text[::-1])]}  # fmt: skip
        evalset = root / f"long{number}.evalset.json"
        evalset.write_text(json.dumps({"evalSetId": "long", "evalCases": [case]}))
        metrics = [{"metricName": "m", "evaluatorName": "final_response_avg_score",
                    "threshold": 1, "criterion": {"finalResponse": {"text": {}}}}]  # fmt: skip
        (root / f"long{number}.metrics.json").write_text(json.dumps(metrics))
        page = root / f"long{number}.html"
        run_cli("run", "--evalset", str(evalset), "--html", str(page), "--quiet")
        pages[name] = page
    return pages


def time_long_text(browser: Browser, page_path: Path) -> float:
    """Seconds from clicking the case until its view is laid out and painted."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(page_path.as_uri() + "#cases")
        page.wait_for_selector("html[data-ready='1']")
        page.wait_for_load_state("load")
        return float(page.evaluate(_OPEN_ROW, 0)) / 1000
    finally:
        page.close()


def main() -> None:
    """Build the report of a large run, open it in headless Chromium, print the numbers."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1, help="browser rounds; medians printed")
    parser.add_argument("--long-text", action="store_true", help="also time 1 MB texts")
    parser.add_argument("--no-run", action="store_true", help="skip `run --html`")
    parser.add_argument("--write-suite", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_suite is not None:
        _write_suite_here(args.write_suite, args.cases)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        evalset = write_suite(root, args.cases)
        result = scored_result(root, evalset)
        page = root / "report.html"
        report = run_cli("report", str(result), "--html", str(page), "--quiet")
        size, sidecar, files = page_size(page)
        print(f"cases: {args.cases}  result file: {result.stat().st_size / 2**20:.1f} MiB")
        print(
            f"report --html: {report.wall:.2f} s, peak RSS {report.peak_mib:.0f} MiB"
            f" ({report.peak_mib / RSS_TARGET_MIB:.2f}x of {RSS_TARGET_MIB} MiB);"
            f" page {size:.1f} MiB"
            + (f" + sidecar {sidecar:.1f} MiB in {files} files" if files else "")
        )
        if not args.no_run:
            run_page = root / "run.html"
            ran = run_cli("run", "--evalset", str(evalset), "--html", str(run_page), "--quiet",
                          "--no-progress")  # fmt: skip
            print(
                f"run --html (scoring included): {ran.wall:.2f} s, peak RSS {ran.peak_mib:.0f} MiB"
            )
        with sync_playwright() as driver:
            browser = driver.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            rounds = [open_page(browser, page) for _ in range(max(args.repeat, 1))]
            ready = statistics.median(r[0] for r in rounds) / 1000
            first = statistics.median(r[1] for r in rounds)
            last = statistics.median(r[2] for r in rounds)
            print(
                f"interactive: {ready:.2f} s from navigation start"
                f" ({ready / INTERACTIVE_TARGET_S:.2f}x of the {INTERACTIVE_TARGET_S:g} s target);"
                f" open a case: first {first:.0f} ms, last of the list {last:.0f} ms"
            )
            if args.long_text:
                for name, long_page in long_text_pages(root).items():
                    seconds = time_long_text(browser, long_page)
                    print(
                        f"case view of {name}: {seconds:.2f} s to laid out and painted"
                        f" ({seconds / LONG_TEXT_TARGET_S:.2f}x of the {LONG_TEXT_TARGET_S:g} s target)"
                    )
            browser.close()


if __name__ == "__main__":
    main()
