"""Store URLs: where a run history lives, parsed, checked and printed without the password.

Accepted (``--store URL``, ``$AGENTEVAL_STORE``, ``store = "…"`` in ``[tool.agenteval]`` of
``pyproject.toml`` or in ``agenteval.toml``; in that order, the first one given wins):

* ``sqlite:///relative/path.sqlite``, ``sqlite:////absolute/path.sqlite`` or a bare file path —
  one machine; ``?mode=ro`` opens it read-only.  A relative path is relative to the working
  directory (to the config file's directory when it comes from one).
* ``postgresql://USER[:PASSWORD]@HOST[:PORT]/DB`` (also ``postgres://``,
  ``postgresql+psycopg://``; ``?host=/socket/dir`` for a Unix socket, and every libpq
  parameter) — a team.  The password may also come from ``$PGPASSWORD`` or ``~/.pgpass``.
* ``--store`` given bare: ``.agenteval/history.sqlite`` in the working directory.

A URL is only ever shown through :meth:`StoreUrl.redacted` (``postgresql://ci:***@db/evals``):
the password is never printed, not in errors, not with ``--verbose``.

Tested in tests/store/test_urls.py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agenteval.errors import ConfigError, Problem

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

STORE_ENV = "AGENTEVAL_STORE"
DEFAULT_PATH = Path(".agenteval") / "history.sqlite"
# What typer hands over for a bare ``--store`` (its flag_value).
BARE = ""
HIDDEN = "***"

_POSTGRES_SCHEMES = {"postgresql", "postgres", "postgresql+psycopg"}
_SQLITE_SCHEMES = {"sqlite", "sqlite+pysqlite"}
_SQLITE_QUERY = {"mode"}
# libpq parameters that hold a secret: shown as *** like the password.
_SECRET_PARAMS = ("password", "sslpassword")
_EXAMPLES = "sqlite:///PATH or postgresql://USER@HOST/DB"


@dataclass(frozen=True, slots=True)
class StoreUrl:
    """A checked store URL: its SQLAlchemy form, the backend, and where it was given."""

    url: URL
    origin: str
    read_only: bool = False

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return "sqlite" if self.url.get_backend_name() == "sqlite" else "postgresql"

    @property
    def sqlite_path(self) -> Path | None:
        """The database file of a SQLite store; None for PostgreSQL."""
        return Path(self.url.database or "") if self.backend == "sqlite" else None

    @property
    def secrets(self) -> list[str]:
        """The URL's password and secret parameters: kept only to scrub them from messages."""
        found = [str(self.url.password or "")]
        for key in _SECRET_PARAMS:
            value = self.url.query.get(key)
            found.extend([value] if isinstance(value, str) else list(value or ()))
        return [secret for secret in found if secret]

    def redacted(self) -> str:
        """The URL as shown to people: ``***`` for a password, the driver name left out."""
        if self.backend == "sqlite":
            text = f"sqlite:///{self.url.database}"
            return text + ("?mode=ro" if self.read_only else "")
        url = self.url
        user = url.username or ""
        if url.password:
            user += ":" + HIDDEN
        host = url.host or ""
        if url.port:
            host += f":{url.port}"
        text = f"postgresql://{user + '@' if user else ''}{host}/{url.database}"
        pairs = []
        for key, value in url.query.items():
            for item in [value] if isinstance(value, str) else value:
                pairs.append(f"{key}={HIDDEN if key in _SECRET_PARAMS else item}")
        return text + ("?" + "&".join(pairs) if pairs else "")

    def scrub(self, text: str) -> str:
        """``text`` with the password and secret parameters (also URL-quoted) replaced by ``***``."""
        from urllib.parse import quote

        for secret in self.secrets:
            for form in {secret, quote(secret, safe="")}:
                text = text.replace(form, HIDDEN)
        return text


def _problem(origin: str, message: str, hint: str = "") -> ConfigError:
    return ConfigError([Problem(origin, "", message, hint)])


def parse_store_url(text: str, origin: str, base: Path | None = None) -> StoreUrl:
    """``text`` as a :class:`StoreUrl`; ConfigError naming ``origin`` when it is not one.

    ``base``: the directory a relative SQLite path is relative to (default: the working
    directory).  The error never repeats a password.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if text == BARE:
        return _sqlite(str(DEFAULT_PATH), origin, base, read_only=False)
    if "://" not in text:
        # A bare path is a SQLite file (the common case on one machine).
        return _sqlite(text, origin, base, read_only=False)
    scheme = text.split("://", 1)[0].lower()
    if scheme in _SQLITE_SCHEMES:
        return _parse_sqlite(text, origin, base)
    if scheme not in _POSTGRES_SCHEMES:
        shown = scheme if scheme.replace("+", "").isalnum() else "?"
        raise _problem(origin, f"unsupported store URL scheme {shown!r}", f"use {_EXAMPLES}")
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        raise _problem(
            origin, "not a valid PostgreSQL URL", "postgresql://USER@HOST:PORT/DB"
        ) from None
    if not url.database:
        raise _problem(origin, "the PostgreSQL URL names no database", "postgresql://USER@HOST/DB")
    return StoreUrl(url.set(drivername="postgresql+psycopg"), origin)


def _parse_sqlite(text: str, origin: str, base: Path | None) -> StoreUrl:
    from urllib.parse import parse_qs, urlsplit

    rest = text.split("://", 1)[1]
    if not rest.startswith("/") or rest in {"/", ""}:
        raise _problem(
            origin,
            "a SQLite store needs a file (an in-memory database keeps nothing)",
            "sqlite:///relative/path.sqlite or sqlite:////absolute/path.sqlite",
        )
    parts = urlsplit("x:" + rest[1:])
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - _SQLITE_QUERY)
    if unknown:
        raise _problem(origin, f"unknown SQLite store parameter {unknown[0]!r}", "only ?mode=ro")
    mode = query.get("mode", ["rw"])[-1]
    if mode not in {"ro", "rw"}:
        raise _problem(
            origin, f"unknown SQLite mode {mode!r}", "?mode=ro opens the store read-only"
        )
    from urllib.parse import unquote

    return _sqlite(unquote(parts.path), origin, base, read_only=mode == "ro")


def _sqlite(path_text: str, origin: str, base: Path | None, *, read_only: bool) -> StoreUrl:
    from sqlalchemy.engine import URL

    if not path_text:
        raise _problem(origin, "a SQLite store needs a file path", _EXAMPLES)
    path = Path(path_text).expanduser()
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    url = URL.create("sqlite+pysqlite", database=str(path))
    return StoreUrl(url, origin, read_only=read_only)


def bare_store_values(argv: list[str]) -> list[str]:
    """``argv`` with a value after every bare ``--store`` (last, or before another option).

    The command-line parser wants a value after an option that takes one; a bare
    ``--store`` means the default file, so it gets :data:`BARE` (``--store ""`` is the
    same thing spelled out).
    """
    out: list[str] = []
    for index, arg in enumerate(argv):
        out.append(arg)
        if arg == "--":
            out.extend(argv[index + 1 :])
            break
        if arg == "--store":
            following = argv[index + 1] if index + 1 < len(argv) else None
            if following is None or (following.startswith("-") and following != "-"):
                out.append(BARE)
    return out


@dataclass(frozen=True, slots=True)
class StoreSetting:
    """Where the store URL came from: its text, its origin (for messages), its base directory."""

    text: str
    origin: str
    base: Path | None = None

    def parse(self) -> StoreUrl:
        """The checked URL (ConfigError naming the origin when it is not one)."""
        return parse_store_url(self.text, self.origin, self.base)


def store_setting(
    flag: str | None, environ: Mapping[str, str] | None = None, cwd: Path | None = None
) -> StoreSetting | None:
    """The store setting in force: ``--store``, then ``$AGENTEVAL_STORE``, then the project file."""
    if flag is not None:
        return StoreSetting(flag, "--store")
    env = os.environ if environ is None else environ
    value = env.get(STORE_ENV)
    if value:
        return StoreSetting(value, f"${STORE_ENV}")
    return project_store_setting(cwd or Path.cwd())


def project_store_setting(start: Path) -> StoreSetting | None:
    """``store`` from the project file in force at ``start`` (config/project.py finds it)."""
    from agenteval.config.project import find_project_file

    project = find_project_file(start)
    if project is None:
        return None
    value = project.table.get("store")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(
            [Problem(str(project.path), project.where("store"), "must be a string (a store URL)")]
        )
    return StoreSetting(value, project.origin("store"), project.directory)


__all__ = [
    "BARE",
    "DEFAULT_PATH",
    "STORE_ENV",
    "StoreSetting",
    "StoreUrl",
    "bare_store_values",
    "parse_store_url",
    "project_store_setting",
    "store_setting",
]
