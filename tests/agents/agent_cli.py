"""Helpers of the agent tests: run the CLI in a subprocess, build eval sets, read results."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from cli_process import run_cli as forked_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_AGENT = REPO / "examples" / "agents" / "calculator_agent.py"
FAULT_AGENT = Path(__file__).resolve().parent / "fault_agent.py"


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS`` with a private environment."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    return forked_cli(args, cwd=REPO, env=full_env, timeout=timeout)


def case_results(run_json: Path) -> dict[str, dict[str, Any]]:
    """The case results of a ``--json`` run document by evalId."""
    document = json.loads(run_json.read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for result in document["evalSetResults"]:
        for case in result["evalCaseResults"]:
            out[case["evalId"]] = case
    return out


def echo_case(eval_id: str, *texts: str) -> dict[str, Any]:
    """A default-mode case whose reference turns expect the fault agent's echo."""
    return {
        "evalId": eval_id,
        "conversation": [
            {
                "invocationId": f"{eval_id}-{i}",
                "userContent": {"role": "user", "content": text},
                "finalResponse": {"role": "assistant", "content": f"echo: {text}"},
            }
            for i, text in enumerate(texts, start=1)
        ],
        "sessionInput": {"appName": "faults", "userId": "u"},
    }


def write_evalset(
    directory: Path, name: str, cases: list[dict[str, Any]], metrics: list[dict[str, Any]]
) -> Path:
    """Write ``name.evalset.json`` and its metric file; return the eval set path."""
    path = directory / f"{name}.evalset.json"
    path.write_text(json.dumps({"evalSetId": name, "evalCases": cases}), encoding="utf-8")
    (directory / f"{name}.metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return path


EXACT_FINAL = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def fault_agent_run(
    directory: Path,
    cases: list[dict[str, Any]],
    *extra: str,
    env: dict[str, str] | None = None,
    name: str = "faults",
) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
    """``run`` of ``cases`` (eval set ``name``, :data:`EXACT_FINAL`) driving the fault agent,
    uncached, its run document ``directory/run.json``; the process and the case results."""
    evalset = write_evalset(directory, name, cases, EXACT_FINAL)
    out = directory / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--json", str(out), *extra, env=env, timeout=90,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, case_results(out)
