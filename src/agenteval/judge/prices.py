"""What a judge call, or a turn of the agent under test, cost in US dollars: a price table.

The built-in table (``agenteval/data/prices.json``) holds list prices in USD per
million input, output and cached-input tokens for models the five providers commonly
serve, with the date it was taken and its sources; ``--prices FILE`` adds entries or
replaces built-in ones (:mod:`agenteval.schema.prices` is its format).  A model is
looked up by ``"<providerName>:<modelName>"`` exactly as the judge model resolves
(no dated-suffix or alias guessing: ``gpt-4o-2024-05-13`` was priced differently from
``gpt-4o``), and a model the table does not name has no price: its calls are counted
as unpriced and every report says so, never a guess.

A call's cost is ``(prompt − cached − cache writes) × input + cached × cached input +
cache writes × cache-write input + completion × output``, divided by a million.  It is
unknown (``None``, with the reason) when the model has no price, when the reply reports
cached tokens and the model has no cached-input price, when it reports prompt-cache
writes and the model has no cache-write price (Anthropic bills them above the input
price, 1.25x or 2x by the cache's lifetime, which usage does not say: the built-in table
holds none, a ``--prices`` entry states the one its agent pays; the judge's requests
never ask for writes), or when the prompt is larger than the entry's ``maxPromptTokens``
(long-context prices differ).  Amounts are
``Decimal``: a run's total is exactly the sum of tokens × prices.

The agent's turns are priced by the same table (:func:`usage_cost`), by the model
their usage names, under the same rules: a turn whose usage reports prompt-cache writes
(``cacheWriteInputTokens``) has no known cost, as a judge reply with them has none.
Under ``--max-judge-cost`` a reply whose cost is unknown is never counted as $0:
:meth:`Price.upper_bound` counts cached tokens without a cached price at the input
price, and with no bound at all the client stops issuing calls.

Tested in tests/judge/test_prices.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.own_formats import strict_problems
from agenteval.judge.backend import UNREPORTED_USAGE, TokenUsage
from agenteval.schema.evalset import Usage
from agenteval.schema.prices import PriceEntry, PriceFile

MILLION = Decimal(1_000_000)
_WORDING = {"key": 'expected "<providerName>:<modelName>", e.g. "openai:gpt-4o"'}
BUILTIN_FILE = "prices.json"
# How a turn whose usage names no model (or several) is listed among the unpriced.
UNNAMED_MODEL = "(no single model named)"
ENTRY_KEYS = (
    "inputPerMillion",
    "outputPerMillion",
    "cachedInputPerMillion",
    "cacheWriteInputPerMillion",
    "maxPromptTokens",
)


def _decimal(value: float) -> Decimal:
    # The shortest text of the float is the number as written in the JSON file.
    return Decimal(repr(value))


@dataclass(frozen=True, slots=True)
class Price:
    """One model's prices in USD per million tokens."""

    input_per_million: Decimal
    output_per_million: Decimal
    cached_input_per_million: Decimal | None = None
    max_prompt_tokens: int | None = None
    cache_write_input_per_million: Decimal | None = None

    @classmethod
    def of(cls, entry: PriceEntry) -> Price:
        """The price a validated file entry states."""
        cached, written = entry.cached_input_per_million, entry.cache_write_input_per_million
        return cls(
            _decimal(entry.input_per_million),
            _decimal(entry.output_per_million),
            None if cached is None else _decimal(cached),
            entry.max_prompt_tokens,
            None if written is None else _decimal(written),
        )

    def cost(self, usage: TokenUsage) -> tuple[Decimal | None, str]:
        """``(USD, "")``, or ``(None, why)`` when this price cannot say what the call cost."""
        if not usage.reported:
            return None, UNREPORTED_USAGE
        prompt, cached, written = (
            usage.prompt_tokens,
            usage.cached_prompt_tokens,
            usage.cache_write_tokens,
        )
        if self.max_prompt_tokens is not None and prompt > self.max_prompt_tokens:
            return None, (
                f"a prompt of {prompt} tokens is beyond the {self.max_prompt_tokens} tokens "
                "its price holds for"
            )
        if written and self.cache_write_input_per_million is None:
            return None, "prompt-cache writes have no price in the table"
        if cached and self.cached_input_per_million is None:
            return None, "cached input tokens have no price in the table"
        return self._amount(usage, self.cached_input_per_million or Decimal(0)), ""

    def upper_bound(self, usage: TokenUsage) -> Decimal | None:
        """The most the call can have cost: cached tokens at the input price when they
        have none (no provider bills cached input above fresh input); None when even
        that is unknown (no usage reported, prompt-cache writes, a prompt beyond
        ``maxPromptTokens``)."""
        if not usage.reported:
            return None
        usd, _ = self.cost(usage)
        unpriced_writes = usage.cache_write_tokens and self.cache_write_input_per_million is None
        if usd is not None or unpriced_writes:
            return usd
        if self.max_prompt_tokens is not None and usage.prompt_tokens > self.max_prompt_tokens:
            return None
        return self._amount(usage, self.input_per_million)

    def _amount(self, usage: TokenUsage, cached_rate: Decimal) -> Decimal:
        cached, written = usage.cached_prompt_tokens, usage.cache_write_tokens
        uncached = max(usage.prompt_tokens - cached - written, 0)
        total = (
            uncached * self.input_per_million
            + cached * cached_rate
            + written * (self.cache_write_input_per_million or Decimal(0))
            + usage.completion_tokens * self.output_per_million
        )
        return total / MILLION


@dataclass(frozen=True, slots=True)
class CallCost:
    """What one judge reply cost: ``usd`` None when unknown, ``key`` the model it names."""

    usd: Decimal | None
    key: str
    why: str = ""


class PriceTable:
    """Prices by ``"<providerName>:<modelName>"``; ``origin`` says where they came from."""

    def __init__(self, prices: Mapping[str, Price], origin: str) -> None:
        self._prices = dict(prices)
        self.origin = origin

    def __len__(self) -> int:
        return len(self._prices)

    def keys(self) -> list[str]:
        """Every priced ``provider:model``, sorted."""
        return sorted(self._prices)

    def lookup(self, provider: str, model: str) -> Price | None:
        """The price of ``model`` served by ``provider``, or None."""
        return self._prices.get(price_key(provider, model))

    def cost(self, provider: str, model: str, usage: TokenUsage) -> CallCost:
        """What a reply with ``usage`` cost, or why that is unknown."""
        key = price_key(provider, model)
        price = self._prices.get(key)
        if price is None:
            return CallCost(None, key, f"no price for {key} in {self.origin}")
        usd, why = price.cost(usage)
        return CallCost(usd, key, f"{key}: {why}" if why else "")

    def relabelled(self, origin: str) -> PriceTable:
        """The same prices under another ``origin``."""
        return PriceTable(self._prices, origin)

    def overridden_by(self, other: PriceTable) -> PriceTable:
        """This table with ``other``'s entries added or replacing its own."""
        return PriceTable({**self._prices, **other._prices}, f"{other.origin} and {self.origin}")


def usage_cost(usage: Usage, prices: PriceTable | None = None) -> CallCost:
    """What an agent turn's ``usage`` cost at ``prices`` (None: the built-in table).

    Its ``model`` must name one ``"<providerName>:<modelName>"``; a turn that names none
    (its calls used several models, or the trace did not say) has no price, and says so;
    so has a turn that wrote to the provider's prompt cache (:meth:`Price.cost`).
    """
    table = builtin_prices() if prices is None else prices
    provider, colon, model = usage.model.partition(":")
    if not colon:
        key = usage.model or UNNAMED_MODEL
        return CallCost(
            None,
            key,
            f'no price for {key}: an agent\'s model is priced as "<providerName>:<modelName>"',
        )
    tokens = TokenUsage(
        usage.input_tokens,
        usage.output_tokens,
        cached_prompt_tokens=usage.cached_input_tokens,
        cache_write_tokens=usage.cache_write_input_tokens,
    )
    return table.cost(provider, model, tokens)


def price_key(provider: str, model: str) -> str:
    """``"<providerName>:<modelName>"``, the key of the table."""
    return f"{provider}:{model}"


def parse_price_file(data: Any, file: str) -> PriceTable:
    """Validate ``--prices`` data; ConfigError lists every located problem."""
    try:
        parsed = PriceFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(strict_problems(file, exc, ENTRY_KEYS, messages=_WORDING)) from None
    prices = {key: Price.of(entry) for key, entry in parsed.root.items()}
    return PriceTable(prices, file)


def load_price_file(path: Path) -> PriceTable:
    """Read a ``--prices FILE``: JSON ``{"provider:model": {...}}``, every problem located."""
    from agenteval.inputs.file_kind import FileKind, first_line_kind, kind_of, wrong_kind_message
    from agenteval.inputs.loading import read_text

    text = read_text(path)
    try:
        data = pydantic_core.from_json(text)
    except ValueError as exc:
        kind = first_line_kind(text)  # JSON lines: a traces or labels file
        if kind is None:
            raise ConfigError([Problem(str(path), "", f"invalid JSON: {exc}")]) from None
    else:
        kind = kind_of(data)
    # A file of another kind is named, not refused key by key ("evalSetId: bad key").
    if kind not in (FileKind.PRICES, FileKind.EMPTY, FileKind.OTHER):
        message, hint = wrong_kind_message("a prices file", kind)
        raise ConfigError([Problem(str(path), "", message, hint)])
    if not isinstance(data, dict):
        raise ConfigError(
            [
                Problem(
                    str(path),
                    "",
                    "expected a JSON object of prices",
                    'e.g. {"openai:gpt-4o": {"inputPerMillion": 2.5, "outputPerMillion": 10}}',
                )
            ]
        )
    from agenteval.inputs.duplicate_keys import own_format_duplicates

    # A price given twice (``"outputPerMillion": 10, "outputPerMillion": 0``) is refused,
    # as any key the format does not take is: the run's cost would rest on the last one.
    repeated: list[Problem] = [*own_format_duplicates(text, str(path))]
    try:
        table = parse_price_file(data, str(path))
    except ConfigError as exc:
        raise ConfigError([*repeated, *exc.problems]) from None
    if repeated:
        raise ConfigError(repeated)
    return table


def builtin_document() -> dict[str, Any]:
    """The shipped table as it is stored: ``takenOn``, ``sources``, ``prices``."""
    text = resources.files("agenteval").joinpath("data", BUILTIN_FILE).read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


@cache
def builtin_prices() -> PriceTable:
    """The shipped price table (validated like a ``--prices`` file)."""
    document = builtin_document()
    table = parse_price_file(document["prices"], f"agenteval/data/{BUILTIN_FILE}")
    return table.relabelled(f"the built-in price table of {document['takenOn']}")


def run_prices(path: Path | None) -> PriceTable:
    """The prices of a run: the built-in table, with ``--prices FILE`` over it."""
    table = builtin_prices()
    return table if path is None else table.overridden_by(load_price_file(path))


__all__ = [
    "UNNAMED_MODEL",
    "CallCost",
    "Price",
    "PriceTable",
    "builtin_document",
    "builtin_prices",
    "load_price_file",
    "parse_price_file",
    "price_key",
    "run_prices",
    "usage_cost",
]
