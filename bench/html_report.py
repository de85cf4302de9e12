"""Benchmark: the HTML report of a 10,000-case run — size, build time, time to interactive.

Scores bench/deterministic.py's 10,000-case suite once (untimed) to get a
result file, then times ``agenteval report RESULT --html FILE`` (the whole
command, and in-process: reading the result vs building the page), and opens
the page from ``file://`` in headless Chromium (Debian's ``/usr/bin/chromium``)
through Playwright: milliseconds from navigation start until the case list
answers input (the page records it), then how long opening a case takes —
the first one and one at the end of the list, whose details are parsed on
demand.  Targets (issue 16): built in at most 3 s, interactive in at most 2 s.

    python bench/html_report.py [--cases N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deterministic import METRICS, make_case

from agenteval.report.html import render_report
from agenteval.report.html_inputs import load_runs

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
BUILD_TARGET_S = 3.0
INTERACTIVE_TARGET_S = 2.0


def scored_result(root: Path, cases: int) -> Path:
    """Score the synthetic suite once and return its result file."""
    rng = random.Random(7)
    evalset = root / "bench.evalset.json"
    suite = {"evalSetId": "bench", "evalCases": [make_case(i, rng) for i in range(cases)]}
    evalset.write_text(json.dumps(suite))
    (root / "bench.metrics.json").write_text(json.dumps(METRICS))
    out = root / "out"
    command = [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset)]
    done = subprocess.run(
        [*command, "--output", str(out), "--quiet"], check=False, stdout=subprocess.DEVNULL
    )
    if done.returncode not in (0, 1):
        sys.exit(f"agenteval run failed with exit code {done.returncode}")
    (result,) = out.glob("*.evalset_result.json")
    return result


def time_cli(result: Path, html: Path) -> float:
    """Wall seconds of the whole ``agenteval report`` command (interpreter start included)."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "agenteval", "report", str(result), "--html", str(html)]
    done = subprocess.run([*command, "--quiet"], check=False)
    if done.returncode != 0:
        sys.exit(f"agenteval report failed with exit code {done.returncode}")
    return time.perf_counter() - started


def time_build(result: Path) -> tuple[float, float, int]:
    """In-process seconds to read the result and to build the page, and the page's size."""
    started = time.perf_counter()
    runs = load_runs([result])
    loaded = time.perf_counter()
    page = render_report(runs)
    built = time.perf_counter()
    return loaded - started, built - loaded, len(page)


def time_browser(html: Path, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Per round: ms to interactive, ms to open the first case, ms to open the last case."""
    ready: list[float] = []
    first: list[float] = []
    last: list[float] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        for _ in range(repeat):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(html.as_uri() + "#cases", wait_until="commit")
            page.wait_for_selector("html[data-ready='1']", timeout=60_000)
            ready.append(float(page.eval_on_selector("html", "e => e.dataset.readyMs")))
            started = time.perf_counter()
            page.click("#list .row >> nth=0")
            page.wait_for_selector("#case .case-title")
            first.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            page.eval_on_selector("#list", "e => { e.scrollTop = e.scrollHeight; }")
            page.wait_for_timeout(50)
            rows = page.locator("#list .row")
            rows.nth(rows.count() - 1).click()
            page.wait_for_selector("#case .case-title >> text=case_0", timeout=10_000)
            last.append((time.perf_counter() - started - 0.05) * 1000)
            page.close()
        browser.close()
    return ready, first, last


def main() -> None:
    """Build the report of a large run and open it in headless Chromium; print the numbers."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; medians are printed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        result = scored_result(root, args.cases)
        html = root / "report.html"
        cli = min(time_cli(result, html) for _ in range(max(args.repeat, 1)))
        rounds = [time_build(result) for _ in range(max(args.repeat, 1))]
        load_s = statistics.median(r[0] for r in rounds)
        build_s = statistics.median(r[1] for r in rounds)
        size = rounds[0][2]
        ready, first, last = time_browser(html, max(args.repeat, 1))
    result_mib = result.stat().st_size / 2**20 if result.exists() else 0.0
    ready_s = statistics.median(ready) / 1000
    print(
        f"cases: {args.cases}  report: {size / 2**20:.1f} MiB"
        + (f" (result file {result_mib:.1f} MiB)" if result_mib else "")
    )
    print(
        f"build: {build_s:.2f} s in-process ({build_s / BUILD_TARGET_S:.2f}x of the {BUILD_TARGET_S:g} s target)"
        f" + {load_s:.2f} s reading the result; whole `agenteval report` command: {cli:.2f} s"
    )
    print(
        f"interactive: {ready_s:.2f} s from navigation start ({ready_s / INTERACTIVE_TARGET_S:.2f}x of the"
        f" {INTERACTIVE_TARGET_S:g} s target); rounds: {', '.join(f'{r:.0f} ms' for r in ready)}"
    )
    print(
        f"open a case: first {statistics.median(first):.0f} ms, last of the list {statistics.median(last):.0f} ms"
        " (its details parsed on demand)"
    )


if __name__ == "__main__":
    main()
