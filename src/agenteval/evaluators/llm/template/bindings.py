"""Template ``variableBindings``: reading, resolving and the judge prompt (llm-evaluators.md §5.8.2).

Each binding names a template variable and a source ``scope.field``:

=========================  ==========================================================
``actual.userContent``     text of the current actual turn's user message
``actual.finalResponse``   text of the current actual turn's final response
``actual.traceStep*``      Input / Output text, Tools, Skills of the **last** step of
                           the current turn's ``executionTrace`` whose ``NodeID``
                           equals ``selector.nodeID`` (see :mod:`.trace`)
``expected.finalResponse`` text of the current expected turn's final response
``metric.rubrics``         the visible rubrics as compact JSON
=========================  ==========================================================

then an optional ``source.path`` (restricted JSONPath, :mod:`.jsonpath`) applied to
that text.  Every error message is Go's, so :class:`TemplateError` texts can
be matched against the spec.  Up-front checks live in :mod:`agenteval.evaluators.checks.judge_template`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.errors import CaseError
from agenteval.evaluators.llm.template import placeholders
from agenteval.evaluators.llm.template.jsonpath import PathError, extract
from agenteval.evaluators.llm.template.trace import (
    TraceError,
    select_step,
    skills_json,
    snapshot_text,
    tools_json,
)
from agenteval.schema.evalset import Invocation, Message
from agenteval.schema.gojson import Struct, encode, go_quote
from agenteval.schema.metric import EvalMetric, Rubric
from agenteval.steps.record import listening

TRACE_FIELDS = ("traceStepInput", "traceStepOutput", "traceStepTools", "traceStepSkills")
SOURCES: Mapping[str, tuple[str, ...]] = {
    "actual": ("userContent", "finalResponse", *TRACE_FIELDS),
    "expected": ("finalResponse",),
    "metric": ("rubrics",),
}
TEMPLATE_PATH = "criterion.llmJudge.template"


class TemplateError(CaseError):
    """The prompt of a turn cannot be built; the message is Go's error text."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a variable's value comes from (``source`` of a binding)."""

    scope: str
    field: str
    node_id: str = ""
    path: str = ""

    @property
    def name(self) -> str:
        """``scope.field`` as error messages spell it."""
        return f"{self.scope}.{self.field}"


@dataclass(frozen=True, slots=True)
class Binding:
    """One ``variableBindings`` entry; ``source`` is None when the file has none."""

    variable: str
    source: Source | None


class BindingFormatError(TemplateError):
    """A template field has the wrong JSON type; ``path`` is relative to the template."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{TEMPLATE_PATH}.{path}: {message}")
        self.path = path
        self.detail = message


def template_options(metric: EvalMetric | None) -> Mapping[str, Any]:
    """``criterion.llmJudge.template``, or Go's error when it is missing."""
    criterion = metric.criterion if metric is not None else None
    if criterion is None or criterion.llm_judge is None:
        raise TemplateError("missing llm judge criterion")
    if criterion.llm_judge.template is None:
        raise TemplateError("template is nil")
    return criterion.llm_judge.template


def text_field(obj: Mapping[str, Any], key: str, path: str) -> str:
    """A string member (``null`` or absent → ``""``); another type is a format error."""
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BindingFormatError(f"{path}{key}", "must be a string")
    return value


def object_field(obj: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
    """An object member (``null`` or absent → None); another type is a format error."""
    value = obj.get(key)
    if value is None or isinstance(value, Mapping):
        return value
    raise BindingFormatError(f"{path}{key}", "must be an object")


def read_source(raw: Mapping[str, Any], path: str) -> Source:
    """A ``source`` object; ``path`` is its location relative to the template, with a dot."""
    selector = object_field(raw, "selector", path)
    node_id = text_field(selector, "nodeID", f"{path}selector.") if selector else ""
    return Source(
        scope=text_field(raw, "scope", path),
        field=text_field(raw, "field", path),
        node_id=node_id,
        path=text_field(raw, "path", path),
    )


def read_bindings(template: Mapping[str, Any]) -> list[Binding | None]:
    """The ``variableBindings`` list in file order; a null entry stays None."""
    raw = template.get("variableBindings")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise BindingFormatError("variableBindings", "must be a list")
    bindings: list[Binding | None] = []
    for index, entry in enumerate(raw):
        path = f"variableBindings[{index}]."
        if entry is None:
            bindings.append(None)
            continue
        if not isinstance(entry, Mapping):
            raise BindingFormatError(path[:-1], "must be an object")
        source = object_field(entry, "source", path)
        bindings.append(
            Binding(
                variable=text_field(entry, "templateVariable", path),
                source=read_source(source, f"{path}source.") if source is not None else None,
            )
        )
    return bindings


def message_text(message: Message | None) -> str:
    """The ``content`` of a message, ``""`` when absent (never trimmed)."""
    return message.content if message is not None else ""


def visible_rubrics(metric: EvalMetric) -> list[Rubric]:
    """The metric's rubrics that have ``content``, in order."""
    llm_judge = metric.criterion.llm_judge if metric.criterion is not None else None
    rubrics = llm_judge.rubrics if llm_judge is not None else None
    return [r for r in rubrics or () if r is not None and r.content is not None]


def rubrics_json(rubrics: Sequence[Rubric]) -> str:
    """Rubrics as ``[{"id","content":{"text"},"description","type"}]``, empty keys omitted."""
    values = []
    for rubric in rubrics:
        text = (rubric.content or {}).get("text")
        content = Struct([("text", text)] if isinstance(text, str) and text else [])
        pairs = [("id", rubric.id), ("content", content)]
        pairs += [("description", rubric.description), ("type", rubric.type)]
        values.append(Struct([(k, v) for k, v in pairs if v != ""]))
    return encode(values)


def _current(invocations: Sequence[Invocation | None], side: str) -> Invocation:
    """The last turn of one side (``actual``/``expected``), with Go's errors when missing."""
    if not invocations:
        raise TemplateError(f"{side}s is empty")
    current = invocations[-1]
    if current is None:
        raise TemplateError(f"{side} invocation is nil")
    return current


def _actual_value(actuals: Sequence[Invocation | None], source: Source) -> str:
    actual = _current(actuals, "actual")
    if source.field == "userContent":
        return message_text(actual.user_content)
    if source.field == "finalResponse":
        return message_text(actual.final_response)
    if source.field not in TRACE_FIELDS:
        raise TemplateError(f"unsupported source {source.name}")
    if not source.node_id:
        raise TemplateError("trace selector nodeID is required")
    index = len(actuals) - 1
    try:
        step = select_step(actual.execution_trace, source.field, source.node_id, index)
        if source.field == "traceStepTools":
            return tools_json(step)
        if source.field == "traceStepSkills":
            return skills_json(step)
        return snapshot_text(step, source.field, source.node_id, index)
    except TraceError as exc:
        raise TemplateError(str(exc)) from None


def _expected_value(expecteds: Sequence[Invocation | None], source: Source) -> str:
    expected = _current(expecteds, "expected")
    if source.field != "finalResponse":
        raise TemplateError(f"unsupported source {source.name}")
    if expected.final_response is None:
        raise TemplateError("expected finalResponse is empty")
    return message_text(expected.final_response)


def _metric_value(metric: EvalMetric | None, source: Source) -> str:
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        raise TemplateError("llm judge criterion is required")
    if source.field != "rubrics":
        raise TemplateError(f"unsupported source {source.name}")
    rubrics = visible_rubrics(metric)
    if not rubrics:
        raise TemplateError("metric rubrics are empty")
    return rubrics_json(rubrics)


def resolve_source(
    source: Source | None,
    actuals: Sequence[Invocation | None],
    expecteds: Sequence[Invocation | None],
    metric: EvalMetric | None,
) -> str:
    """The text a source yields for the current (last) turn, ``path`` applied when set."""
    if source is None:
        raise TemplateError("source is nil")
    if source.scope == "actual":
        value = _actual_value(actuals, source)
    elif source.scope == "expected":
        value = _expected_value(expecteds, source)
    elif source.scope == "metric":
        value = _metric_value(metric, source)
    else:
        raise TemplateError(f"unsupported source {source.name}")
    if not source.path:
        return value
    try:
        return extract(value, source.path)
    except PathError as exc:
        raise TemplateError(exc.message) from None


def resolve_values(
    bindings: Sequence[Binding | None],
    actuals: Sequence[Invocation | None],
    expecteds: Sequence[Invocation | None],
    metric: EvalMetric | None,
) -> dict[str, str]:
    """Every binding's value in list order, used by the prompt or not (Go's order of errors)."""
    values: dict[str, str] = {}
    for binding in bindings:
        if binding is None:
            raise TemplateError("template binding is nil")
        name = binding.variable
        if not name:
            raise TemplateError("templateVariable is empty")
        if name in values:
            raise TemplateError(f"templateVariable {go_quote(name)} is duplicated")
        try:
            values[name] = resolve_source(binding.source, actuals, expecteds, metric)
        except TemplateError as exc:
            raise TemplateError(f"resolve template variable {go_quote(name)}: {exc}") from None
    return values


def build_prompt(
    metric: EvalMetric | None,
    actuals: Sequence[Invocation | None],
    expecteds: Sequence[Invocation | None],
) -> str:
    """The rendered judge prompt for the last turn of the prefix, checks in Go's order."""
    template = template_options(metric)
    if not text_field(template, "prompt", ""):
        raise TemplateError("template prompt is empty")
    if not text_field(template, "responseScorerName", ""):
        raise TemplateError("template responseScorerName is empty")
    bindings = read_bindings(template)
    values = resolve_values(bindings, actuals, expecteds, metric)
    recorder = listening()
    if recorder is not None:
        recorder.add(
            "template.bindings",
            {
                "bindings": [
                    {
                        "variable": binding.variable,
                        "source": binding.source.name,
                        "nodeID": binding.source.node_id,
                        "path": binding.source.path,
                        "value": values[binding.variable],
                    }
                    for binding in bindings
                    if binding is not None and binding.source is not None
                ]
            },
        )
    try:
        return placeholders.render(text_field(template, "prompt", ""), values)
    except placeholders.UnresolvedPlaceholders as exc:
        raise TemplateError(f"render template prompt: {exc}") from None
