"""The manual: a short README for a newcomer, the rest in docs/ built offline by MkDocs.

``mkdocs build --strict`` (what ``make docs`` runs) fails on a broken link or anchor and on
a page left out of the navigation; the README's own links to docs/ are checked here, since
MkDocs does not read the README.  That every ``agenteval`` example of both runs is
tests/cli/test_readme_examples.py's job.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# What a newcomer reads first stays short; everything else has its page in docs/.
README_MAX_LINES = 200


def test_the_manual_builds_offline_with_every_link_and_page_in_place(tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pages = sorted(p.relative_to(ROOT / "docs") for p in (ROOT / "docs").rglob("*.md"))
    for page in pages:
        built = site / page.with_suffix("") / "index.html" if page.stem != "index" else None
        assert built is None or built.is_file(), page
    # A page per command, evaluator family, file format and integration.
    assert len(pages) >= 25
    # Built offline: the pages load nothing from the network.
    index = (site / "index.html").read_text(encoding="utf-8")
    assert not re.findall(r'<(?:script|link)[^>]+(?:src|href)="https?://', index)


def test_the_readme_is_short_and_its_links_to_the_manual_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    for heading in ("## Two commands on a fresh machine", "## Quick start", "## The manual"):
        assert heading in text
    targets = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", text)
    assert len(targets) >= 25
    missing = sorted({t for t in targets if not (ROOT / t).is_file()})
    assert missing == []
    anchors = re.findall(r"\]\(#([^)]+)\)", text)
    headings = {
        re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", h.lower())).strip("-")
        for h in re.findall(r"^#+ (.*)$", text, flags=re.MULTILINE)
    }
    assert sorted(set(anchors) - headings) == []
