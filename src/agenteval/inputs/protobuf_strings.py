"""Where a protobuf message holds a string field that is no UTF-8.

protobuf refuses such a message with "String field had bad UTF-8" (upb) and no place, or
lets the codec's ``UnicodeDecodeError`` out (the pure-Python decoder).  This walk of the wire
format, by the message's descriptor, finds the field by its JSON path
(``resourceSpans[0].scopeSpans[0].spans[3].name``) and the byte by its offset in the file.

Tested in tests/inputs/test_otlp_file.py.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from agenteval.inputs.input_limits import not_utf8_text

# protobuf itself reads at most 100 levels of nesting; deeper bytes are not its strings.
_MAX_DEPTH = 100
_FIXED_SIZES = {1: 8, 5: 4}  # wire types 1 (64-bit) and 5 (32-bit)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[pos]  # IndexError past the end: no message
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _repeated(field: FieldDescriptor) -> bool:
    # protobuf 7 has no ``label`` (3: repeated); an older protobuf 5 has no ``is_repeated``.
    repeated = getattr(field, "is_repeated", None)
    return bool(repeated) if repeated is not None else getattr(field, "label", None) == 3


def bad_string(data: bytes, descriptor: Descriptor, base: int = 0) -> tuple[str, str] | None:
    """(the JSON path of the first string field of ``data`` that is no UTF-8, what is wrong
    with it: ``not UTF-8 text: byte 0xff at byte offset N``, N counted from ``base``, the
    message's offset in its file); None when there is none or ``data`` is no such message."""
    try:
        return _walk(data, descriptor, "", base, 0)
    except IndexError:
        return None


def _walk(
    data: bytes, descriptor: Descriptor, path: str, base: int, depth: int
) -> tuple[str, str] | None:
    if depth > _MAX_DEPTH:
        return None
    seen: dict[int, int] = {}
    pos = 0
    while pos < len(data):
        tag, pos = _varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            pos = _varint(data, pos)[1]
            continue
        if wire in _FIXED_SIZES:
            pos += _FIXED_SIZES[wire]
            continue
        if wire != 2:
            return None  # groups are no part of proto3; anything else is no message
        size, start = _varint(data, pos)
        pos = start + size
        if pos > len(data):
            return None  # cut short: not a string's fault
        field = descriptor.fields_by_number.get(number)
        if field is None:
            continue  # unknown to this schema: protobuf keeps its bytes unread
        index = seen[number] = seen.get(number, -1) + 1
        where = f"{path}.{field.json_name}" if path else field.json_name
        if _repeated(field):
            where += f"[{index}]"
        value = data[start:pos]
        if field.type == FieldDescriptor.TYPE_STRING:
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as exc:
                return where, not_utf8_text(value, exc, f"byte offset {base + start + exc.start:,}")
        elif field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None:
            found = _walk(value, field.message_type, where, base + start, depth + 1)
            if found is not None:
                return found
    return None


__all__ = ["bad_string"]
