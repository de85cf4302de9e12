"""Where a protobuf message holds a string field that is no UTF-8.

protobuf refuses such a message with "String field had bad UTF-8" (upb) and no place, or
lets the codec's ``UnicodeDecodeError`` out (the pure-Python decoder).  protobuf itself
parses the message again, against a twin of its schema whose string fields are bytes (a
bytes field takes any bytes), and the first value that was a string and is no UTF-8 is
named by its JSON path (``resourceSpans[0].scopeSpans[0].spans[3].name``).

Tested in tests/inputs/test_otlp_file.py.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, FileDescriptor
from google.protobuf.message import DecodeError, Message

from agenteval.inputs.input_limits import not_utf8_text

_STRING = descriptor_pb2.FieldDescriptorProto.TYPE_STRING
_BYTES = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES


def bad_string(data: bytes, descriptor: Descriptor) -> tuple[str, str] | None:
    """(the JSON path of the first string field of ``data``, a ``descriptor`` message, that
    is no UTF-8, what is wrong with it); None when there is none or ``data`` is no such
    message."""
    try:
        twin = _bytes_twin(descriptor).FromString(data)
    except (DecodeError, UnicodeDecodeError):  # a map's key (still a string), a cut file
        return None
    return _first_bad(twin, descriptor, "")


@cache
def _bytes_twin(descriptor: Descriptor) -> type[Message]:
    """``descriptor``'s message class in a pool of its own where every string is bytes."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: FileDescriptor) -> None:
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        for message in proto.message_type:
            _strings_as_bytes(message)
        pool.Add(proto)
        added.add(file.name)

    add(descriptor.file)
    twin: type[Message] = message_factory.GetMessageClass(
        pool.FindMessageTypeByName(descriptor.full_name)
    )
    return twin


def _strings_as_bytes(message: descriptor_pb2.DescriptorProto) -> None:
    if message.options.map_entry:
        return  # a map's key may not be bytes; its value type is a message's or a scalar
    for field in message.field:
        if field.type == _STRING:
            field.type = _BYTES
    for nested in message.nested_type:
        _strings_as_bytes(nested)


def _repeated(field: FieldDescriptor) -> bool:
    # protobuf 7 has no ``label`` (3: repeated); an older protobuf 5 has no ``is_repeated``.
    repeated = getattr(field, "is_repeated", None)
    return bool(repeated) if repeated is not None else getattr(field, "label", None) == 3


def _first_bad(message: Message, descriptor: Descriptor, path: str) -> tuple[str, str] | None:
    for field, value in message.ListFields():
        original = descriptor.fields_by_number[field.number]
        where = f"{path}.{original.json_name}" if path else original.json_name
        repeated = _repeated(original)
        items: list[Any] = list(value) if repeated else [value]
        for index, item in enumerate(items):
            at = f"{where}[{index}]" if repeated else where
            found = _bad_item(item, original, at)
            if found is not None:
                return found
    return None


def _bad_item(item: Any, field: FieldDescriptor, at: str) -> tuple[str, str] | None:
    if field.type == FieldDescriptor.TYPE_STRING and isinstance(item, bytes):
        try:
            item.decode("utf-8")
        except UnicodeDecodeError as exc:
            return at, not_utf8_text(item, exc, f"byte {exc.start + 1:,} of the string")
        return None
    if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None:
        return _first_bad(item, field.message_type, at)
    return None


__all__ = ["bad_string"]
