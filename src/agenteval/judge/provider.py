"""What a judge provider is, and the one table of them: ``providerName`` → :class:`ProviderSpec`.

A provider is one registry entry: where its API lives by default, which
environment variables fill an empty ``baseURL``/``apiKey``, how the request
URL is formed from the base URL, what the API can do (token logprobs,
JSON-schema output) and the backend that speaks it.  The built-in providers
(trpc-agent-go's ``model/provider`` registry: openai, anthropic, gemini,
ollama, hunyuan) are one module each under :mod:`agenteval.judge.providers`
and register themselves with :func:`register_judge_provider`, exactly as a
plugin's provider does (``agenteval.plugins`` re-exports it).  This module
imports no provider: settings, checks and the client look providers up here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from agenteval.registry import Registry

if TYPE_CHECKING:
    import httpx

    from agenteval.judge.backend import JudgeBackend
    from agenteval.judge.config import JudgeSettings

LOGPROBS = "token logprobs"
STRUCTURED_OUTPUT = "JSON-schema structured output"

B = TypeVar("B")


@dataclass(frozen=True)
class Connection:
    """Where and as whom a judge model is called: variant, base URL and API key."""

    variant: str
    base_url: str
    api_key: str


# (settings, the run's shared HTTP client or None offline) -> the backend of one judge model.
BackendFactory = Callable[["JudgeSettings", "httpx.AsyncClient | None"], "JudgeBackend"]


def base_url_as_endpoint(base_url: str, model: str) -> str:
    """The default URL shape: every call is POSTed to the base URL itself."""
    return base_url


def default_connection(
    spec: ProviderSpec, configured: Connection, environ: Mapping[str, str]
) -> Connection:
    """Configured values, else the first set environment variable, else the spec's default."""
    return Connection(
        configured.variant,
        spec.base_url(configured.base_url, environ),
        spec.api_key(configured.api_key, environ),
    )


@dataclass(frozen=True)
class ProviderSpec:
    """One judge provider: defaults, environment variables, URL shape, capabilities, backend."""

    name: str
    backend: BackendFactory
    endpoint_of: Callable[[str, str], str] = base_url_as_endpoint
    default_base_url: str = ""
    base_url_env: tuple[str, ...] = ()
    key_env: tuple[str, ...] = ()
    capabilities: frozenset[str] = frozenset()
    # How the configured variant, base URL and key become the ones called (openai: variants).
    connect: Callable[[ProviderSpec, Connection, Mapping[str, str]], Connection] = (
        default_connection
    )

    def endpoint(self, base_url: str, model: str) -> str:
        """The URL a judge call to ``model`` is POSTed to."""
        return self.endpoint_of(base_url, model)

    def connection(self, configured: Connection, environ: Mapping[str, str]) -> Connection:
        """The variant, base URL and key a call uses, defaults and environment applied."""
        return self.connect(self, configured, environ)

    def base_url(self, configured: str, environ: Mapping[str, str]) -> str:
        """The configured base URL, else the first set environment variable, else the default."""
        return configured or _first_set(self.base_url_env, environ) or self.default_base_url

    def api_key(self, configured: str, environ: Mapping[str, str]) -> str:
        """The configured key, else the first set environment variable."""
        return configured or _first_set(self.key_env, environ)


def _first_set(names: Iterable[str], environ: Mapping[str, str]) -> str:
    for name in names:
        if environ.get(name):
            return environ[name]
    return ""


class ProviderRegistry(Registry[ProviderSpec]):
    """The provider table, which runs a loader (the built-in providers') before its first use.

    ``agenteval.judge`` sets the loader: the built-ins import the HTTP stack, which a
    run without a judge metric never needs, yet every lookup and every registration
    (a plugin's provider replaces a built-in one) sees them registered first.
    """

    def __init__(self, kind: str) -> None:
        self._loader: Callable[[], None] | None = None
        super().__init__(kind)

    def load_first(self, loader: Callable[[], None]) -> None:
        """Run ``loader`` once, just before the table is first read or written."""
        self._loader = loader

    @property
    def _items(self) -> dict[str, ProviderSpec]:
        loader = self._loader
        if loader is not None:
            self._loader = None  # the loader's own registrations read the table too
            loader()
        return self._table

    @_items.setter
    def _items(self, table: dict[str, ProviderSpec]) -> None:
        self._table = table


judge_providers: ProviderRegistry = ProviderRegistry("judge provider")


def register_judge_provider(
    name: str,
    *,
    endpoint: Callable[[str, str], str] = base_url_as_endpoint,
    default_base_url: str = "",
    base_url_env: Iterable[str] = (),
    key_env: Iterable[str] = (),
    capabilities: Iterable[str] = (),
    connect: Callable[[ProviderSpec, Connection, Mapping[str, str]], Connection] = (
        default_connection
    ),
) -> Callable[[B], B]:
    """Class decorator: register the decorated backend as ``providerName: name``.

    The backend (a class or factory called with the resolved ``JudgeSettings``
    and the run's ``httpx.AsyncClient``) implements ``JudgeBackend``; deriving
    from :class:`agenteval.judge.wire.JsonJudgeBackend` leaves only the body
    and reply decoding to write (and the key's header, unless a bearer token).  A later registration of the same name
    replaces the earlier one (a plugin may override a built-in provider).
    """

    def decorate(backend: B) -> B:
        spec = ProviderSpec(
            name=name,
            backend=backend,  # type: ignore[arg-type]  # the caller's promise, as for any registry
            endpoint_of=endpoint,
            default_base_url=default_base_url,
            base_url_env=tuple(base_url_env),
            key_env=tuple(key_env),
            capabilities=frozenset(capabilities),
            connect=connect,
        )
        judge_providers.register(name, spec)
        return backend

    return decorate


def provider_spec(name: str) -> ProviderSpec | None:
    """The registry entry of ``name``, or ``None`` for a provider nobody registered."""
    return judge_providers.get(name)


def missing_capability(provider: str, capability: str) -> bool:
    """Whether a registered ``provider`` lacks ``capability`` (unknown ones are reported elsewhere)."""
    spec = judge_providers.get(provider)
    return spec is not None and capability not in spec.capabilities


def providers_with(capability: str) -> list[str]:
    """Names of the registered providers that have ``capability``, sorted."""
    return [spec.name for spec in judge_providers.all() if capability in spec.capabilities]
