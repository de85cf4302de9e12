"""The secrets a judge base URL may hold, and the URL as agenteval shows and writes it.

A key belongs in ``apiKey``, which is never written; yet some endpoints take it in the
query (``?key=${GEMINI_API_KEY}``) and gateways in the path (``/v1/${TOKEN}/``).  The
base URL is echoed in every result file (the metric's ``criterion``) and named in judge
messages, so its secrets are found once and shown as ``***`` everywhere, as the API
key is on the console:

* a value ``${VAR}`` expansion put into the path, query or fragment (a variable that
  only names the host, or the whole URL, stays visible);
* the value of a query parameter whose name says it is a credential (``key``,
  ``api_key``, ``token``, ``sig``, ``password``, ...), however it got there.

Credentials in the authority (``https://user:password@host``) are a configuration
error instead (:func:`credentials_issue`): httpx would send them as a second
``Authorization`` header, and no message could show that URL.

Tested in tests/inputs/test_url_secrets.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from agenteval.inputs.env_expansion import expand_env_spans

MASK = "***"

# Query parameter names that hold a credential (matched anywhere in the name).
_SECRET_NAME = re.compile(r"key|token|secret|sig|passw|pwd|auth|credential|session", re.I)


@dataclass(frozen=True, slots=True)
class BaseURL:
    """A base URL to call, the same URL with its secrets as ``***``, and the secrets."""

    url: str
    shown: str
    secrets: tuple[str, ...] = ()


def expand_base_url(template: str, environ: Mapping[str, str]) -> BaseURL:
    """``template`` with ``${VAR}`` expanded, and its secrets (see the module docstring)."""
    url, spans = expand_env_spans(template, environ)
    return _found(url, spans)


def shown_base_url(url: str, secrets: Iterable[str] = ()) -> BaseURL:
    """``url`` (already expanded) with ``secrets`` and credential query values as ``***``.

    ``secrets`` are values known to be secret (found when the metric file was read); they
    are hidden wherever they occur past the host.
    """
    start = _path_start(url)
    spans: list[tuple[int, int]] = []
    for secret in secrets:
        at = url.find(secret, start) if secret else -1
        while at != -1:
            spans.append((at, at + len(secret)))
            at = url.find(secret, at + len(secret))
    return _found(url, spans)


def credentials_issue(url: str) -> str:
    """Why ``url`` cannot be used when it holds ``user:password@`` credentials, else ""."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if "@" not in parts.netloc:
        return ""
    return "the base URL holds credentials (user:password@host), which would be sent and shown"


def _path_start(url: str) -> int:
    """Where the path begins: past ``scheme://authority`` (0 when the URL has none)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return 0
    if not parts.netloc:
        return 0
    authority = url.find("//") + 2
    return authority + len(parts.netloc)


def _query_spans(url: str, start: int) -> list[tuple[int, int]]:
    """Spans of the values of credential-named query parameters."""
    question = url.find("?", start)
    if question == -1:
        return []
    end = url.find("#", question)
    end = len(url) if end == -1 else end
    spans: list[tuple[int, int]] = []
    at = question + 1
    while at < end:
        stop = url.find("&", at, end)
        stop = end if stop == -1 else stop
        name, equals, value = url[at:stop].partition("=")
        if equals and value and _SECRET_NAME.search(unquote(name)):
            value_start = at + len(name) + 1
            spans.append((value_start, stop))
        at = stop + 1
    return spans


def _found(url: str, substituted: list[tuple[int, int]]) -> BaseURL:
    """``url`` with the substituted spans past the host and credential query values hidden."""
    start = _path_start(url)
    spans = [(a, b) for a, b in substituted if a >= start and b > a]
    spans += _query_spans(url, start)
    if not spans:
        return BaseURL(url, url)
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    secrets: list[str] = []
    shown = url
    for a, b in reversed(merged):
        secret = url[a:b]
        secrets.append(secret)
        if unquote(secret) != secret:
            secrets.append(unquote(secret))  # a message may show it decoded
        shown = shown[:a] + MASK + shown[b:]
    return BaseURL(url, shown, tuple(dict.fromkeys(secrets)))
