"""JSON Schemas (draft 2020-12) of the file kinds, generated from the pydantic models.

``agenteval schema KIND`` prints them; the same text ships in the package
(``agenteval/data/KIND.schema.json``) and in the repository's ``schemas/``.
Editors given the eval set schema (``"$schema"``) complete keys and flag the
ones the format does not define.

The generated schema says what trpc-agent-go reads: ``null`` is accepted
wherever a value is (Go reads it as the zero value), objects take no keys
beyond their fields, except those whose models keep extra keys on purpose
(a ``criterion`` of a plugin evaluator, result objects with agenteval's
extras), and agenteval's own keys (:data:`agenteval.schema.own_keys.AGENTEVAL_KEYS`) are fields too.
Values the up-front checks refuse whatever the evaluator (an unknown ``matchStrategy`` or
``evalMode``, a negative length bound or ``numberTolerance``) are refused too, except in a
criterion with ``"ignore": true``, which is not checked.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, TypeAdapter

from agenteval.schema.evalset import EVAL_MODES, EvalCase, EvalSet
from agenteval.schema.labels import LabelLine
from agenteval.schema.metric import (
    JSON_STRATEGIES,
    TEXT_STRATEGIES,
    EvalMetric,
    JSONCriterion,
    LengthCriterion,
    LLMCriterion,
    TextCriterion,
)
from agenteval.schema.own_keys import AGENTEVAL_KEYS
from agenteval.schema.prices import PriceFile
from agenteval.schema.result import EvalSetResult
from agenteval.schema.run_document import RunDocument

DRAFT = "https://json-schema.org/draft/2020-12/schema"
KINDS = ("evalset", "metrics", "result", "run", "prices", "labels")
# agenteval's own formats: no null for a missing value, no key beyond the defined ones.
OWN_KINDS = frozenset({"prices", "labels"})

# Models that keep unknown keys on a round-trip, yet whose keys the format fixes.
_CLOSED: frozenset[type[BaseModel]] = frozenset({LLMCriterion})

_TARGETS: dict[str, Any] = {
    "evalset": EvalSet,
    "metrics": list[EvalMetric],
    "result": EvalSetResult,
    "run": RunDocument,
    "prices": PriceFile,
    "labels": LabelLine,
}
_NOT_NEGATIVE = {"minimum": 0}
# Values each reader of the file refuses up front (evaluators/checks/criteria.py,
# inputs/evalset_file.py); null stays what it is everywhere, the zero value.
_VALUES: dict[type[BaseModel], dict[str, dict[str, Any]]] = {
    TextCriterion: {"matchStrategy": {"enum": [*sorted(TEXT_STRATEGIES), None]}},
    JSONCriterion: {
        "matchStrategy": {"enum": [*sorted(JSON_STRATEGIES), None]},
        "numberTolerance": _NOT_NEGATIVE,
    },
    LengthCriterion: {"min": _NOT_NEGATIVE, "max": _NOT_NEGATIVE},
    EvalCase: {"evalMode": {"enum": [*EVAL_MODES, None]}},
}
_INPUT_KINDS = frozenset({"evalset", "metrics"})
_IGNORED = {"properties": {"ignore": {"const": True}}, "required": ["ignore"]}
# Result files keep trpc-agent-go's status values (ARCHITECTURE §4).
_FILE_STATUSES = ["passed", "failed", "not_evaluated", "unknown"]
_TITLES = {
    "evalset": "agenteval / trpc-agent-go eval set",
    "metrics": "agenteval / trpc-agent-go metric file",
    "result": "agenteval / trpc-agent-go eval set result",
    "run": "agenteval --json run document",
    "prices": "agenteval --prices file (USD per million judge and agent tokens)",
    "labels": "agenteval calibrate --labels line (one JSONL line or CSV row)",
}


def _models(root: Any) -> dict[str, type[BaseModel]]:
    """Every model class reachable from ``root``'s fields, by class name."""
    found: dict[str, type[BaseModel]] = {}
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, type) and issubclass(item, BaseModel):
            if item.__name__ in found:
                continue
            found[item.__name__] = item
            stack.extend(f.annotation for f in item.model_fields.values())
        else:
            stack.extend(getattr(item, "__args__", ()))
    return found


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    if prop.get("type") == "null" or {"type": "null"} in prop.get("anyOf", []):
        return prop
    if not prop or prop == {"default": None}:
        return prop  # any value
    meta: dict[str, Any] = {k: prop[k] for k in ("default", "description") if k in prop}
    core = {k: v for k, v in prop.items() if k not in meta}
    return {"anyOf": [core, {"type": "null"}], **meta}


def _shape(definition: dict[str, Any], model: type[BaseModel], inputs: bool) -> None:
    """``inputs``: the schema of a run's input file, whose values are checked up front (a
    result file keeps whatever criterion the run was given)."""
    properties = definition.setdefault("properties", {})
    for key, extra_schema in AGENTEVAL_KEYS.get(model, {}).items():
        properties[key] = extra_schema
    for key, prop in list(properties.items()):
        # pydantic titles a property after its Python name ("Evalid"): noise in an editor.
        prop.pop("title", None)
        properties[key] = _nullable(prop)
    if model.model_config.get("extra") != "allow" or model in _CLOSED:
        definition["additionalProperties"] = False
    values = _VALUES.get(model) if inputs else None
    if values is not None:
        checked = {"properties": values}
        if "ignore" in model.model_fields:
            definition.update({"if": _IGNORED, "else": checked})
        else:
            definition["allOf"] = [checked]


def json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of ``kind`` (one of :data:`KINDS`)."""
    target = _TARGETS[kind]
    schema: dict[str, Any] = TypeAdapter(target).json_schema(by_alias=True, mode="validation")
    if kind in OWN_KINDS:
        # Pydantic's schema is already exact (extra keys forbidden, no null beyond the optional).
        for definition in [schema, *schema.get("$defs", {}).values()]:
            for prop in definition.get("properties", {}).values():
                prop.pop("title", None)
        if "patternProperties" in schema:
            schema["additionalProperties"] = False  # a key the pattern refuses is an error
        rest = {k: v for k, v in schema.items() if k != "title"}
        return {"$schema": DRAFT, "title": _TITLES[kind], **rest}
    models = _models(target)
    definitions: dict[str, Any] = schema.get("$defs", {})
    for name, definition in definitions.items():
        if name in models:
            _shape(definition, models[name], kind in _INPUT_KINDS)
        elif name == "EvalStatus":
            definition["enum"] = list(_FILE_STATUSES)
    if isinstance(target, type) and target.__name__ in models:
        _shape(schema, models[target.__name__], kind in _INPUT_KINDS)
    rest = {k: v for k, v in schema.items() if k != "title"}
    return {"$schema": DRAFT, "title": _TITLES[kind], **rest}


def json_schema_text(kind: str) -> str:
    """``json_schema(kind)`` as the indented text that ships in files."""
    return json.dumps(json_schema(kind), indent=2, ensure_ascii=False) + "\n"
