"""What ``agenteval run`` imports: a deterministic run loads neither the judge nor the HTML stack.

Imports are a large part of a short run's cost (the judge's HTTP clients and jinja2 were
about a third of the start-up, bench/adk_side_by_side.py), so each is loaded by the code
that needs it: a judge metric, ``--html``.  The modules a process holds are read at its
exit, in a real ``python -m agenteval`` process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Loaded only for judge metrics (the judge client and its HTTP stack), --html (jinja2)
# and OTLP --traces (protobuf).
HEAVY = ("aiohttp", "httpx", "jinja2", "agenteval.judge.client", "google.protobuf")

# The listing is written as main() ends (its own exit function ends the process at once).
DRIVER = """
import sys
listing = sys.argv.pop(1)
sys.argv[0] = "agenteval"
from agenteval.entry import main
try:
    main()
finally:
    open(listing, "w").write("\\n".join(sorted(sys.modules)))
"""


def _write_set(root: Path) -> Path:
    turn = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "Rain in Oslo?"},
        "finalResponse": {"role": "assistant", "content": "Rain is likely in Oslo."},
        "tools": [{"id": "c1", "name": "forecast", "arguments": {"city": "Oslo"}}],
    }
    case = {"evalId": "oslo", "evalMode": "trace", "conversation": [turn]}
    case["actualConversation"] = [turn]
    case["sessionInput"] = {"appName": "trip", "userId": "u1"}
    evalset = root / "trip.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "trip", "evalCases": [case]}), encoding="utf-8")
    metrics = [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metricName": "response_match_score", "threshold": 0.8},
    ]
    (root / "trip.metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return evalset


def _modules_after(tmp_path: Path, *args: str) -> set[str]:
    listing = tmp_path / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED: 1 of 1 cases passed" in proc.stdout
    return set(listing.read_text(encoding="utf-8").split("\n"))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in HEAVY)


def test_deterministic_run_loads_no_judge_or_html_stack(tmp_path: Path) -> None:
    evalset = _write_set(tmp_path)
    modules = _modules_after(tmp_path, "run", "--evalset", str(evalset), "-o", str(tmp_path / "o"))
    assert "agenteval.evaluators.builtins" in modules  # the run did load its evaluators
    assert _heavy(modules) == []


def test_html_report_loads_its_template_engine(tmp_path: Path) -> None:
    # The listing sees what a report needs: --html brings jinja2, still no judge stack.
    evalset = _write_set(tmp_path)
    html = tmp_path / "run.html"
    modules = _modules_after(tmp_path, "run", "--evalset", str(evalset), "--html", str(html))
    assert html.is_file()
    assert _heavy(modules) == ["jinja2"]
