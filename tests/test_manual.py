"""The manual: a short README for a newcomer, the rest in docs/ built offline by MkDocs.

``mkdocs build --strict`` (what ``make docs`` runs) fails on a broken link or anchor and on
a page left out of the navigation; the README's own links (files and heading anchors, into
docs/ and its own) are checked here, since MkDocs does not read the README, and so is the CI
workflow of docs/integrations/ci.md, which no test can run.  Every ```python block of docs/
runs here; that every ``agenteval`` example of both runs is
tests/cli/test_readme_examples.py's job.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

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


def slug(heading: str) -> str:
    """A heading's anchor as MkDocs' toc extension makes it (Python-Markdown's slugify)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors_of(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (code blocks' ``#`` lines left out)."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*?)#*$", text, flags=re.MULTILINE)}


def test_the_readme_is_short_and_its_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    for heading in ("## Two commands on a fresh machine", "## Quick start", "## The manual"):
        assert heading in text
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len([link for link in local if link.startswith("docs/")]) >= 25
    broken = []
    for link in local:
        target, _, anchor = link.partition("#")
        path = ROOT / target if target else README
        if not path.is_file():
            broken.append(f"{link}: no such file")
        elif anchor and anchor not in anchors_of(path):
            broken.append(f"{link}: no heading '{anchor}' in {target or 'README.md'}")
    assert broken == []


def test_the_link_check_reads_anchors_as_mkdocs_writes_them() -> None:
    # The README's own headings and a docs page's, as the built site's ids spell them.
    assert "two-commands-on-a-fresh-machine" in anchors_of(README)
    assert "a-judge-on-your-machine" in anchors_of(ROOT / "docs/evaluators/llm-judges.md")
    assert slug("`llm_verifier_pairwise`") == "llm_verifier_pairwise"
    assert slug("Judge calls: concurrency, cache") == "judge-calls-concurrency-cache"


def fenced(page: Path, language: str) -> list[str]:
    """The ```language blocks of a manual page."""
    text = page.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_the_ci_workflow_still_uploads_and_reports_when_a_case_fails() -> None:
    # run and merge exit 1 on a failing case, and a failed step skips every step after it
    # unless it says `if: always()`: without it a failing shard never uploads its results
    # (merge then refuses the missing shard) and the report is never written.
    (workflow,) = [yaml.safe_load(b) for b in fenced(ROOT / "docs/integrations/ci.md", "yaml")]
    skipped = []
    for name, job in workflow["jobs"].items():
        steps = job["steps"]
        first = next(i for i, s in enumerate(steps) if s.get("run", "").startswith("agenteval "))
        for step in steps[first + 1 :]:
            if step.get("if") != "always()":
                skipped.append(f"{name}: {step.get('run') or step.get('uses')}")
        if "matrix" in job.get("strategy", {}):
            assert job["strategy"].get("fail-fast") is False, name
    assert skipped == []


# The first line a block prints, as its comment says (`print(run.status, run.exit_code)`).
PRINTS_FIRST = {("docs/integrations/python-api.md", 1): "failed 1"}
PYTHON_EXAMPLES = [
    (page.relative_to(ROOT).as_posix(), number, block)
    for page in sorted((ROOT / "docs").rglob("*.md"))
    for number, block in enumerate(fenced(page, "python"), start=1)
]


@pytest.mark.parametrize(
    ("page", "number", "block"), PYTHON_EXAMPLES, ids=[f"{p}-{n}" for p, n, _ in PYTHON_EXAMPLES]
)
def test_the_python_examples_run(page: str, number: int, block: str, tmp_path: Path) -> None:
    # From a scratch directory holding the shipped inputs, so `output/` lands in it.
    for inputs in ("evalsets", "metrics"):
        (tmp_path / inputs).symlink_to(ROOT / inputs)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    env = {k: v for k, v in env.items() if not k.startswith("GITHUB_")}
    proc = subprocess.run(
        [sys.executable, "-c", block],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"{page} python block {number}:\n{proc.stdout}{proc.stderr}"
    first_line = PRINTS_FIRST.get((page, number))
    if first_line is not None:
        assert f"# {first_line}" in block
        assert proc.stdout.splitlines()[0] == first_line


def test_the_python_examples_are_collected() -> None:
    pages = {page for page, _, _ in PYTHON_EXAMPLES}
    assert {"docs/integrations/python-api.md", "docs/integrations/plugins.md"} <= pages
    assert len(PYTHON_EXAMPLES) >= 5
