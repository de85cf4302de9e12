"""Registry[T]: register, get, names, closest-name hint, duplicate policy, chosen error types."""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path

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


def _deferred_family(
    monkeypatch: pytest.MonkeyPatch, registry: Registry[Callable[[str], str]]
) -> list[str]:
    """Defer a family registering ``title`` and ``upper`` (a built-in ``upper`` of its
    own) into ``registry``; the list records each time it loaded."""
    import agenteval.registry as registry_module

    monkeypatch.setattr(registry_module, "_deferred", [])
    loads: list[str] = []

    def load() -> None:
        loads.append("loaded")
        registry.register("title", str.title)
        registry.register("upper", str.casefold)

    registry_module.defer(load)
    return loads


def test_a_deferred_family_loads_only_when_a_name_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry: Registry[Callable[[str], str]] = Registry("text function")
    registry.register("lower", str.lower)
    loads = _deferred_family(monkeypatch, registry)
    # A name held already: the family stays unloaded.
    assert (registry.get("lower"), registry.resolve("lower"), "lower" in registry) == (
        str.lower,
        str.lower,
        True,
    )
    assert registry["lower"] is str.lower
    assert loads == []
    # A name it lacks: the family loads (once), then the answer is given.
    assert registry.get("title") is str.title
    assert registry.get("swapcase") is None
    assert loads == ["loaded"]


@pytest.mark.parametrize(
    "ask",
    [
        lambda r: r.names(),
        lambda r: r.all(),
        lambda r: list(r),
        lambda r: len(r),
        lambda r: r.hint("titel"),
        lambda r: r.closest("titel"),
        lambda r: "title" in r,
        lambda r: r.resolve("title"),
        lambda r: r["title"],
    ],
    ids=["names", "all", "iter", "len", "hint", "closest", "contains", "resolve", "getitem"],
)
def test_every_whole_view_of_a_registry_loads_the_deferred_family_first(
    monkeypatch: pytest.MonkeyPatch, ask: Callable[[Registry[Callable[[str], str]]], object]
) -> None:
    registry: Registry[Callable[[str], str]] = Registry("text function")
    registry.register("lower", str.lower)
    loads = _deferred_family(monkeypatch, registry)
    ask(registry)
    assert loads == ["loaded"]
    assert registry.names() == ["lower", "title", "upper"]
    assert registry.hint("titel").startswith('did you mean "title"?')


def test_a_registration_loads_the_deferred_family_first_so_it_replaces_the_builtin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry: Registry[Callable[[str], str]] = Registry("text function")
    loads = _deferred_family(monkeypatch, registry)
    # A plugin's "upper" registered before anything asked for the family: the family's
    # own "upper" must not replace it when it loads later.
    registry.register("upper", str.upper)
    assert loads == ["loaded"]
    assert registry.get("upper") is str.upper
    assert registry.get("title") is str.title


@pytest.mark.parametrize("forget", ["unregister", "del"])
def test_forgetting_a_deferred_name_loads_the_family_first_so_it_stays_forgotten(
    monkeypatch: pytest.MonkeyPatch, forget: str
) -> None:
    registry: Registry[Callable[[str], str]] = Registry("text function")
    registry.register("lower", str.lower)
    _deferred_family(monkeypatch, registry)
    if forget == "unregister":
        registry.unregister("title")
    else:
        del registry["title"]
    assert registry.get("title") is None
    assert registry.names() == ["lower", "upper"]


def test_a_thread_needing_a_deferred_name_while_another_makes_the_import_waits_for_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Two runs starting at once: the first takes the judge family's import off the list and
    # makes it; the second, finding the list empty, answered before the import was done
    # (its "llm_final_response" was unsupported).
    import agenteval.registry as registry_module

    registry: Registry[Callable[[str], str]] = Registry("text function")
    registry.register("lower", str.lower)
    inside = threading.Event()
    shared = types.SimpleNamespace(registry=registry, inside=inside)
    monkeypatch.setitem(sys.modules, "_deferred_race_shared", shared)
    (tmp_path / "_deferred_race_family.py").write_text(
        "import time\n"
        "from _deferred_race_shared import inside, registry\n"
        "inside.set()\n"
        "time.sleep(0.3)\n"
        "registry.register('title', str.title)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry_module, "_deferred", [])

    def load() -> None:
        importlib.import_module("_deferred_race_family")

    registry_module.defer(load)
    first = threading.Thread(target=registry.get, args=("title",))
    try:
        first.start()
        assert inside.wait(10)
        assert registry.get("title") is str.title
        assert registry.names() == ["lower", "title"]
    finally:
        first.join(10)
        sys.modules.pop("_deferred_race_family", None)
