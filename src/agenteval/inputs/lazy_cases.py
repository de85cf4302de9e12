"""The planned cases of one eval set: a re-iterable sequence that builds each case when it is reached.

:class:`LazyCases` keeps the eval set file's bytes and three integers per case
(byte start, byte end, index in ``evalCases``); every iteration validates each
selected case's JSON text again and hands out a new :class:`EvalCase`.
Loading a 100,000-case set this way holds ~110 MB of bytes and a few MB of
offsets and ids, not ~1.3 GB of parsed data and models; validating a case
again costs about as much as it did while the set was checked (the up-front
checks already read every case once, so a valid set's cases always validate).

:class:`LoadedCases` is the same interface over models already in memory
(files read whole: small, unusual or built by code).

Both know every evalId of the file in order (:attr:`PlannedCases.ids`),
whatever the selection, which cases score their own turns (:class:`OwnTurns`), and
make narrower selections by evalId without building a case
(:meth:`PlannedCases.where`: ``--case``, ``--shard``).

Tested in tests/inputs/test_lazy_cases.py.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple, overload

from pydantic import ValidationError

from agenteval.inputs.go_escapes import go_escapes
from agenteval.schema.evalset import EvalCase, EvalSet


class OwnTurns(NamedTuple):
    """The evalIds of the file's cases that score turns of their own, whatever ``--traces``
    holds: in trace mode, or with an ``actualConversation``.  Noted while the cases are
    checked, so the run's ``--traces`` warnings build no case again (~30 µs a case)."""

    trace_mode: frozenset[str] = frozenset()
    conversation: frozenset[str] = frozenset()

    @classmethod
    def of(cls, cases: Iterable[EvalCase]) -> OwnTurns:
        """The evalIds of ``cases`` in trace mode and with an ``actualConversation``."""
        trace_mode: set[str] = set()
        conversation: set[str] = set()
        for case in cases:
            note(case, trace_mode, conversation)
        return cls(frozenset(trace_mode), frozenset(conversation))


# No case scores turns of its own (the default of a selection built by code).
NO_OWN_TURNS = OwnTurns()


def note(case: EvalCase, trace_mode: set[str], conversation: set[str]) -> None:
    """Add ``case``'s evalId to the sets of :class:`OwnTurns` it belongs to."""
    if case.eval_mode == "trace":
        trace_mode.add(case.eval_id)
    if case.actual_conversation:
        conversation.add(case.eval_id)


class PlannedCases(ABC, Sequence[EvalCase]):
    """Selected cases of one eval set in file order, plus every evalId of the file."""

    def __init__(
        self, ids: Sequence[str], selected: Sequence[int], own_turns: OwnTurns = NO_OWN_TURNS
    ) -> None:
        self._ids = ids
        self._selected = selected  # positions among the file's non-null cases
        self.own_turns = own_turns

    @property
    def ids(self) -> Sequence[str]:
        """Every evalId of the file in order (null entries skipped), selected or not."""
        return self._ids

    def __len__(self) -> int:
        return len(self._selected)

    @overload
    def __getitem__(self, item: int) -> EvalCase: ...

    @overload
    def __getitem__(self, item: slice) -> PlannedCases: ...

    def __getitem__(self, item: int | slice) -> EvalCase | PlannedCases:
        if isinstance(item, slice):
            return self._narrowed(array("q", self._selected[item]))
        return self._case(self._selected[item])

    def __iter__(self) -> Iterator[EvalCase]:
        case = self._case
        for position in self._selected:
            yield case(position)

    def indexed(self) -> Iterator[tuple[int, EvalCase]]:
        """(index in ``evalCases``, case) of every selected case, in file order."""
        for position in self._selected:
            yield self._file_index(position), self._case(position)

    def selected_ids(self) -> Iterator[str]:
        """The evalIds of the selected cases, in file order, without building a case."""
        ids = self._ids
        return (ids[position] for position in self._selected)

    def where(self, keep: Callable[[str], bool]) -> PlannedCases:
        """The selected cases whose evalId ``keep`` accepts (no case is built)."""
        ids = self._ids
        return self._narrowed(array("q", (p for p in self._selected if keep(ids[p]))))

    @abstractmethod
    def _case(self, position: int) -> EvalCase: ...

    @abstractmethod
    def _file_index(self, position: int) -> int: ...

    @abstractmethod
    def _narrowed(self, selected: Sequence[int]) -> PlannedCases: ...


class LazyCases(PlannedCases):
    """Cases read from their byte spans of the eval set file, validated anew on every access."""

    def __init__(
        self,
        data: bytes,
        spans: array[int],
        ids: Sequence[str],
        selected: Sequence[int] | None = None,
        own_turns: OwnTurns = NO_OWN_TURNS,
    ) -> None:
        # spans: (start, end, index in evalCases) per non-null case, flat.
        every = range(len(spans) // 3)
        super().__init__(ids, every if selected is None else selected, own_turns)
        self._data = data
        self._spans = spans

    def _case(self, position: int) -> EvalCase:
        spans = self._spans
        start, end = spans[3 * position], spans[3 * position + 1]
        # The check pass validated this span's value as pydantic-core parses it
        # (evalset_scan.py); validating the JSON text itself builds the same case (strict
        # mode reads JSON and its parsed value alike for every type of an EvalCase) without
        # the intermediate dicts: ~155 k -> ~133 k instructions a bench case (valgrind).
        data = self._data[start:end]
        try:
            return EvalCase.model_validate_json(data)
        except ValidationError:
            # A lone surrogate escape the check pass read as U+FFFD (go_escapes): only here,
            # the usual case pays nothing for it.
            fixed = go_escapes(data)
            if fixed is data:
                raise
            return EvalCase.model_validate_json(fixed)

    def _file_index(self, position: int) -> int:
        return self._spans[3 * position + 2]

    def _narrowed(self, selected: Sequence[int]) -> LazyCases:
        return LazyCases(self._data, self._spans, self._ids, selected, self.own_turns)


class LoadedCases(PlannedCases):
    """Cases already held as models (an eval set read whole)."""

    def __init__(
        self,
        cases: Sequence[EvalCase],
        indices: Sequence[int] | None = None,
        selected: Sequence[int] | None = None,
    ) -> None:
        super().__init__(
            [case.eval_id for case in cases],
            range(len(cases)) if selected is None else selected,
            OwnTurns.of(cases),
        )
        self._cases = cases
        self._indices = range(len(cases)) if indices is None else indices

    @classmethod
    def of_evalset(cls, evalset: EvalSet) -> LoadedCases:
        """The non-null cases of ``evalset`` with their indices in ``evalCases``."""
        pairs = [(i, c) for i, c in enumerate(evalset.eval_cases) if c is not None]
        return cls([c for _, c in pairs], [i for i, _ in pairs])

    def _case(self, position: int) -> EvalCase:
        return self._cases[position]

    def _file_index(self, position: int) -> int:
        return self._indices[position]

    def _narrowed(self, selected: Sequence[int]) -> LoadedCases:
        narrowed = LoadedCases.__new__(LoadedCases)
        PlannedCases.__init__(narrowed, self._ids, selected, self.own_turns)
        narrowed._cases = self._cases
        narrowed._indices = self._indices
        return narrowed


__all__ = ["NO_OWN_TURNS", "LazyCases", "LoadedCases", "OwnTurns", "PlannedCases", "note"]
