"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_server import JudgeServer


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    """A scripted OpenAI-compatible judge on 127.0.0.1 (see tests/judge_server.py)."""
    with JudgeServer() as server:
        yield server
