"""Without Chromium the HTML report's browser tests are skipped, and the run says so in one line.

The suite is run as a user runs it (``python -m pytest``, in a child) on tests/report/test_html.py
with ``AGENTEVAL_CHROMIUM`` pointing at a file that does not exist: every test that drives the
browser is skipped, the others still run, and exactly one line at the end names the cause.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from inner_pytest import PYTEST

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_missing_chromium_skips_the_browser_tests_with_one_line(
    tmp_path: Path, workers: list[str]
) -> None:
    missing = tmp_path / "no-chromium"
    env = {**os.environ, "AGENTEVAL_CHROMIUM": str(missing)}
    chosen = ["tests/report/test_html.py", "-k", "shipped_examples or page_data_cannot_close"]
    done = subprocess.run(
        [*PYTEST, *workers, *chosen],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    said = [line for line in lines if "of the HTML report skipped" in line]
    assert said == [
        f"1 browser test of the HTML report skipped: no Chromium at {missing} "
        "(`make chromium` installs Debian's chromium; it needs root and apt-get)"
    ]
    assert re.search(r"\b1 passed, 1 skipped\b", lines[-1]), lines[-1]
    # No line per skipped test: the reason appears in the one summary line only.
    assert sum(str(missing) in line for line in lines) == 1
