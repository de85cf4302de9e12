"""Tables fold only between words: ``run``, ``show`` and ``diff`` of the shipped examples at
60, 80, 100 and 160 columns never split an id, a metric name, a status or a number.

The reference is the same command at 1,000 columns, where nothing wraps: every
whitespace-separated word printed at a narrower width must be a word of the reference
(a split ``tool_trajectory_a`` / ``vg_score`` or ``passe`` / ``d`` is not), and every
evalId, eval set id and metric name must stand whole on some line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]
WIDTHS = (60, 80, 100, 160)
# Words only the folded layout prints (``why: …``, the pair separator).
FOLDED_WORDS = {"why:", "·"}
ELAPSED = re.compile(r" ·\s+\d+\.\d\d\s+s$", re.MULTILINE)  # the run's wall time differs per run


def cli(*args: str, columns: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    done = run_cli(args, timeout=120, env=env, cwd=cwd)
    done.stdout = ELAPSED.sub("", done.stdout)
    return done


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A run of every shipped example, its result files, and a second run for ``diff``."""
    work = tmp_path_factory.mktemp("widths")
    evalsets, metrics = str(ROOT / "evalsets"), str(ROOT / "metrics")
    done = cli("run", "--evalset", evalsets, "--metrics", metrics, "--json", "base.json",
               "--output", "out", "--no-progress", columns=160, cwd=work)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    changed = work / "new.json"
    done = cli("run", "--evalset", str(ROOT / "evalsets" / "travel-assistant.evalset.json"),
               "--evalset", str(ROOT / "evalsets" / "order-api.evalset.json"),
               "--metrics", str(ROOT / "metrics" / "text"),
               "--json", str(changed), "--no-progress", columns=160, cwd=work)  # fmt: skip
    assert changed.exists(), done.stdout + done.stderr
    return work, work / "base.json", changed


def names(*documents: Path) -> set[str]:
    """Every evalId, eval set id and metric name in run documents."""
    found: set[str] = set()
    for document in documents:
        for result in json.loads(document.read_text())["evalSetResults"]:
            found.add(result["evalSetId"])
            for case in result["evalCaseResults"]:
                found.add(case["evalId"])
                found.update(m["metricName"] for m in case["overallEvalMetricResults"] or [])
    return found


def commands(base: Path, new: Path) -> dict[str, list[str]]:
    evalsets, metrics = str(ROOT / "evalsets"), str(ROOT / "metrics")
    return {
        "run": ["run", "--evalset", evalsets, "--metrics", metrics, "--no-progress"],
        "show": ["show", str(base)],
        "diff": ["diff", str(base), str(new)],
    }


@pytest.mark.parametrize("command", ["run", "show", "diff"])
def test_no_word_is_split_at_any_width(documents: tuple[Path, Path, Path], command: str) -> None:
    work, base, new = documents
    args = commands(base, new)[command]
    reference = cli(*args, columns=1000, cwd=work)
    assert reference.returncode == 1, reference.stdout + reference.stderr
    words = set(reference.stdout.split()) | FOLDED_WORDS
    wanted = names(base) if command != "diff" else names(base, new)
    for columns in WIDTHS:
        done = cli(*args, columns=columns, cwd=work)
        assert done.returncode == 1, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert max(len(line) for line in lines) <= columns
        split = sorted(
            {word for word in done.stdout.split() if word not in words and word.strip("─")}
        )
        assert split == [], f"{command} at {columns} columns split: {split}"
        for name in wanted:
            if command == "diff" and name not in reference.stdout:
                continue  # diff names only what changed
            assert any(name in line.split() for line in lines), (command, columns, name)
