"""Keys the trpc-agent-go formats do not define, with their JSON location and the likely key meant.

trpc-agent-go ignores unknown keys, so a misspelt one (``tool_calls`` for
``tools``, ``threshhold``) silently changes what a case checks.  Each one is
reported as ``file: json.path: 'key' is not a field of Model (did you mean
'x'?)``.  A key close to one the format defines (a *near miss*, the ``did you
mean`` hint close enough, :func:`is_near_miss`) is an error by default: it is
almost always a typo that would change what is checked.  ``--lenient`` makes near
misses warnings, for files written by other tools.  Any other key is a warning
(ARCHITECTURE §5.10: Go ignores it, so its files keep working), an error with
``--strict``.

The known keys are the pydantic models' aliases (the Python field names that
pydantic would also accept are not keys of the format).  Objects whose models
keep extra keys on purpose are open: the ``criterion`` of a plugin evaluator
and the result objects that carry agenteval's own extras (``judgeUsage``,
``judgeFailures``, ``partial``, ``passAtK``, evaluator details, ...).
"""

from __future__ import annotations

import copy
import difflib
import functools
import marshal
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import SchemaError, SchemaValidator

from agenteval.errors import Problem
from agenteval.inputs import locations
from agenteval.schema.base import Model
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation
from agenteval.schema.metric import Criterion, EvalMetric, LLMCriterion
from agenteval.schema.own_keys import AGENTEVAL_KEYS
from agenteval.schema.result import MetricDetails


@dataclass(frozen=True, slots=True)
class UnknownKey(Problem):
    """A key the format does not define; ``meant`` is the key it most likely meant, or "".

    ``near_miss``: ``meant`` is so close that the key is almost surely a typo of it (an
    error unless ``--lenient``); a looser likeness is only the hint of a warning.
    """

    meant: str = ""
    near_miss: bool = False


# How alike a key and the key it likely meant must be to be a near miss (difflib's ratio
# of the folded names).  Typos score 0.9 and more (threshhold 0.95, reslt 0.91, usrId
# 0.91); keys of one's own that merely share letters with a format key score less
# (version/conversation 0.74, enabled/evalId 0.62), and stay warnings.
_NEAR_RATIO = 0.8
# A shared start this long, covering this much of the shorter key, is a near miss too
# (and so is an abbreviation, :func:`_abbreviates`):
# tool_calls for tools (the issue-12 misspelling that made trajectories pass), evaluator
# for evaluatorName.
_NEAR_PREFIX, _NEAR_PREFIX_SHARE = 4, 0.8


def _fold(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "")


def is_near_miss(key: str, meant: str) -> bool:
    """True when ``key`` is almost surely a misspelling of ``meant`` (see ``_NEAR_RATIO``)."""
    if not meant:
        return False
    if "." in meant:
        return True  # the key of an object one level down (llmJudge.numSamples)
    a, b = _fold(key), _fold(meant)
    if a == b or sorted(a) == sorted(b):  # case, underscores, or swapped letters (nmae)
        return True
    if difflib.SequenceMatcher(None, a, b).ratio() >= _NEAR_RATIO:
        return True
    if _abbreviates(a, b):
        return True
    shorter = min(len(a), len(b))
    shared = next((i for i in range(shorter) if a[i] != b[i]), shorter)
    return shared >= _NEAR_PREFIX and shared >= _NEAR_PREFIX_SHARE * shorter


def _abbreviates(key: str, meant: str) -> bool:
    """``key`` shortens ``meant`` (folded): args for arguments, res for result, response for
    finalResponse.  Such a key reads as absent, and when the reference turns use it too,
    both sides compare equal: a warning would let the comparison pass unnoticed."""
    if len(key) < _ABBREVIATION or len(key) >= len(meant):
        return False
    if meant.startswith(key) or meant.endswith(key):
        return True
    letters = iter(meant)
    return key[0] == meant[0] and all(char in letters for char in key)


# The shortest abbreviation taken for one: two letters (id, to) say too little.
_ABBREVIATION = 3


class Strictness(Enum):
    """How keys the formats do not define are read: ``--strict`` and ``--lenient`` are one
    choice of three, so a pair of flags that may not both be set is one value here."""

    LENIENT = "lenient"  # near misses are warnings too
    DEFAULT = "default"  # near misses are errors, other unknown keys warnings
    STRICT = "strict"  # every unknown key is an error (and a trace of another question)

    @classmethod
    def of(cls, *, strict: bool, lenient: bool) -> Strictness:
        """The value of the two flags (their conflict is refused before planning)."""
        return cls.STRICT if strict else cls.LENIENT if lenient else cls.DEFAULT

    @property
    def strict(self) -> bool:
        """Whether what is a warning by default is an error."""
        return self is Strictness.STRICT


def sort_unknown(
    unknown: Iterable[Problem], strictness: Strictness
) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings): near misses are errors unless lenient, other keys only if strict."""
    errors: list[Problem] = []
    warnings: list[Problem] = []
    near_is_error = strictness is not Strictness.LENIENT
    for problem in unknown:
        near = isinstance(problem, UnknownKey) and problem.near_miss
        (errors if strictness.strict or (near and near_is_error) else warnings).append(problem)
    return errors, warnings


# Model classes shown under the name a user knows from the file.
_DISPLAY = {Criterion: "criterion", LLMCriterion: "llmJudge"}

# Decides whether an object of this model accepts keys it does not define.
OpenModel = Callable[[type[BaseModel]], bool]


def _arms(annotation: Any) -> list[Any]:
    """The non-None types an annotation allows (Annotated and unions unwrapped)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _arms(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [arm for a in get_args(annotation) if a is not type(None) for arm in _arms(a)]
    return [annotation]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    for arm in _arms(annotation):
        if isinstance(arm, type) and issubclass(arm, BaseModel):
            return arm
    return None


def known_keys(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON keys of ``model`` (agenteval's own extras included) and the annotation of each."""
    keys = {(f.alias or name): f.annotation for name, f in model.model_fields.items()}
    keys.update(dict.fromkeys(AGENTEVAL_KEYS.get(model, {}), Any))
    return keys


def closest_key(key: str, model: type[BaseModel]) -> str:
    """The key of ``model`` that ``key`` most likely meant, or "" (hint text, with its path)."""
    keys = known_keys(model)
    folded = {k.lower().replace("_", ""): k for k in keys}
    same = folded.get(key.lower().replace("_", ""))
    if same:
        return same
    close = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.6)
    if close:
        return close[0]
    # One level too high: the key belongs to an object this one holds (llmJudge.numSamples).
    for name, annotation in keys.items():
        child = _model_of(annotation)
        if child is not None and key in known_keys(child):
            return f"{name}.{key}"
    return ""


# What a value must be, compiled once per model field: a model, or a list or dict whose
# items hold a model.  A value that cannot hold a model (a scalar, ``Any``, a list of
# dicts of ``Any``) has no shape (None): the walk never looks into it.
Shape = tuple[str, Any] | None


def _shape(annotation: Any) -> Shape:
    for arm in _arms(annotation):
        if isinstance(arm, type) and issubclass(arm, BaseModel):
            return ("model", arm)
        origin = get_origin(arm)
        if origin is list:
            (inner,) = get_args(arm) or (Any,)
            return _container("list", _shape(inner))
        if origin is dict:
            inner = get_args(arm)[1] if get_args(arm) else Any
            return _container("dict", _shape(inner))
    return None


def _container(kind: str, inner: Shape) -> Shape:
    return None if inner is None else (kind, inner)


# A model's keys and those whose values may hold a model, with their shape.  A plain
# tuple: a dataclass would cost ~3.5 M instructions of start-up to create (valgrind,
# Python 3.11 compiles its methods from source), for one object per model.
_Plan = tuple[frozenset[str], dict[str, tuple[str, Any]]]


@functools.cache
def _plan(model: type[BaseModel]) -> _Plan:
    shapes = {key: _shape(annotation) for key, annotation in known_keys(model).items()}
    return frozenset(shapes), {k: s for k, s in shapes.items() if s is not None}


def _is_mapping(value: Any) -> bool:
    # Parsed JSON holds plain dicts; the ABC check (a Python-level __instancecheck__) is for
    # anything else and cost more than the rest of the walk over a case's values.
    return type(value) is dict or isinstance(value, Mapping)


def _closed(model: type[BaseModel]) -> bool:
    return False


def _defines_all(data: Mapping[str, Any], model: type[BaseModel]) -> bool:
    """Whether ``data`` is an object of ``model`` that holds no other model and defines every
    key (a message, a tool call: most objects of a file): decided in C, without a call of
    ``_Walk.model`` (half of the walk of a result file's case)."""
    known, nested = _plan(model)
    return not nested and data.keys() <= known


class _Walk:
    """One pass over a parsed document against the models that describe it.

    The location is kept as a list of parts and rendered only for a report:
    formatting a path for every value of a large eval set cost more than the walk.
    """

    def __init__(
        self,
        file: str,
        is_open: OpenModel,
        near_only: OpenModel | None = None,
        criteria: set[bytes] | None = None,
    ) -> None:
        self.file = file
        self.is_open = is_open
        # Open models whose keys of their own sit beside the format's: a key that nearly
        # spells a defined one is still reported there (``scroe`` reads as a score of 0).
        self.near_only = near_only or _closed
        # The criteria already walked (marshal keeps 1, 1.0 and true apart): every metric
        # result of a result file repeats its metric's criterion, a third of a case's
        # objects; walking each distinct one once also reports its key once, not per case.
        self.criteria = criteria
        self.problems: list[Problem] = []
        self.parts: list[int | str] = []

    def value(self, value: Any, shape: Shape) -> None:
        if shape is None:
            return
        kind, inner = shape
        parts = self.parts
        if kind == "model":
            if _is_mapping(value):
                self.model(value, inner)
        elif kind == "list":
            if isinstance(value, list) and inner is not None:
                item_kind, item_model = inner
                for index, item in enumerate(value):
                    parts.append(index)
                    if item_kind == "model":  # a list of turns or tool calls: no dispatch
                        if _is_mapping(item) and not _defines_all(item, item_model):
                            self.model(item, item_model)
                    else:
                        self.value(item, inner)
                    parts.pop()
        elif inner is not None and _is_mapping(value):
            for key, item in value.items():
                parts.append(key)
                self.value(item, inner)
                parts.pop()

    def model(self, data: Mapping[str, Any], model: type[BaseModel]) -> None:
        if model is Criterion and self.criteria is not None and type(data) is dict:
            try:
                seen = marshal.dumps(data)
            except ValueError:  # a value marshal cannot write: walked every time
                seen = b""
            if seen in self.criteria:
                return
            if seen:
                self.criteria.add(seen)
        known, nested = _plan(model)
        # An object that can hold no model (a message, a tool call: most objects of a
        # file) is decided by one set operation in C when it defines every key.
        if not nested and data.keys() <= known:
            return
        parts = self.parts
        for key, item in data.items():
            shape = nested.get(key)
            if shape is None:
                if key in known:
                    continue
                if not self.is_open(model):
                    self.report(str(key), model)
                elif self.near_only(model):
                    self.report(str(key), model, near_only=True)
                continue
            parts.append(key)
            if shape[0] == "model":  # a message, a session: no dispatch
                if _is_mapping(item) and not _defines_all(item, shape[1]):
                    self.model(item, shape[1])
            else:
                self.value(item, shape)
            parts.pop()

    def report(self, key: str, model: type[BaseModel], *, near_only: bool = False) -> None:
        meant, near = _meant(key, model)
        if near_only and not near:
            return
        name = _DISPLAY.get(model, model.__name__)
        hint = f"did you mean {meant!r}?" if meant else f"known: {', '.join(known_keys(model))}"
        where = locations.render([*self.parts, key])
        message = f"{key!r} is not a field of {name}"
        self.problems.append(UnknownKey(self.file, where, message, hint, meant, near))

    def document(self, data: Any, model: type[BaseModel], base: list[int | str]) -> None:
        """Walk ``data`` as a ``model`` object found at ``base``."""
        self.parts = list(base)
        self.value(data, ("model", model))


@functools.lru_cache(maxsize=4096)
def _meant(key: str, model: type[BaseModel]) -> tuple[str, bool]:
    """(the key ``key`` most likely meant, whether it is a near miss of it), memoised: an
    extra key of an open object is seen again in every case of a file."""
    meant = closest_key(key, model)
    return meant, is_near_miss(key, meant)


def evalset_unknown_keys(data: Any, file: str) -> list[Problem]:
    """Unknown keys of a parsed eval set file."""
    walk = _Walk(file, _closed)
    walk.document(data, EvalSet, [])
    return walk.problems


def case_unknown_keys(data: Any, file: str, index: int) -> list[Problem]:
    """Unknown keys of entry ``index`` of a parsed eval set's ``evalCases``."""
    walk = _Walk(file, _closed)
    walk.document(data, EvalCase, ["evalCases", index])
    return walk.problems


def closed_case(data: Any) -> tuple[EvalCase, bool]:
    """``data`` validated as an ``EvalCase``, and whether it holds no key the format does not
    define (then :func:`case_unknown_keys` would find none and need not walk it).

    Decided in pydantic's core by a closed twin of the model's validator (every object
    ``extra='forbid'``, keys by their JSON names only): the walk cost ~7 µs of a bench
    case's ~40 µs of checks (bench/adk_side_by_side.py), the twin's validation the same
    as the model's own.  A case the twin refuses is validated as before (its errors are
    the model's) and walked.
    """
    twin = _closed_validator(EvalCase)
    if twin is not None:
        try:
            return twin.validate_python(data), True
        except ValidationError:
            pass
    return EvalCase.model_validate(data), False


def _closing(node: Any, classes: list[type[BaseModel]]) -> Any:
    """``node`` (a copy of a core schema) with every model closed; their classes in ``classes``."""
    if isinstance(node, dict):
        if node.get("type") == "model":
            classes.append(node["cls"])
            node["extra_behavior"] = "forbid"
            node["config"] = {
                **node.get("config", {}),
                "extra_fields_behavior": "forbid",
                "validate_by_name": False,
                "validate_by_alias": True,
            }
        elif node.get("type") == "model-fields":
            node["extra_behavior"] = "forbid"
        for value in node.values():
            _closing(value, classes)
    elif isinstance(node, list):
        for value in node:
            _closing(value, classes)
    return node


@functools.cache
def _closed_validator(model: type[BaseModel]) -> SchemaValidator | None:
    """``model``'s validator with every object closed, building the same instances; None
    when this pydantic-core cannot build one (then every case is walked)."""
    classes: list[type[BaseModel]] = []
    schema = _closing(copy.deepcopy(model.__pydantic_core_schema__), classes)
    # pydantic-core builds a model's validator from its schema only when the class is not
    # complete; else it takes the class's own, which keeps unknown keys out of sight.
    complete = {cls: cls.__dict__.get("__pydantic_complete__") for cls in classes}
    try:
        for cls in complete:
            cls.__pydantic_complete__ = False
        twin = SchemaValidator(schema)
    except SchemaError:  # a pydantic-core that builds no such schema: every case is walked
        return None
    finally:
        for cls, was in complete.items():
            if was is None:
                del cls.__pydantic_complete__  # it was the base class's: so again
            else:
                cls.__pydantic_complete__ = was
    # Proof that it is closed, or it is not used: an unknown key, and a field's Python name.
    for probe in ({"evalIdd": ""}, {"eval_id": ""}):
        try:
            twin.validate_python(probe)
        except ValidationError:
            continue
        return None
    return twin


class _TraceRecord(Model):
    """A ``--traces`` record (inputs/trace_records.py), described for the walk only."""

    model_config = ConfigDict(alias_generator=to_camel)

    eval_id: str = ""
    run_id: int = 1
    actual_conversation: list[Invocation | None] | None = None
    expected_conversation: list[Invocation | None] | None = None
    error_message: str | None = None
    incomplete: bool = False


_DISPLAY[_TraceRecord] = "trace record"


def trace_record_unknown_keys(data: Any, file: str, where: str) -> list[Problem]:
    """Unknown keys of one ``--traces`` record found at ``where`` (``line 7``, ``[3]``)."""
    walk = _Walk(file, _closed)
    walk.document(data, _TraceRecord, [where])
    return walk.problems


def _keeps_extras(model: type[BaseModel]) -> bool:
    return model.model_config.get("extra") == "allow"


def _evaluators_own(model: type[BaseModel]) -> bool:
    # A metric result's details and criterion hold whatever keys its evaluator (a plugin's
    # too) gives them: no key there is a misspelling of ours.
    return model is MetricDetails or model is Criterion or model is LLMCriterion


def _open_in_results(model: type[BaseModel]) -> bool:
    return _keeps_extras(model) or _evaluators_own(model)


def _near_only_in_results(model: type[BaseModel]) -> bool:
    return _keeps_extras(model) and not _evaluators_own(model)


def result_unknown_keys(
    data: Any,
    file: str,
    model: type[BaseModel],
    base: Sequence[int | str],
    criteria: set[bytes] | None = None,
) -> list[Problem]:
    """Unknown keys of one parsed piece of a result file (``model``: its head, a case result
    or a case summary) found at ``base``.

    Result objects keep keys they do not define and write them back (agenteval's run
    state, an evaluator's extras), so in those only a near miss of a defined key is
    reported (``scroe`` reads as a score of 0, ``evalStaus`` as not evaluated); an unknown
    key of a closed object (a turn, a tool call, status counts) is reported as in an
    eval set; an evaluator's details and criterion hold keys of its own.  ``criteria``:
    those walked in the file's earlier pieces, each walked once.
    """
    walk = _Walk(file, _open_in_results, _near_only_in_results, criteria)
    walk.document(data, model, list(base))
    return walk.problems


def metrics_unknown_keys(
    data: Any, file: str, builtin: Callable[[str], bool] = lambda name: True
) -> list[Problem]:
    """Unknown keys of a parsed metric file.

    ``builtin(evaluator)`` says whether a metric's evaluator is built in; the
    ``criterion`` of any other evaluator (a plugin's) may hold keys of its own.
    """
    if not isinstance(data, list):
        return []
    problems: list[Problem] = []
    for index, entry in enumerate(data):
        if not isinstance(entry, Mapping):
            continue
        name = entry.get("evaluatorName") or entry.get("metricName")
        plugin = isinstance(name, str) and bool(name) and not builtin(name)
        walk = _Walk(file, (lambda m: m is Criterion) if plugin else _closed)
        walk.document(entry, EvalMetric, [index])
        problems.extend(walk.problems)
    return problems
