"""Metric config file format (formats.md §3): metrics and their criteria.

Tested in tests/inputs/test_loading.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, PrivateAttr, field_serializer, model_validator
from pydantic.alias_generators import to_camel

from agenteval.schema.base import Bool, Model, NullAs, Str, none_as

_camel = ConfigDict(alias_generator=to_camel)

# The matchStrategy values of a text and a JSON criterion (formats.md §3.3, §3.5): the
# comparisons, the up-front checks and the JSON Schema read them here.
TEXT_STRATEGIES = frozenset({"", "exact", "contains", "regex", "skip"})
JSON_STRATEGIES = frozenset({"", "exact", "skip"})


class LengthCriterion(Model):
    """Bounds on the number of code points of a text (formats.md §3.4)."""

    model_config = _camel

    ignore: Bool = False
    min: int | None = None
    max: int | None = None


class TextCriterion(Model):
    """Text comparison of tool names or final-response text (formats.md §3.3)."""

    model_config = _camel

    ignore: Bool = False
    case_insensitive: Bool = False
    match_strategy: Str = ""
    length: LengthCriterion | None = None
    compare_name: Str = ""


class JSONCriterion(Model):
    """JSON comparison of tool data or final-response JSON (formats.md §3.5)."""

    model_config = _camel

    ignore: Bool = False
    ignore_tree: dict[str, Any] | None = None
    only_tree: dict[str, Any] | None = None
    match_strategy: Str = ""
    number_tolerance: float | None = None
    valid: Bool = False
    schema_: Any = Field(default=None, alias="schema")
    compare_name: Str = ""


class XMLCriterion(Model):
    """XML well-formedness check of the final response (formats.md §3.6)."""

    model_config = _camel

    ignore: Bool = False
    valid: Bool = False
    match_strategy: Str = ""


class RougeThreshold(Model):
    """Minimum precision, recall and F1 of a ROUGE criterion."""

    precision: Annotated[float, NullAs(0.0)] = 0.0
    recall: Annotated[float, NullAs(0.0)] = 0.0
    f1: Annotated[float, NullAs(0.0)] = 0.0


class RougeCriterion(Model):
    """ROUGE comparison of the final response (formats.md §3.7)."""

    model_config = _camel

    ignore: Bool = False
    rouge_type: Str = ""
    measure: Str = ""
    threshold: Annotated[RougeThreshold, none_as(RougeThreshold)] = Field(
        default_factory=RougeThreshold
    )
    use_stemmer: Bool = False
    split_summaries: Bool = False
    tokenizer_name: Str = ""


class FinalResponseCriterion(Model):
    """Final-response comparison (formats.md §3.8)."""

    model_config = _camel

    text: TextCriterion | None = None
    json_: JSONCriterion | None = Field(default=None, alias="json")
    rouge: RougeCriterion | None = None
    xml: XMLCriterion | None = None
    compare_name: Str = ""


class ToolTrajectoryStrategy(Model):
    """How one pair of tool calls is compared; absent parts are not checked (formats.md §3.9)."""

    name: TextCriterion | None = None
    arguments: JSONCriterion | None = None
    result: JSONCriterion | None = None


class ToolTrajectoryCriterion(Model):
    """Tool-call trajectory comparison (formats.md §3.9)."""

    model_config = _camel

    default_strategy: ToolTrajectoryStrategy | None = None
    # A null entry is kept so that validation can report it (formats.md §11-9).
    tool_strategy: dict[str, ToolTrajectoryStrategy | None] | None = None
    order_sensitive: Bool = False
    subset_matching: Bool = False
    compare_name: Str = ""


class Rubric(Model):
    """One metric-level rubric of an LLM judge (formats.md §3.10)."""

    id: Str = ""
    content: dict[str, Any] | None = None
    description: Str = ""
    type: Str = ""


class JudgeModel(Model):
    """Judge model options (llm-evaluators.md §3.1); ``apiKey`` is read but never written.

    Nor is a key in the query or path of ``baseURL``: it is written as ``***``.
    """

    model_config = _camel

    provider_name: Str = ""
    model_name: Str = ""
    variant: Str = ""
    base_url: Str = Field(default="", alias="baseURL")
    api_key: Str = Field(default="", exclude=True)
    extra_fields: dict[str, Any] | None = None
    num_samples: int | None = None
    generation_config: dict[str, Any] | None = None
    # The secrets of ``base_url`` (judge.url_secrets, found by the loader) and (url, the url
    # as shown with them as ***): what result files and run documents hold as baseURL.
    _url_secrets: tuple[str, ...] = PrivateAttr(default=())
    _shown_base_url: tuple[str, str] | None = PrivateAttr(default=None)

    def hide_url_secrets(self, secrets: tuple[str, ...], shown: str) -> None:
        """Record the secrets of ``base_url`` and the URL with them as ``***``."""
        self._url_secrets = secrets
        self._shown_base_url = (self.base_url, shown) if secrets else None

    @property
    def url_secrets(self) -> tuple[str, ...]:
        """The secrets found in ``base_url`` when it was read (empty if none)."""
        return self._url_secrets

    @field_serializer("base_url")
    def _written_base_url(self, value: str) -> str:
        shown = self._shown_base_url
        return shown[1] if shown is not None and shown[0] == value else value


class LLMCriterion(Model):
    """LLM judge criterion (formats.md §3.10); judge evaluators interpret it."""

    model_config = ConfigDict(alias_generator=to_camel, extra="allow")

    rubrics: list[Rubric] | None = None
    judge_model: JudgeModel | None = None
    sample_parallelism_enabled: Bool = False
    sample_parallelism: int | None = None
    template: dict[str, Any] | None = None


class Criterion(Model):
    """Per-evaluator criteria of a metric; extra keys are kept for plugin evaluators."""

    model_config = ConfigDict(alias_generator=to_camel, extra="allow")

    tool_trajectory: ToolTrajectoryCriterion | None = None
    final_response: FinalResponseCriterion | None = None
    llm_judge: LLMCriterion | None = None


class EvalMetric(Model):
    """One metric instance of a metric file (formats.md §3.1)."""

    model_config = _camel

    metric_name: Str = ""
    evaluator_name: Str = ""
    threshold: Annotated[float, NullAs(0.0)] = 0.0
    criterion: Criterion | None = None
    extension: Any = None

    @model_validator(mode="before")
    @classmethod
    def _null_threshold_is_absent(cls, data: Any) -> Any:
        # Null equals absent (formats.md §0.1): a null threshold is a missing one, so it
        # gets the missing threshold's warning instead of passing every score silently.
        if isinstance(data, dict) and "threshold" in data and data["threshold"] is None:
            return {key: value for key, value in data.items() if key != "threshold"}
        return data

    @property
    def evaluator(self) -> str:
        """The evaluator to run: ``evaluatorName``, or the metric name when empty."""
        return self.evaluator_name or self.metric_name
