"""Fixtures of the store tests: every store test runs on SQLite and on a real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agenteval.store.connection import Store, open_store
from agenteval.store.urls import StoreUrl, parse_store_url


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> StoreUrl:
    """A fresh store URL: a SQLite file, or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return parse_store_url(f"sqlite:///{tmp_path}/history.sqlite", "--store")
    return parse_store_url(request.getfixturevalue("pg_url"), "--store")


@pytest.fixture
def store(store_url: StoreUrl) -> Iterator[Store]:
    """That store, opened for writing (schema created)."""
    opened = open_store(store_url, write=True)
    try:
        yield opened
    finally:
        opened.close()
