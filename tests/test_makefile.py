"""The Makefile's system packages: installed only when missing and possible, said either way.

``make chromium`` and ``make postgres`` run for real against stand-in ``id`` and ``apt-get``
commands put first on PATH, so no package is installed and the root check is exercised
without being root (or with being root, when the suite is not).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What each target installs, and the variable that points at what it looks for.
TARGETS = {
    "chromium": ("CHROMIUM=/nonexistent/chromium", "chromium", "HTML report's browser tests"),
    "postgres": ("PG_BIN=/nonexistent/bin", "postgresql", "PostgreSQL run-store tests"),
}

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def make(tmp_path: Path, target: str, *, uid: int, apt_ok: bool | None) -> str:
    """``make -s TARGET`` with ``id -u`` saying ``uid`` and apt-get succeeding, failing or
    absent (None); its output, which must end with exit 0."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    log = tmp_path / "apt.log"
    if apt_ok is not None:
        apt = f'#!/bin/sh\necho "$@" >> {log}\nexit {0 if apt_ok else 1}\n'
        (bin_dir / "apt-get").write_text(apt)
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    # Only the stand-ins and what make's recipes need (sh, echo, [), never the real apt-get.
    path = f"{bin_dir}:/bin" if apt_ok is not None else str(bin_dir)
    env = {**os.environ, "PATH": path}
    proc = subprocess.run(
        [shutil.which("make") or "make", "-s", target, TARGETS[target][0]],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_installed_when_root_with_apt_get_and_announced_first(tmp_path: Path, target: str) -> None:
    _, package, tests = TARGETS[target]
    out = make(tmp_path, target, uid=0, apt_ok=True)
    assert out.startswith(f"installing Debian's {package} (~")
    assert f"for the {tests}" in out.splitlines()[0]
    installed = (tmp_path / "apt.log").read_text().splitlines()
    assert installed[-1].endswith(f"install -y -qq {package}")


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_failed_install_says_the_tests_will_be_skipped(tmp_path: Path, target: str) -> None:
    _, package, tests = TARGETS[target]
    out = make(tmp_path, target, uid=0, apt_ok=False)
    assert f"{package} could not be installed: the {tests} will be skipped" in out


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_not_root_installs_nothing_and_says_so(tmp_path: Path, target: str) -> None:
    _, _, tests = TARGETS[target]
    out = make(tmp_path, target, uid=1000, apt_ok=True)
    assert "needs apt-get as root" in out.replace("\n", " ")
    assert f"the {tests} will be skipped" in out
    assert not (tmp_path / "apt.log").exists()
