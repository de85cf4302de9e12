"""XML well-formedness check of the final response (formats.md §3.6)."""

from __future__ import annotations

import json
from xml.parsers import expat

from agenteval.criteria.verdict import MATCH, Verdict, check_text_criterion, mismatch
from agenteval.errors import ControlFlow
from agenteval.schema.metric import XMLCriterion

# unicode.IsSpace (strings.TrimSpace) minus \v and \f, which are no XML characters.
_GO_SPACE = (
    "\t\n\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)

_TEXT_OUTSIDE = "xml content has non-whitespace text outside the root element"


class _Malformed(ControlFlow):
    """Raised from a parser callback: the document breaks a rule expat does not enforce."""


class _DocumentShape:
    """Counts root elements and refuses entities while expat runs."""

    def __init__(self) -> None:
        self.depth = 0
        self.roots = 0

    def start(self, name: str, attrs: object) -> None:
        if self.depth == 0:
            self.roots += 1
            if self.roots > 1:
                raise _Malformed("xml content must contain a single root element")
        self.depth += 1

    def end(self, name: str) -> None:
        self.depth -= 1

    def text(self, content: str) -> None:
        if self.depth == 0 and content.strip():
            raise _Malformed(_TEXT_OUTSIDE)


def _refuse_entity_declaration(name: str, *_: object) -> None:
    # What defusedxml would refuse, refused on expat itself (no dependency for two handlers):
    # a declared entity could expand exponentially or read a file.
    raise _Malformed(f"xml content declares entity {name!r}; entities are not expanded")


def _refuse_skipped_entity(name: str, is_parameter: int) -> None:
    # Reached for a reference that an unread external DTD might define; Go knows only the
    # predefined entities, so this is an undefined entity.
    raise _Malformed(f"undefined entity &{name};")


def _check_declaration(version: str | None, encoding: str | None, standalone: int) -> None:
    # Go's Decoder refuses what expat accepts here: another version, and any encoding but
    # UTF-8 when no CharsetReader is set (trpc-agent-go sets none).
    if version is not None and version != "1.0":
        quoted = json.dumps(version, ensure_ascii=False)
        raise _Malformed(f"xml: unsupported version {quoted}; only version 1.0 is supported")
    if encoding is not None and encoding.lower() != "utf-8":
        quoted = json.dumps(encoding, ensure_ascii=False)
        raise _Malformed(f"xml: encoding {quoted} declared but Decoder.CharsetReader is nil")


def xml_problem(text: str) -> str | None:
    """Why ``text`` is not one well-formed XML document, or None when it is."""
    # Go ignores Unicode whitespace around the root; expat rejects some of it (a newline
    # before the XML declaration, a no-break space after the root), so strip it first.
    if not text.strip():
        return "xml content is empty"
    # Only what Go reads as such: \v, \f and U+001C-U+001F (Python whitespace too) are no
    # XML characters, and Go's decoder refuses them ("illegal character code").
    text = text.strip(_GO_SPACE)
    if text.startswith("\ufeff"):
        # expat skips a byte order mark; Go's decoder has no such rule and reads U+FEFF as
        # text before the root.
        return _TEXT_OUTSIDE
    shape = _DocumentShape()
    parser = expat.ParserCreate()
    # Never read an external DTD or parameter entity: nothing is fetched.
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _refuse_entity_declaration
    parser.UnparsedEntityDeclHandler = _refuse_entity_declaration
    parser.SkippedEntityHandler = _refuse_skipped_entity
    parser.XmlDeclHandler = _check_declaration
    parser.StartElementHandler = shape.start
    parser.EndElementHandler = shape.end
    parser.CharacterDataHandler = shape.text
    try:
        parser.Parse(text, True)
    except _Malformed as exc:
        return str(exc)
    except expat.ExpatError as exc:
        return f"{expat.errors.messages[exc.code]} at line {exc.lineno}, column {exc.offset + 1}"
    if shape.roots == 0:
        return "xml content must contain a root element"
    if shape.depth != 0:
        return "xml content has unclosed elements"
    return None


def check_xml(criterion: XMLCriterion | None, text: str) -> Verdict:
    """Apply an XML criterion to the actual final-response text; an absent criterion matches."""
    return check_text_criterion("xml", criterion, text, _check_xml, _recorded_inputs)


def _recorded_inputs(criterion: XMLCriterion, text: str) -> dict[str, object]:
    return {
        "strategy": criterion.match_strategy,
        "valid": criterion.valid,
        "ignore": criterion.ignore,
        "text": text,
    }


def _check_xml(criterion: XMLCriterion, text: str) -> Verdict:
    strategy = criterion.match_strategy
    if strategy == "":
        return mismatch("xml match strategy is empty")
    if strategy != "skip":
        return mismatch(f"invalid match strategy {strategy}")
    if not criterion.valid:
        return MATCH
    problem = xml_problem(text)
    return MATCH if problem is None else mismatch(problem)
