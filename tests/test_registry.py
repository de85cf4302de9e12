"""Registry[T]: register, get, names, closest-name hint, duplicate policy, chosen error types."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agenteval.plugins import load_builtins
from agenteval.registry import Registry, quoted


def make() -> Registry[Callable[[str], str]]:
    """A registry of string functions holding ``upper`` and ``lower``."""
    registry: Registry[Callable[[str], str]] = Registry("text function")
    registry.register("upper", str.upper)
    registry.register("lower", str.lower)
    return registry


def test_register_get_names_and_iteration() -> None:
    registry = make()
    assert registry.get("upper") is str.upper
    assert registry.get("title") is None
    assert registry.names() == ["lower", "upper"]
    assert list(registry) == ["lower", "upper"]
    assert registry.all() == [str.lower, str.upper]
    assert ("upper" in registry, "title" in registry, len(registry)) == (True, False, 2)
    registry.unregister("upper")
    registry.unregister("never-there")
    assert registry.names() == ["lower"]


def test_register_without_an_item_is_a_decorator() -> None:
    registry = make()

    @registry.register("shout")
    def shout(text: str) -> str:
        return text.upper() + "!"

    assert registry.get("shout") is shout
    assert shout("hi") == "HI!"  # the decorator hands the function back unchanged


def test_closest_name_and_hint() -> None:
    registry = make()
    assert registry.closest("uper") == "upper"
    assert registry.closest("zzzzzz") is None
    assert registry.hint("uper") == 'did you mean "upper"? known: lower, upper'
    assert registry.hint("zzzzzz") == "known: lower, upper"
    assert Registry[int]("number").hint("x") == "known: none registered"


def test_empty_names_and_none_are_refused_with_the_kind_in_the_message() -> None:
    registry: Registry[object] = Registry("structured output", "structured output provider")
    with pytest.raises(ValueError, match=r"^structured output name is empty$"):
        registry.register("", object())
    with pytest.raises(ValueError, match=r"^structured output provider is nil$"):
        registry.register("x", None)
    assert registry.names() == []


def test_duplicates_replace_by_default_and_are_refused_on_request() -> None:
    replacing = make()
    replacing.register("upper", str.title)
    assert replacing.get("upper") is str.title

    strict: Registry[object] = Registry("evaluator", replace=False)
    first = object()
    strict.register("x", first)
    strict.register("x", first)  # the same object again (a module imported twice) is no conflict
    with pytest.raises(ValueError, match=r'^evaluator "x" is already registered$'):
        strict.register("x", object())
    assert strict.get("x") is first


def test_resolve_raises_the_chosen_lookup_error() -> None:
    class Unsupported(Exception):
        pass

    class Refused(Exception):
        pass

    registry: Registry[int] = Registry(
        "samples aggregator", registration_error=Refused, lookup_error=Unsupported
    )
    registry.register("one", 1)
    assert registry.resolve("one") == 1
    with pytest.raises(Unsupported, match=r'^unsupported samples aggregator "two"$'):
        registry.resolve("two")
    with pytest.raises(Refused):
        registry.register("", 2)
    with pytest.raises(LookupError):
        Registry[int]("plain").resolve("missing")


def test_quoted_is_gos_percent_q_for_printable_text() -> None:
    assert quoted('say "hi"') == '"say \\"hi\\""'
    assert quoted("naïve") == '"naïve"'


def test_item_access_registers_and_monkeypatch_can_swap_an_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = make()
    registry["title"] = str.title
    assert registry["title"] is str.title
    with pytest.raises(ValueError, match=r"^text function name is empty$"):
        registry[""] = str.title
    monkeypatch.setitem(registry, "upper", str.casefold)  # type: ignore[arg-type]
    assert registry.get("upper") is str.casefold
    monkeypatch.undo()
    assert registry.get("upper") is str.upper
    del registry["title"]
    assert registry.get("title", str.strip) is str.strip
    with pytest.raises(KeyError):
        registry["title"]


def _plugin_tokenizer(text: str) -> list[str]:
    return text.split()


def test_a_registry_knows_whether_a_plugin_registered_into_it() -> None:
    """``--jobs`` scores in one process once a plugin's code may be called (run/case_split.py)."""
    registry: Registry[object] = Registry("tokenizer")
    registry.register("words", load_builtins)  # agenteval's own
    assert not registry.foreign
    registry.register("plugin", _plugin_tokenizer)  # this test module's: not agenteval's
    assert registry.foreign
    registry.unregister("plugin")
    assert registry.foreign  # it may have been used already
