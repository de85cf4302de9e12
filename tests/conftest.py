"""Shared pytest fixtures, and the one-line notes when Chromium or PostgreSQL is missing."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from chromium import CHROMIUM, CHROMIUM_ARGS
from judge_server import JudgeServer
from postgres_server import SKIP_REASON as NO_POSTGRES
from postgres_server import pg_url, postgres_server  # noqa: F401 - fixtures of the store tests

# The suite starts hundreds of fresh interpreters (agenteval commands, agents, trials); with
# PYTHONDONTWRITEBYTECODE set (some shells and CI images set it) each compiles agenteval's
# modules from source again: a demo run took 0.89 s instead of 0.58 s, which made
# `make test` ~2 min longer on the 2-core machine. Bytecode is a cache, never a result:
# the tests (and xdist's workers, started after this) write it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The reason every browser test is skipped with on a machine without Chromium.
NO_CHROMIUM = f"no Chromium at {CHROMIUM}"


# Modules holding the suite's longest single tests (4-11 s each on the quiet 2-core machine):
# run first, so that under pytest-xdist the workers end on short tests and together,
# not one idle while the other finishes a long one. Whole modules move (their module
# fixtures are built once); the order within a module and of the rest is kept.
LONG_TESTS_FIRST = (
    "tests/test_cli_process.py",
    "tests/integrations/test_pytest_plugin.py",
    "tests/cli/test_readme_examples.py",
    "tests/test_browser_skip.py",
    "tests/agents/test_agent_interrupt.py",
    "tests/cli/test_signal_trials.py",
    "tests/cli/test_store_run.py",
    "tests/evaluators/llm/template/test_jsonpath.py",
    "tests/cli/test_interrupt_resume.py",
    "tests/cli/test_store_history.py",
)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Playwright's driver; without Chromium every test needing it (or ``browser``) is
    skipped by pytest_collection_modifyitems, with one line at the end."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Debian's headless Chromium, one per test module."""
    launched = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield launched
    launched.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of LONG_TESTS_FIRST first; without Chromium, skip the tests that drive it
    (those using the ``playwright`` fixture).

    ``make test`` installs Debian's chromium where it can (root with apt-get); elsewhere these
    tests are skipped and pytest_terminal_summary says so once, not once per test.
    """
    rank = {module: index for index, module in enumerate(LONG_TESTS_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=NO_CHROMIUM)
    for item in items:
        if "playwright" in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line at the end of the run for each kind of test skipped for want of a real part.

    Chromium (the HTML report's browser tests) and PostgreSQL (the run store's tests):
    pytest -q shows a skip as an ``s`` only, so without this line they would go unnoticed.
    """
    skipped = [
        str(getattr(report, "longrepr", "")) for report in terminalreporter.stats.get("skipped", [])
    ]
    browser = sum(NO_CHROMIUM in reason for reason in skipped)
    if browser:
        terminalreporter.write_line(
            f"{browser} browser test{'s' * (browser != 1)} of the HTML report "
            f"skipped: {NO_CHROMIUM} "
            "(`make chromium` installs Debian's chromium; it needs root and apt-get)",
            yellow=True,
            bold=True,
        )
    store = sum(NO_POSTGRES in reason for reason in skipped)
    if store:
        terminalreporter.write_line(
            f"{store} run-store test{'s' * (store != 1)} on PostgreSQL skipped: {NO_POSTGRES}",
            yellow=True,
            bold=True,
        )


@pytest.fixture(autouse=True)
def private_judge_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets its own default judge cache (runs in subprocesses inherit it).

    Without this, every run in the suite would share the repository's
    .agenteval/cache.sqlite and a reply cached by one test would answer another's.
    """
    cache = tmp_path_factory.mktemp("judge-cache") / "cache.sqlite"
    monkeypatch.setenv("AGENTEVAL_CACHE", str(cache))


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    """A scripted OpenAI-compatible judge on 127.0.0.1 (see tests/judge_server.py)."""
    with JudgeServer() as server:
        yield server
