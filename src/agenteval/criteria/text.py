"""Text comparison of tool names and final-response text (formats.md §3.3)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import re2

from agenteval.criteria import named
from agenteval.criteria.compare import run_named_compare
from agenteval.criteria.length import check_length
from agenteval.criteria.verdict import MATCH, Verdict, mismatch
from agenteval.schema.metric import TextCriterion
from agenteval.steps.record import listening

# Longer texts are cut in reasons: a final response can be many kilobytes.
_PREVIEW_CHARS = 200

_GO_GROUP_NAME = re.compile("[A-Za-z0-9_]+")
_RE2_OPTIONS = re2.Options()
# RE2 prints every compile error to stderr by default; we report them ourselves.
_RE2_OPTIONS.log_errors = False


def go_lower(text: str) -> str:
    """Lower-case like Go's ``strings.ToLower``: per code point, no final-sigma rule."""
    if text.isascii():
        return text.lower()
    # The only two places where Python's full case mapping differs from Go's simple one.
    if "\u0130" in text or "\u03a3" in text:
        text = text.replace("\u0130", "i").replace("\u03a3", "\u03c3")
    return text.lower()


def _has_byte_escape(pattern: str) -> bool:
    """Whether ``pattern`` uses ``\\C`` (any byte) outside ``\\Q...\\E``.

    RE2 in C++ accepts it; Go's regexp/syntax refuses it ("any byte; not supported").
    Inside a class both refuse it, so the scan need not know about classes.
    """
    at = pattern.find("\\")
    while 0 <= at < len(pattern) - 1:
        follower = pattern[at + 1]
        if follower == "C":
            return True
        if follower == "Q":
            # Go reads everything up to \E (or the end) as literal text.
            end = pattern.find("\\E", at + 2)
            if end == -1:
                return False
            at = pattern.find("\\", end + 2)
        else:
            at = pattern.find("\\", at + 2)
    return False


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    """The compiled RE2 regex, or the compile error text (failures are cached too)."""
    if _has_byte_escape(pattern):
        return "invalid escape sequence: \\C"
    try:
        compiled = re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "invalid pattern"
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        return str(detail)
    for name in compiled.groupindex:
        # RE2 in C++ takes any Unicode word as a group name; Go's isValidCaptureName only
        # ASCII letters, digits and "_".
        if not _GO_GROUP_NAME.fullmatch(name):
            return f"invalid named capture group: {name}"
    return compiled


def compile_regex(pattern: str) -> Any:
    """Compile ``pattern`` with RE2 semantics; raise ValueError with the reason when invalid."""
    compiled = _compiled(pattern)
    if isinstance(compiled, str):
        raise ValueError(compiled)
    return compiled


def preview(text: str) -> str:
    """``text`` quoted for a reason, cut to a readable length."""
    if len(text) > _PREVIEW_CHARS:
        text = text[:_PREVIEW_CHARS] + "…"
    return json.dumps(text, ensure_ascii=False)


def text_failure(criterion: TextCriterion, actual: str, expected: str) -> str | None:
    """None when ``actual`` satisfies the criterion against ``expected``, else the reason."""
    reason = _text_failure(criterion, actual, expected)
    recorder = listening()
    if recorder is not None:
        folded = criterion.case_insensitive and not criterion.compare_name
        recorder.add(
            "text",
            {
                "strategy": criterion.match_strategy or "exact",
                "caseInsensitive": criterion.case_insensitive,
                "compareName": criterion.compare_name or None,
                "ignore": criterion.ignore,
                "actual": go_lower(actual) if folded else actual,
                "expected": go_lower(expected) if folded else expected,
                "ok": reason is None,
                "reason": reason or "",
            },
        )
    return reason


def _text_failure(criterion: TextCriterion, actual: str, expected: str) -> str | None:
    if criterion.ignore:
        return None
    if criterion.compare_name:
        return run_named_compare(named.text_compares, criterion.compare_name, actual, expected)
    if criterion.length is not None:
        verdict = check_length(criterion.length, actual)
        if not verdict.ok:
            return f"length mismatch: {verdict.reason}"
    strategy = criterion.match_strategy
    if strategy == "skip":
        return None
    if criterion.case_insensitive:
        actual = go_lower(actual)
        expected = go_lower(expected)
    if strategy in ("", "exact"):
        if actual == expected:
            return None
        return f"actual {preview(actual)} and expected {preview(expected)} do not match"
    if strategy == "contains":
        if expected in actual:
            return None
        return f"actual {preview(actual)} does not contain expected {preview(expected)}"
    if strategy == "regex":
        compiled = _compiled(expected)
        if isinstance(compiled, str):
            return f"invalid regex {preview(expected)}: {compiled}"
        if compiled.search(actual) is not None:
            return None
        return f"actual {preview(actual)} does not match regex {preview(expected)}"
    return f"invalid match strategy {strategy}"


def text_matches(criterion: TextCriterion, actual: str, expected: str) -> bool:
    """Whether ``actual`` satisfies the criterion against ``expected``."""
    if (
        criterion.match_strategy in ("", "exact")
        and not criterion.case_insensitive
        and criterion.length is None
        and not criterion.compare_name
    ):
        # The usual tool-name check: skip building a reason for every non-matching pair.
        return criterion.ignore or actual == expected
    return text_failure(criterion, actual, expected) is None


def check_text(criterion: TextCriterion | None, actual: str, expected: str) -> Verdict:
    """Compare two texts under a text criterion; an absent criterion matches."""
    if criterion is None:
        return MATCH
    reason = text_failure(criterion, actual, expected)
    return MATCH if reason is None else mismatch(reason)
