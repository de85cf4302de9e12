"""Store URLs: parsed, checked, shown without the password; flag, env and project file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.errors import ConfigError
from agenteval.store.urls import (
    DEFAULT_PATH,
    StoreSetting,
    parse_store_url,
    project_store_setting,
    store_setting,
)


def test_postgres_url_is_shown_without_its_password() -> None:
    url = parse_store_url("postgresql://ci:s3cr%40t@db.example:5433/evals", "--store")
    assert url.backend == "postgresql"
    assert url.url.drivername == "postgresql+psycopg"
    assert url.redacted() == "postgresql://ci:***@db.example:5433/evals"
    assert "s3cr" not in url.redacted()
    # The driver's text is scrubbed of the password in both spellings.
    assert url.scrub("auth s3cr@t failed (s3cr%40t)") == "auth *** failed (***)"


def test_password_in_the_query_is_a_secret_too() -> None:
    url = parse_store_url("postgres://u@/db?host=/tmp/sock&password=hunter2", "$AGENTEVAL_STORE")
    assert url.redacted() == "postgresql://u@/db?host=/tmp/sock&password=***"
    assert url.scrub("hunter2") == "***"


def test_sqlite_paths_relative_absolute_bare_and_read_only(tmp_path: Path) -> None:
    assert parse_store_url("sqlite:///h.sqlite", "x", tmp_path).sqlite_path == tmp_path / "h.sqlite"
    assert parse_store_url("sqlite:////abs/h.sqlite", "x").sqlite_path == Path("/abs/h.sqlite")
    assert parse_store_url("runs/h.sqlite", "x", tmp_path).sqlite_path == tmp_path / "runs/h.sqlite"
    assert parse_store_url("", "--store", tmp_path).sqlite_path == tmp_path / DEFAULT_PATH
    ro = parse_store_url("sqlite:////abs/h.sqlite?mode=ro", "x")
    assert ro.read_only
    assert ro.redacted() == "sqlite:////abs/h.sqlite?mode=ro"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mysql://u:pw@h/db", "--store: unsupported store URL scheme 'mysql'"),
        ("sqlite://", "--store: a SQLite store needs a file"),
        ("sqlite:///h.sqlite?journal=x", "--store: unknown SQLite store parameter 'journal'"),
        ("sqlite:///h.sqlite?mode=rwc", "--store: unknown SQLite mode 'rwc'"),
        ("postgresql://u:topsecret@host", "--store: the PostgreSQL URL names no database"),
    ],
)
def test_bad_urls_are_located_errors_without_the_password(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_store_url(text, "--store")
    assert str(caught.value).startswith(message)
    assert "topsecret" not in str(caught.value)
    assert "pw@" not in str(caught.value)


def test_flag_then_environment_then_project_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.agenteval]\nstore = "sqlite:///team.sqlite"\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    env = {"AGENTEVAL_STORE": "postgresql://u@h/db"}
    assert store_setting("x.sqlite", env, sub) == StoreSetting("x.sqlite", "--store")
    assert store_setting(None, env, sub) == StoreSetting("postgresql://u@h/db", "$AGENTEVAL_STORE")
    found = store_setting(None, {}, sub)
    assert found is not None
    assert found.origin == f"{tmp_path / 'pyproject.toml'}: tool.agenteval.store"
    # Relative to the file that names it, not to where the command runs.
    assert found.parse().sqlite_path == tmp_path / "team.sqlite"


def test_agenteval_toml_top_level_and_no_setting(tmp_path: Path) -> None:
    assert project_store_setting(tmp_path) is None
    (tmp_path / "agenteval.toml").write_text('store = "h.sqlite"\n')
    found = project_store_setting(tmp_path)
    assert found is not None and found.parse().sqlite_path == tmp_path / "h.sqlite"


def test_project_file_with_a_wrong_type_or_bad_toml(tmp_path: Path) -> None:
    (tmp_path / "agenteval.toml").write_text("store = 3\n")
    with pytest.raises(ConfigError, match=r"agenteval.toml: store: must be a string"):
        project_store_setting(tmp_path)
    (tmp_path / "agenteval.toml").write_text("store = \n")
    with pytest.raises(ConfigError, match="cannot read the project settings"):
        project_store_setting(tmp_path)
