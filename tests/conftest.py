"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_server import JudgeServer
from postgres_server import pg_url, postgres_server  # noqa: F401 - fixtures of the store tests


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
