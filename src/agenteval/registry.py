"""``Registry[T]``: name → implementation, the one registry class of agenteval.

Evaluators, case aggregators, compare functions, tokenizers and every judge
operator kind (response scorers, structured outputs, samples and invocations
aggregators) live in instances of it; ``plugins.py`` is the front plugins use.
Each instance names its ``kind`` for messages and chooses the exception types
its registration and lookup errors raise, so every registry keeps its texts
(the operators' are Go's).
"""

from __future__ import annotations

import difflib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")
F = TypeVar("F")

_ABSENT: object = object()

# One registration: the registry, the name, the item registered and what it replaced.
Registration = tuple["Registry[Any]", str, object, object]
# The registrations being recorded (innermost last): see :func:`recording`.
_recorders: list[list[Registration]] = []
# Imports of built-in families not made yet: see :func:`defer`.
_deferred: list[Callable[[], None]] = []
# Whether this thread is making the deferred imports: see :func:`load_deferred`.
_loading = threading.local()


def defer(load: Callable[[], None]) -> None:
    """Make ``load`` (an import whose modules register built-ins) when a registry first
    needs it, not now.

    A registry needs every built-in before it answers for a name it does not hold, lists
    its names, or takes a registration (a plugin's must replace a built-in of the same
    name, never be replaced by it): until then a run that names only the deterministic
    evaluators does not import the judge family (~68 M instructions, ~20 ms of each
    command's start-up; bench/adk_side_by_side.py).
    """
    _deferred.append(load)


def load_deferred() -> None:
    """Make every deferred import now (each once).

    An import stays listed until it is made: another thread needing the registry meanwhile
    makes it too, and Python's module locks hold that thread until the modules are done
    (taken off first, the second of two runs starting at once found the list empty and
    its judge metric "unsupported").  The registrations the import makes, in this thread,
    do not start it again.
    """
    if getattr(_loading, "here", False):
        return
    _loading.here = True
    try:
        for load in list(_deferred):
            load()
            if load in _deferred:
                _deferred.remove(load)
    finally:
        _loading.here = False


@contextmanager
def recording() -> Iterator[list[Registration]]:
    """Every registration made inside the block, in every registry, to :func:`undo` later
    (a plugin file run again once edited: what it no longer registers must go)."""
    made: list[Registration] = []
    _recorders.append(made)
    try:
        yield made
    finally:
        _recorders.remove(made)


def undo(made: list[Registration]) -> None:
    """Take back ``made`` (newest first): each name gets back what it replaced, or goes;
    a name registered again since, by someone else, keeps that."""
    for registry, name, item, previous in reversed(made):
        if registry.get(name) is not item:
            continue
        if previous is _ABSENT:
            registry.unregister(name)
        else:
            registry._items[name] = previous


def own_code(thing: object) -> bool:
    """Whether ``thing`` (a function, a class, an instance) is agenteval's own code, not a
    plugin's: ``--jobs`` shares work out only to code that keeps no state across cases."""
    return str(getattr(thing, "__module__", "")).startswith("agenteval.")


def quoted(text: str) -> str:
    """``text`` in double quotes with escapes, like Go's ``%q`` for printable text."""
    return json.dumps(text, ensure_ascii=False)


class Registry(Generic[T]):
    """Implementations of one kind by name: register, get, names, closest-name hint.

    ``kind`` names the items in messages (``unsupported <kind> "<name>"``,
    ``<kind> name is empty``); ``nil_kind`` names a ``None`` registration
    (Go says "structured output provider is nil" but "structured output name
    is empty").  ``replace`` chooses what a second registration under a taken
    name does: replace the first (the default, as plugins expect when they
    override a built-in) or raise ``<kind> "<name>" is already registered``.
    """

    def __init__(
        self,
        kind: str,
        nil_kind: str = "",
        *,
        replace: bool = True,
        registration_error: Callable[[str], Exception] = ValueError,
        lookup_error: Callable[[str], Exception] = LookupError,
    ) -> None:
        self.kind = kind
        self.nil_kind = nil_kind or kind
        self.replace = replace
        self._registration_error = registration_error
        self._lookup_error = lookup_error
        self._items: dict[str, T] = {}
        # Whether anything not agenteval's own was ever registered (a plugin's code, which
        # may keep state across cases: ``--jobs`` then scores in one process).
        self.foreign = False

    @overload
    def register(self, name: str) -> Callable[[F], F]: ...

    @overload
    def register(self, name: str, item: T | None) -> T: ...

    def register(self, name: str, item: object = _ABSENT) -> object:
        """Add ``item`` under ``name`` and return it; without ``item``, a decorator that does."""
        if item is _ABSENT:

            def decorate(func: F) -> F:
                self._add(name, func)
                return func

            return decorate
        return self._add(name, item)

    def _add(self, name: str, item: object) -> object:
        if _deferred:
            load_deferred()
        if not name:
            raise self._registration_error(f"{self.kind} name is empty")
        if item is None:
            raise self._registration_error(f"{self.nil_kind} is nil")
        if not self.replace and name in self._items and self._items[name] is not item:
            raise self._registration_error(f"{self.kind} {quoted(name)} is already registered")
        if _recorders:
            _recorders[-1].append((self, name, item, self._items.get(name, _ABSENT)))
        # The registry holds what plugins hand it; the type parameter is the caller's promise.
        self._items[name] = item  # type: ignore[assignment]
        if not own_code(item):
            self.foreign = True
        return item

    def unregister(self, name: str) -> None:
        """Forget ``name`` (tests and plugins that registered it temporarily)."""
        load_deferred()
        self._items.pop(name, None)

    def _find(self, name: str) -> T | None:
        item = self._items.get(name)
        if item is None and _deferred:
            load_deferred()
            item = self._items.get(name)
        return item

    def get(self, name: str, default: T | None = None) -> T | None:
        """The item registered under ``name``, else ``default``."""
        item = self._find(name)
        return default if item is None else item

    def resolve(self, name: str) -> T:
        """The item registered under ``name``, or the lookup error ``unsupported <kind> "<name>"``."""
        item = self._find(name)
        if item is None:
            raise self._lookup_error(f"unsupported {self.kind} {quoted(name)}")
        return item

    def names(self) -> list[str]:
        """Registered names, sorted."""
        load_deferred()
        return sorted(self._items)

    def all(self) -> list[T]:
        """Registered items, sorted by name."""
        return [self._items[name] for name in self.names()]

    def closest(self, name: str) -> str | None:
        """The registered name most like ``name``, for a 'did you mean' hint."""
        matches = difflib.get_close_matches(name, self.names(), n=1, cutoff=0.5)
        return matches[0] if matches else None

    def hint(self, name: str) -> str:
        """``did you mean "<closest>"? known: a, b`` (or just the known names) for ``name``."""
        close = self.closest(name)
        known = ", ".join(self.names()) or "none registered"
        if close is not None:
            return f"did you mean {quoted(close)}? known: {known}"
        return f"known: {known}"

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name) is not None

    # Item access makes it a mapping for pytest's monkeypatch.setitem; it registers as usual.
    def __getitem__(self, name: str) -> T:
        item = self._find(name)
        if item is None:
            raise KeyError(name)
        return item

    def __setitem__(self, name: str, item: T) -> None:
        self._add(name, item)

    def __delitem__(self, name: str) -> None:
        load_deferred()
        del self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        load_deferred()
        return len(self._items)
