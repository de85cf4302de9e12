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
UNREAD_SCHEMAS = (
    "agenteval.schema.json_schema",
    "agenteval.schema.labels",
    "agenteval.schema.prices",
    "agenteval.schema.run_document",
)

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


def _write_set(root: Path, answer: str = "Rain is likely in Oslo.") -> Path:
    """One case in trace mode; its agent answered ``answer`` (the reference passes)."""
    turn = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "Rain in Oslo?"},
        "finalResponse": {"role": "assistant", "content": "Rain is likely in Oslo."},
        "tools": [{"id": "c1", "name": "forecast", "arguments": {"city": "Oslo"}}],
    }
    case = {"evalId": "oslo", "evalMode": "trace", "conversation": [turn]}
    case["actualConversation"] = [
        {**turn, "finalResponse": {"role": "assistant", "content": answer}}
    ]
    case["sessionInput"] = {"appName": "trip", "userId": "u1"}
    evalset = root / "trip.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "trip", "evalCases": [case]}), encoding="utf-8")
    metrics = [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metricName": "response_match_score", "threshold": 0.8},
    ]
    (root / "trip.metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return evalset


def _modules_after(
    tmp_path: Path,
    *args: str,
    says: str = "PASSED: 1 of 1 cases passed",
    code: int = 0,
    cwd: Path | None = None,
) -> set[str]:
    listing = tmp_path / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert says in proc.stdout
    return set(listing.read_text(encoding="utf-8").split("\n"))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in HEAVY)


def test_deterministic_run_loads_no_judge_or_html_stack(tmp_path: Path) -> None:
    evalset = _write_set(tmp_path)
    modules = _modules_after(tmp_path, "run", "--evalset", str(evalset), "-o", str(tmp_path / "o"))
    assert "agenteval.evaluators.builtins" in modules  # the run did load its evaluators
    assert _heavy(modules) == []
    # Nor the JSON Schemas and the models of files a run never reads (schema/own_keys.py).
    assert sorted(m for m in modules if m in UNREAD_SCHEMAS) == []


def test_html_report_loads_its_template_engine(tmp_path: Path) -> None:
    # The listing sees what a report needs: --html brings jinja2, still no judge stack.
    evalset = _write_set(tmp_path)
    html = tmp_path / "run.html"
    modules = _modules_after(tmp_path, "run", "--evalset", str(evalset), "--html", str(html))
    assert html.is_file()
    assert _heavy(modules) == ["jinja2"]


def test_run_starts_with_only_its_own_command_module(tmp_path: Path) -> None:
    # No other command's module, and not explain: it is loaded for an HTML page only.
    evalset = _write_set(tmp_path)
    modules = _modules_after(tmp_path, "run", "--evalset", str(evalset), "-o", str(tmp_path / "o"))
    commands = sorted(m for m in modules if m.startswith("agenteval.cli."))
    assert "agenteval.cli.run" in commands
    assert [m for m in commands if m in OTHER_COMMANDS] == []
    assert [m for m in modules if m.startswith(("agenteval.explain", "agenteval.calibrate"))] == []


# The modules of the commands other than run (cli/program.py's table).
OTHER_COMMANDS = (
    "agenteval.cli.validate",
    "agenteval.cli.show",
    "agenteval.cli.diff",
    "agenteval.cli.merge",
    "agenteval.cli.schema",
    "agenteval.cli.report",
    "agenteval.cli.evaluators",
    "agenteval.cli.history",
    "agenteval.cli.explain",
    "agenteval.cli.calibrate",
    "agenteval.cli.store",
    "agenteval.importers.command",
)


def test_run_html_still_shows_explain_steps_and_report_loads_them(tmp_path: Path) -> None:
    # The page of a run started alone shows explain's steps under the failing metric, as
    # the Python API's page does (tests/report/test_run_reports.py compares the bytes).
    evalset = _write_set(tmp_path, answer="Sunny skies all week in Bergen.")
    html, out = tmp_path / "run.html", tmp_path / "o"
    args = ("run", "--evalset", str(evalset), "--html", str(html), "-o", str(out))
    modules = _modules_after(tmp_path, *args, says="FAILED: 0 of 1 cases passed", code=1)
    assert "agenteval.explain" in modules
    text = html.read_text(encoding="utf-8")
    assert '"response_match_score":{"command":"agenteval explain RESULT --case oslo' in text
    assert '"lines":["explain case oslo · metric response_match_score' in text
    assert "precision 0.166667 recall 0.200000 F 0.181818" in text
    # `report`, started alone too, loads explain for its page.
    (saved,) = out.iterdir()
    page = tmp_path / "report.html"
    modules = _modules_after(tmp_path, "report", str(saved), "--html", str(page), says="wrote")
    assert "agenteval.explain" in modules
    assert "agenteval explain RESULT --case oslo --metric response_match_score" in page.read_text()


def test_validate_and_schema_config_started_alone_read_runs_options(tmp_path: Path) -> None:
    # validate takes the project file's defaults from run's options and `schema config` is
    # read off them: both start with run's command beside their own (once exit 4).
    evalset = _write_set(tmp_path)
    (tmp_path / "agenteval.toml").write_text("quiet = true\nlenient = true\n", encoding="utf-8")
    says = "OK: 1 eval set(s), 1 case(s), 2 metric(s) valid."
    modules = _modules_after(
        tmp_path, "validate", "--evalset", str(evalset), says=says, cwd=tmp_path
    )
    assert "agenteval.cli.run" in modules
    schema = _modules_after(tmp_path, "schema", "config", says='"lenient"', cwd=tmp_path)
    assert "agenteval.cli.diff" not in schema
