"""The labels file of ``agenteval calibrate``: one human verdict per JSONL line or CSV row.

Its JSON Schema is published like the other formats' (``agenteval schema labels``); the
reader and its located errors are calibrate/labels.py.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

KEYS = (
    "evalSetId",
    "evalId",
    "metricName",
    "invocationId",
    "rubricId",
    "runId",
    "label",
    "score",
    "category",
)
NonEmpty = Annotated[str, Field(min_length=1)]


class LabelLine(BaseModel):
    """One human verdict on one scored item (a case, a turn or a rubric of a metric)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        populate_by_name=True,
        # Exactly one verdict (checked by _one_verdict; said so to editors too).
        json_schema_extra={"oneOf": [{"required": [k]} for k in ("label", "score", "category")]},
    )

    eval_set_id: NonEmpty = Field(alias="evalSetId")
    eval_id: NonEmpty = Field(alias="evalId")
    metric_name: NonEmpty = Field(alias="metricName")
    invocation_id: NonEmpty | None = Field(default=None, alias="invocationId")
    rubric_id: NonEmpty | None = Field(default=None, alias="rubricId")
    run_id: Annotated[int, Field(ge=1)] | None = Field(default=None, alias="runId")
    label: Literal["pass", "fail"] | None = None
    score: Annotated[float, Field(allow_inf_nan=False)] | None = None
    category: NonEmpty | None = None

    @model_validator(mode="after")
    def _one_verdict(self) -> LabelLine:
        given = [k for k in ("label", "score", "category") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of label (pass|fail), score or category, got "
                + (", ".join(given) if given else "none")
            )
        return self


__all__ = ["KEYS", "LabelLine"]
