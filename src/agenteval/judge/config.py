"""Resolved judge settings: a ``judgeModel`` block with every default applied.

llm-evaluators.md §3.1 and §3.3: an empty base URL or API key falls back to
the provider's defaults and environment variables (for openai, the variant's,
inferred from the base URL host when empty: :mod:`agenteval.judge.providers.openai`);
``generationConfig`` defaults apply only when the whole object is absent.
``${ENV}`` expansion is not done here: the loader has already expanded the
five fields (see :mod:`agenteval.inputs.env_expansion`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

from agenteval.inputs.url_secrets import shown_base_url
from agenteval.judge.errors import JudgeConfigError
from agenteval.judge.provider import Connection, provider_spec
from agenteval.schema.metric import JudgeModel


class Secret:
    """A string that never shows itself in ``str``, ``repr`` or f-strings."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret value, for the one place that must send it."""
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return "Secret('***')" if self._value else "Secret('')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling would copy the key to disk or another process: refuse.
        raise TypeError("a Secret cannot be pickled")

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self


@dataclass(frozen=True)
class GenerationConfig:
    """``generationConfig`` (llm-evaluators.md §3.3); ``None`` means "not sent"."""

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stream: bool | None = None
    stop: tuple[str, ...] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    reasoning_effort: str | None = None
    thinking_enabled: bool | None = None
    thinking_tokens: int | None = None
    thinking_level: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> GenerationConfig:
        """Decode a ``generationConfig`` object; ``None`` (absent) gives Go's judge defaults."""
        if data is None:
            return DEFAULT_GENERATION
        values: dict[str, Any] = {}
        for spec in fields(cls):
            raw = data.get(spec.name)
            if raw is not None:
                values[spec.name] = _decode_field(spec.name, raw)
        return cls(**values)


_INT_FIELDS = frozenset({"max_tokens", "top_logprobs", "thinking_tokens"})
_FLOAT_FIELDS = frozenset({"temperature", "top_p", "presence_penalty", "frequency_penalty"})
_BOOL_FIELDS = frozenset({"stream", "logprobs", "thinking_enabled"})
_STR_FIELDS = frozenset({"reasoning_effort", "thinking_level"})


def _decode_field(name: str, raw: Any) -> Any:
    """One generationConfig value with Go's JSON typing (bool is not a number, 1.5 not an int)."""
    where = f"generationConfig.{name}"
    if name in _INT_FIELDS:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise JudgeConfigError(f"{where}: expected an integer, got {_json_type(raw)}")
        return raw
    if name in _FLOAT_FIELDS:
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
            raise JudgeConfigError(f"{where}: expected a number, got {_json_type(raw)}")
        return float(raw)
    if name in _BOOL_FIELDS:
        if not isinstance(raw, bool):
            raise JudgeConfigError(f"{where}: expected true or false, got {_json_type(raw)}")
        return raw
    if name in _STR_FIELDS:
        if not isinstance(raw, str):
            raise JudgeConfigError(f"{where}: expected a string, got {_json_type(raw)}")
        return raw
    # stop: a list of strings; Go decodes a null element as "".
    if not isinstance(raw, list) or not all(s is None or isinstance(s, str) for s in raw):
        raise JudgeConfigError(f"{where}: expected a list of strings, got {_json_type(raw)}")
    return tuple(s or "" for s in raw)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


DEFAULT_GENERATION = GenerationConfig(max_tokens=2000, temperature=0.8, stream=False)


@dataclass(frozen=True)
class JudgeSettings:
    """Everything needed to call one judge model; the API key is held as a :class:`Secret`.

    ``url_secrets`` are the secrets of ``base_url`` (a key in its query or path,
    ``judge.url_secrets``): messages show the URL with them as ``***``, like the key.
    """

    provider: str
    model: str
    variant: str
    base_url: str
    api_key: Secret = field(default_factory=lambda: Secret(""))
    extra_fields: Mapping[str, Any] = field(default_factory=dict)
    generation: GenerationConfig = DEFAULT_GENERATION
    num_samples: int = 1
    url_secrets: tuple[Secret, ...] = ()

    @cached_property
    def endpoint(self) -> str:
        """The request URL, as the provider forms it (an unknown provider's: the base URL)."""
        return self._endpoint(self.base_url)

    @cached_property
    def shown_endpoint(self) -> str:
        """:attr:`endpoint` with the base URL's secrets as ``***`` (messages, cache keys)."""
        if not self.url_secrets:
            return self.endpoint
        secrets = [secret.reveal() for secret in self.url_secrets]
        return self._endpoint(shown_base_url(self.base_url, secrets).shown)

    def _endpoint(self, base_url: str) -> str:
        spec = provider_spec(self.provider)
        return spec.endpoint(base_url, self.model) if spec is not None else base_url

    def secrets(self) -> list[str]:
        """Every credential a message must not show: the API key and the URL's secrets."""
        found = [self.api_key.reveal(), *(secret.reveal() for secret in self.url_secrets)]
        return [secret for secret in found if secret]

    def describe(self) -> str:
        """``provider judge model 'model' at endpoint``, the judge's name in messages."""
        return f"{self.provider} judge model {self.model!r} at {self.shown_endpoint}"

    def __repr__(self) -> str:
        # A traceback may print it: the URL as shown, never the key or the URL's secrets.
        return (
            f"JudgeSettings(provider={self.provider!r}, model={self.model!r}, "
            f"variant={self.variant!r}, endpoint={self.shown_endpoint!r}, "
            f"num_samples={self.num_samples})"
        )

    def __hash__(self) -> int:
        return hash((self.provider, self.model, self.variant, self.base_url, self.api_key))


def resolve_settings(model: JudgeModel, environ: Mapping[str, str] | None = None) -> JudgeSettings:
    """Apply every default of llm-evaluators.md §3.1/§3.3 to an (already expanded) judgeModel.

    The provider's registry entry fills an empty base URL and key from its
    environment variables and defaults; an unknown provider's values stay as
    given and the client refuses it.
    """
    env = os.environ if environ is None else environ
    configured = Connection(model.variant, model.base_url, model.api_key)
    spec = provider_spec(model.provider_name)
    found = spec.connection(configured, env) if spec is not None else configured
    return JudgeSettings(
        provider=model.provider_name,
        model=model.model_name,
        variant=found.variant,
        base_url=found.base_url,
        api_key=Secret(found.api_key),
        extra_fields=dict(model.extra_fields or {}),
        generation=GenerationConfig.from_json(model.generation_config),
        num_samples=1 if model.num_samples is None else model.num_samples,
        url_secrets=_url_secrets(found.base_url, model),
    )


def _url_secrets(base_url: str, model: JudgeModel) -> tuple[Secret, ...]:
    """The base URL's secrets: ``${VAR}`` values found on reading, credential query values."""
    found = shown_base_url(base_url, model.url_secrets).secrets
    return tuple(Secret(secret) for secret in found)
