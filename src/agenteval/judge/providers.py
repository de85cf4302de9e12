"""The judge providers trpc-agent-go's ``model/provider`` registry knows, as data.

One row per ``providerName``: where its API lives by default, which
environment variables fill an empty ``baseURL``/``apiKey``, how the request
URL is formed from the base URL, and what the API can do (token logprobs,
JSON-schema output).  The backends themselves live in one module each
(:mod:`agenteval.judge.anthropic`, ``gemini``, ``ollama``, ``hunyuan``,
``openai``); this table has no imports of them so settings can use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

LOGPROBS = "token logprobs"
STRUCTURED_OUTPUT = "JSON-schema structured output"


def _join(base: str, path: str) -> str:
    return base.rstrip("/") + path


def _openai_endpoint(base: str, model: str) -> str:
    return (base if base.endswith("/") else base + "/") + "chat/completions"


def _anthropic_endpoint(base: str, model: str) -> str:
    return _join(base, "/v1/messages")


def _gemini_endpoint(base: str, model: str) -> str:
    name = model.removeprefix("models/")
    return _join(base, f"/v1beta/models/{name}:generateContent")


def ollama_host(base: str) -> str:
    """A host the way Go's ``model/ollama`` reads ``OLLAMA_HOST``: scheme optional, port 11434."""
    text = base.strip()
    if text == "ollama.com":
        return "https://ollama.com:443"
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    scheme = parts.scheme or "http"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = 11434 if "://" not in base.strip() else (443 if scheme == "https" else 80)
    host = parts.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}{parts.path.rstrip('/')}"


def _ollama_endpoint(base: str, model: str) -> str:
    return ollama_host(base) + "/api/chat"


def _hunyuan_endpoint(base: str, model: str) -> str:
    # Tencent Cloud API 3.0 takes every action at the service root; a bare host means https.
    url = base.strip() if "://" in base else "https://" + base.strip()
    return url if urlsplit(url).path else url + "/"


@dataclass(frozen=True)
class ProviderInfo:
    """One judge provider: defaults, environment variables, URL shape and capabilities."""

    name: str
    default_base_url: str
    base_url_env: tuple[str, ...]
    key_env: tuple[str, ...]
    capabilities: frozenset[str]
    endpoint_of: Callable[[str, str], str]

    def endpoint(self, base_url: str, model: str) -> str:
        """The URL a judge call to ``model`` is POSTed to."""
        return self.endpoint_of(base_url, model)

    def base_url(self, configured: str, environ: Mapping[str, str]) -> str:
        """The configured base URL, else the first set environment variable, else the default."""
        if configured:
            return configured
        for name in self.base_url_env:
            if environ.get(name):
                return environ[name]
        return self.default_base_url

    def api_key(self, configured: str, environ: Mapping[str, str]) -> str:
        """The configured key, else the first set environment variable (hunyuan: ``id:key``)."""
        if configured and not (self.name == "hunyuan" and not configured.strip(":")):
            # A hunyuan key of just ":" is two unset ${VAR}s: the environment decides.
            return configured
        if self.name == "hunyuan":
            secret_id = environ.get("TENCENTCLOUD_SECRET_ID", "")
            secret_key = environ.get("TENCENTCLOUD_SECRET_KEY", "")
            return f"{secret_id}:{secret_key}" if secret_id and secret_key else ""
        for name in self.key_env:
            if environ.get(name):
                return environ[name]
        return ""


PROVIDERS: dict[str, ProviderInfo] = {
    info.name: info
    for info in (
        ProviderInfo(
            "openai",
            "https://api.openai.com/v1/",
            ("OPENAI_BASE_URL",),
            ("OPENAI_API_KEY",),
            frozenset({LOGPROBS, STRUCTURED_OUTPUT}),
            _openai_endpoint,
        ),
        # anthropic-sdk-go's defaults (the Go provider builds its client with them).
        ProviderInfo(
            "anthropic",
            "https://api.anthropic.com",
            ("ANTHROPIC_BASE_URL",),
            ("ANTHROPIC_API_KEY",),
            frozenset({STRUCTURED_OUTPUT}),
            _anthropic_endpoint,
        ),
        # go-genai's Gemini API backend: GOOGLE_API_KEY wins over GEMINI_API_KEY.
        ProviderInfo(
            "gemini",
            "https://generativelanguage.googleapis.com",
            ("GOOGLE_GEMINI_BASE_URL",),
            ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
            frozenset({LOGPROBS, STRUCTURED_OUTPUT}),
            _gemini_endpoint,
        ),
        # Go's model/ollama: OLLAMA_HOST, else http://localhost:11434; no key locally.
        ProviderInfo(
            "ollama",
            "http://localhost:11434",
            ("OLLAMA_HOST",),
            ("OLLAMA_API_KEY",),
            frozenset({LOGPROBS, STRUCTURED_OUTPUT}),
            _ollama_endpoint,
        ),
        # Go's model/hunyuan client: HunYuanBaseUrl; credentials as "secretId:secretKey".
        ProviderInfo(
            "hunyuan",
            "https://hunyuan.tencentcloudapi.com",
            (),
            ("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY"),
            frozenset(),
            _hunyuan_endpoint,
        ),
    )
}


def provider_info(name: str) -> ProviderInfo | None:
    """The table row of ``name``, or ``None`` for a provider agenteval does not know."""
    return PROVIDERS.get(name)


def missing_capability(provider: str, capability: str) -> bool:
    """Whether a known ``provider`` lacks ``capability`` (unknown providers are reported elsewhere)."""
    info = PROVIDERS.get(provider)
    return info is not None and capability not in info.capabilities
