"""The ``--prices FILE`` format: USD per million tokens for a judge provider and model.

``{"<providerName>:<modelName>": {"inputPerMillion": x, "outputPerMillion": y,
"cachedInputPerMillion": z, "cacheWriteInputPerMillion": w}}``; ``cachedInputPerMillion``
may be left out when the model has no cached-input price (a call that reports cached
tokens then has no known cost), ``cacheWriteInputPerMillion`` likewise for tokens written
to the provider's prompt cache, ``maxPromptTokens`` says the prices hold only up to that prompt size (a
larger prompt has another price, which the table does not know).  The built-in
table (``agenteval/data/prices.json``) holds entries of the same shape.  Unlike the
trpc-agent-go formats, this one is agenteval's own: a key it does not define is an
error, not a warning.

Tested in tests/judge/test_prices.py.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, RootModel, StringConstraints

# "provider:model": the provider name as in judgeModel.providerName, then the model name.
# Neither ends in whitespace: "openai:gpt-4o " names no model a judge resolves to, so its
# price would never be used (the calls "without a price" though a price was given).
PRICE_KEY_PATTERN = r"^[^:\s]+:\S(.*\S)?$"

PerMillion = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class PriceEntry(BaseModel):
    """Prices of one provider's model in USD per million tokens."""

    model_config = ConfigDict(
        extra="forbid", strict=True, populate_by_name=True, alias_generator=None
    )

    input_per_million: PerMillion = Field(alias="inputPerMillion")
    output_per_million: PerMillion = Field(alias="outputPerMillion")
    cached_input_per_million: PerMillion | None = Field(default=None, alias="cachedInputPerMillion")
    max_prompt_tokens: Annotated[int, Field(ge=1)] | None = Field(
        default=None, alias="maxPromptTokens"
    )
    cache_write_input_per_million: PerMillion | None = Field(
        default=None, alias="cacheWriteInputPerMillion"
    )


PriceKey = Annotated[str, StringConstraints(pattern=PRICE_KEY_PATTERN)]


class PriceFile(RootModel[dict[PriceKey, PriceEntry]]):
    """A whole ``--prices`` file: price entries by ``"<providerName>:<modelName>"``."""


__all__ = ["PRICE_KEY_PATTERN", "PriceEntry", "PriceFile"]
