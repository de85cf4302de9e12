"""Shared base model for every file-format object.

Reading follows formats.md §0.1: unknown keys are ignored and ``null`` equals
absent.  Writing (``dump``) keeps exactly the fields that were read from a file
or set by our code, minus ``None``: so a loaded file round-trips, our results
carry explicit zeros where the runner sets a number (ARCHITECTURE §5.4), and
fields nobody set stay out like Go's "omit empty" ones.  Doing this in
pydantic's core keeps large result files fast to write.

Tested in tests/report/test_result_files.py.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    SerializerFunctionWrapHandler,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def none_as(default: Any) -> BeforeValidator:
    """A validator that reads JSON null as ``default`` (a value or a factory)."""

    def convert(value: Any) -> Any:
        if value is None:
            return default() if callable(default) else default
        return value

    return BeforeValidator(convert)


# The error a scalar's own validator raises, kept as the only error of the null-or-value union.
_SCALAR_ERRORS = {str: "string_type", bool: "bool_type", int: "int_type", float: "float_type"}


class NullAs:
    """A scalar where JSON null reads as ``default``, decided in pydantic's core.

    ``none_as`` calls a Python function for every value read; a case of the bench
    (``bench/adk_side_by_side.py``) read ~90 such values per case, twice (checks, then
    the run), and the results built ~30 more.  Here the value is tried as the scalar
    first and only a null reaches Python: a model of four such fields validated in
    3.4 µs instead of 6.5 µs.  Errors, their locations and the JSON schema are the
    scalar's own, as with ``none_as``.
    """

    def __init__(self, default: str | bool | int | float) -> None:
        self.default = default

    def __get_pydantic_core_schema__(
        self, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        inner = handler(source)
        default = self.default
        null = core_schema.chain_schema(
            [
                core_schema.none_schema(),
                core_schema.no_info_plain_validator_function(lambda _: default),
            ]
        )
        return core_schema.union_schema(
            [inner, null],
            mode="left_to_right",
            custom_error_type=_SCALAR_ERRORS[source],
            serialization=inner.get("serialization")
            or core_schema.simple_ser_schema(inner["type"]),
        )

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(schema["choices"][0])


# Scalars where JSON null means the zero value (formats.md §0.1.2).
Str = Annotated[str, NullAs("")]
Bool = Annotated[bool, NullAs(False)]


class Model(BaseModel):
    """Base for format models: camelCase aliases, tolerant reading, omit-empty writing."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="ignore",
        strict=True,
        frozen=False,
        arbitrary_types_allowed=False,
    )


def builder(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """``cls``'s validator as a function of a field dict: ``cls(**fields)``, validated alike.

    It skips the Python frame of ``BaseModel.__init__``, about a quarter of the cost of
    building a small model; hot loops that build hundreds of thousands of result objects
    use it.  The fields set are the keys given, exactly as with keyword arguments.
    """
    return cast(Callable[[dict[str, Any]], M], cls.__pydantic_validator__.validate_python)


# During one dump: id → (object, its serialised data) for sub-models that many parents share.
DumpMemo = dict[int, tuple[object, Any]]
_dumped: ContextVar[DumpMemo | None] = ContextVar("_dumped", default=None)


def once_per_dump(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    """Wrap serializer: a sub-model shared by many parents is serialised once per dump.

    Every metric result of a run repeats its metric's criterion, a tree of a dozen
    small models; serialising that tree again for each of thousands of results was a
    third of the time of writing a result file.  The memo lives only while one
    ``dump_json`` call runs, so nothing can change or free the shared object
    in between, and every other serialisation calls the handler as usual.  Only text
    output uses it (``dump_json``): in plain data the parents would share one dict.
    """
    memo = _dumped.get()
    if memo is None or value is None:
        return handler(value)
    seen = memo.get(id(value))
    if seen is not None:
        return seen[1]
    data = handler(value)
    memo[id(value)] = (value, data)
    return data


def dump(model: BaseModel) -> dict[str, Any]:
    """Serialise a format model to plain JSON data with its file keys."""
    # No memo here: callers may edit the data, so no two places may share one dict.
    result: dict[str, Any] = model.model_dump(
        mode="json", by_alias=True, exclude_unset=True, exclude_none=True
    )
    return result


def dump_json(model: BaseModel) -> str:
    """Serialise a format model straight to indented JSON text (same keys as ``dump``)."""
    return dump_json_bytes(model).decode("utf-8")


# A memo shared by the dumps of one document outgrows this many sub-models only when its
# results carry their own (a case's rubrics): it then starts again, so it stays small.
_MEMO_KEEP = 64


def dump_json_bytes(model: BaseModel, memo: DumpMemo | None = None) -> bytes:
    """``dump_json`` as the UTF-8 bytes pydantic's core writes, for files: no str round trip.

    ``memo``: shared by every dump of one document (a result file's cases), so a sub-model
    that all of them share (their metric's criterion) is serialised once per document, not
    once per case: ~6 µs of a bench case's ~30 µs (bench/adk_side_by_side.py).  The memo
    holds each sub-model it saw, so no other object can take its id while it lives; a
    criterion is read-only once the run has started (the metric file's, or a case's copy).
    """
    if memo is None:
        memo = {}
    elif len(memo) > _MEMO_KEEP:
        memo.clear()
    token = _dumped.set(memo)
    try:
        return model.__pydantic_serializer__.to_json(
            model, indent=2, by_alias=True, exclude_unset=True, exclude_none=True
        )
    finally:
        _dumped.reset(token)
