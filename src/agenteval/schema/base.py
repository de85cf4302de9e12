"""Shared base model for every file-format object.

Reading follows formats.md §0.1: unknown keys are ignored and ``null`` equals
absent.  Writing (``dump``) keeps exactly the fields that were read from a file
or set by our code, minus ``None``: so a loaded file round-trips, our results
carry explicit zeros where the runner sets a number (ARCHITECTURE §5.4), and
fields nobody set stay out like Go's "omit empty" ones.  Doing this in
pydantic's core keeps large result files fast to write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


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


def builder(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """``cls``'s validator as a function of a field dict: ``cls(**fields)``, validated alike.

    It skips the Python frame of ``BaseModel.__init__``, about a quarter of the cost of
    building a small model; hot loops that build hundreds of thousands of result objects
    use it.  The fields set are the keys given, exactly as with keyword arguments.
    """
    return cast(Callable[[dict[str, Any]], M], cls.__pydantic_validator__.validate_python)


def dump(model: BaseModel) -> dict[str, Any]:
    """Serialise a format model to plain JSON data with its file keys."""
    result: dict[str, Any] = model.model_dump(
        mode="json", by_alias=True, exclude_unset=True, exclude_none=True
    )
    return result


def dump_json(model: BaseModel) -> str:
    """Serialise a format model straight to indented JSON text (same keys as ``dump``)."""
    return model.model_dump_json(by_alias=True, exclude_unset=True, exclude_none=True, indent=2)
