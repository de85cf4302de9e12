"""Shared base model for every file-format object.

Reading follows formats.md §0.1: unknown keys are ignored and ``null`` equals
absent.  Writing follows §0.2 loosely: empty values are omitted ("omit
empty"), except the keys a class lists in ``_always`` and free-form JSON
fields listed in ``_raw`` (where ``{}`` differs from absent).  Numbers are
never dropped when set: agenteval writes explicit zeros (ARCHITECTURE §5.4).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, model_serializer
from pydantic.functional_serializers import SerializerFunctionWrapHandler

T = TypeVar("T")


def none_as(default: Any) -> BeforeValidator:
    """A validator that reads JSON null as ``default`` (a value or a factory)."""

    def convert(value: Any) -> Any:
        if value is None:
            return default() if callable(default) else default
        return value

    return BeforeValidator(convert)


# Scalars where JSON null means the zero value (formats.md §0.1.2).
Str = Annotated[str, none_as("")]
Bool = Annotated[bool, none_as(False)]


class Model(BaseModel):
    """Base for format models: camelCase aliases, tolerant reading, omit-empty writing."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="ignore",
        strict=True,
        frozen=False,
        arbitrary_types_allowed=False,
    )

    # Keys written even when empty (formats.md §0.2 "never omitted").
    _always: ClassVar[frozenset[str]] = frozenset()
    # Free-form JSON values: only None is omitted, "{}" and "[]" are kept.
    _raw: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        always = self._always
        raw = self._raw
        out: dict[str, Any] = {}
        for key, value in data.items():
            if value is None:
                if key in always:
                    out[key] = value
                continue
            if key not in always and key not in raw and (
                value is False or value == "" or value == [] or value == {}
            ):
                continue
            out[key] = value
        return out


def dump(model: BaseModel) -> dict[str, Any]:
    """Serialise a format model to plain JSON data with its file keys."""
    result: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    return result
