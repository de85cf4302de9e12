"""Rules of one eval set file beyond its types: case ids present and unique, eval modes known."""

from __future__ import annotations

from agenteval.errors import Problem
from agenteval.schema.evalset import EVAL_MODES


def case_rules(file: str, cases: list[tuple[int, str, str, bool]]) -> list[Problem]:
    """evalId present and unique, evalMode known (ARCHITECTURE §5.3); (index, id, mode, id_is_str)."""
    rules = CaseRules(file)
    for index, eval_id, mode, id_is_str in cases:
        rules.add(index, eval_id, mode, id_is_str)
    return rules.problems


class CaseRules:
    """:func:`case_rules` one case at a time, for an eval set read case by case."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self._seen: dict[str, int] = {}

    def add(self, index: int, eval_id: str, mode: str, id_is_str: bool = True) -> None:
        """Check the case at ``evalCases[index]`` against the ones added before it."""
        file = self.file
        base = f"evalCases[{index}]"
        if id_is_str and not eval_id.strip():
            self.problems.append(
                Problem(file, f"{base}.evalId", "evalId is empty", "every case needs an id")
            )
        elif eval_id in self._seen:
            self.problems.append(
                Problem(
                    file,
                    f"{base}.evalId",
                    f"duplicate evalId {eval_id!r}",
                    f"first used at evalCases[{self._seen[eval_id]}]",
                )
            )
        elif eval_id:
            self._seen[eval_id] = index
        if mode not in EVAL_MODES:
            self.problems.append(
                Problem(
                    file,
                    f"{base}.evalMode",
                    f"unknown evalMode {mode!r}",
                    'use "trace" or leave it empty',
                )
            )
