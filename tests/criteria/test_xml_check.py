"""XML criterion: formats.md §3.6 vectors, plus entity safety."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.criteria.xml_check import check_xml, xml_problem
from agenteval.schema.metric import XMLCriterion

VALID = XMLCriterion.model_validate({"valid": True, "matchStrategy": "skip"})


@pytest.mark.parametrize(
    "text",
    [
        "<root><child>value</child></root>",
        '<?xml version="1.0"?><root xmlns:h="urn:test"><h:child /></root>',
        "<!-- comment --><root/>",
        # Beyond the Go vectors: things a well-formed document may carry.
        "<r>&amp;&lt;&#65;&#x42;</r>",
        "<r/><!-- after --><?pi data?>",
        '\n  <?xml version="1.0" encoding="UTF-8"?>\n<r a="1"/>\n',
        "<h:r>undeclared prefix is fine without namespace processing</h:r>",
        '<!DOCTYPE html SYSTEM "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html/>',
        "<r><![CDATA[<not a tag>]]></r>",
    ],
)
def test_well_formed(text: str) -> None:
    assert xml_problem(text) is None
    assert check_xml(VALID, text).ok


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("<root>", "no element found"),
        ("<root></other>", "mismatched tag"),
        ("<a/><b/>", "junk after document element"),
        ("text<root/>", "not well-formed"),
        ("<r/>tail", "junk after document element"),
        ("<r a=1/>", "not well-formed"),
        ("<r>&nbsp;</r>", "undefined entity"),
        ("just text", "syntax error"),
    ],
)
def test_not_well_formed(text: str, detail: str) -> None:
    verdict = check_xml(VALID, text)
    assert not verdict.ok
    assert detail in verdict.reason


@pytest.mark.parametrize(
    ("declaration", "problem"),
    [
        ('version="1.1"', 'xml: unsupported version "1.1"; only version 1.0 is supported'),
        (
            'version="1.0" encoding="ISO-8859-1"',
            'xml: encoding "ISO-8859-1" declared but Decoder.CharsetReader is nil',
        ),
        ('version="1.0" encoding="utf8"', 'xml: encoding "utf8" declared'),
        ('version="1.0" encoding="us-ascii"', 'xml: encoding "us-ascii" declared'),
        ('version="1.0" encoding="Utf-8"', None),
        ('version="1.0" encoding="UTF-8" standalone="yes"', None),
    ],
)
def test_xml_declaration_as_go_reads_it(declaration: str, problem: str | None) -> None:
    """encoding/xml's ``Decoder.rawToken`` (the ``<?xml`` ProcInst branch) refuses a version
    other than "1.0" and an encoding that is not EqualFold "utf-8" when ``CharsetReader`` is
    nil (xml.go's ``matchValid`` sets none): Go scores these 0; expat accepted them."""
    found = xml_problem(f"<?xml {declaration}?><root/>")
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found
        assert not check_xml(VALID, f"<?xml {declaration}?><root/>").ok


@pytest.mark.parametrize("control", ["\x0b", "\x0c", "\x1c", "\x1f"])
def test_control_characters_around_the_root_are_not_whitespace(control: str) -> None:
    """xml.go's ``matchValid`` trims only to test for emptiness; the decoder then reads the
    text as it is, and ``Decoder.text`` refuses a rune outside ``isInCharacterRange``
    (\\v, \\f, U+001C-U+001F) with "illegal character code": Go scores 0.  Python's
    ``str.strip`` removed them as whitespace and the document was valid."""
    for text in (f"{control}<root/>", f"<root/>{control}", f"\n{control} <root/>"):
        assert xml_problem(text) is not None, repr(text)
        assert not check_xml(VALID, text).ok
    # Unicode whitespace that is an XML character stays ignorable, as in Go.
    assert xml_problem("\u3000\x85<root/>\u2029\xa0") is None
    assert xml_problem(control) == "xml content is empty"  # Go's TrimSpace empties "\v" too


def test_a_leading_byte_order_mark_is_text_outside_the_root() -> None:
    """encoding/xml's ``Decoder.rawToken`` has no byte-order-mark rule: U+FEFF before the
    root is CharData, which xml.go's ``matchValid`` refuses at depth 0 ("xml content has
    non-whitespace text outside the root element"), so Go scores 0; expat skipped it as a
    BOM and the document was valid."""
    for text in ("\ufeff<root/>", ' \ufeff<?xml version="1.0"?><root/>', "\ufeff"):
        assert xml_problem(text) == (
            "xml content has non-whitespace text outside the root element"
        ), repr(text)
        assert not check_xml(VALID, text).ok
    assert xml_problem("<root>\ufeff</root>") is None  # inside the root it is text


def test_entities_are_never_expanded() -> None:
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
        "<lolz>&lol3;</lolz>"
    )
    assert "declares entity" in (xml_problem(laughs) or "")
    assert "declares entity" in (xml_problem('<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>') or "")


def test_external_entities_are_never_fetched(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("<leak/>")
    external = f'<!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]><r>&x;</r>'
    assert xml_problem(external) is not None
    parameter = f'<!DOCTYPE r [<!ENTITY % p SYSTEM "file://{secret}"> %p;]><r/>'
    assert xml_problem(parameter) is not None
    # An external DTD is not read, so entities it might define stay undefined.
    undefined = f'<!DOCTYPE r SYSTEM "file://{secret}"><r>&leak;</r>'
    assert "undefined entity &leak;" in (xml_problem(undefined) or "")


def test_strategy_rules() -> None:
    empty = XMLCriterion.model_validate({"valid": True})
    verdict = check_xml(empty, "<r/>")
    assert not verdict.ok
    assert verdict.reason == "xml match strategy is empty"
    other = XMLCriterion.model_validate({"valid": True, "matchStrategy": "exact"})
    assert check_xml(other, "<r/>").reason == "invalid match strategy exact"
    skip_only = XMLCriterion.model_validate({"matchStrategy": "skip"})
    assert check_xml(skip_only, "not xml").ok


def test_ignore_and_absent() -> None:
    assert check_xml(XMLCriterion.model_validate({"ignore": True}), "not xml").ok
    assert check_xml(None, "not xml").ok
