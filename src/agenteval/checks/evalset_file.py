"""Rules of one eval set file beyond its types: case ids present and unique, eval modes known."""

from __future__ import annotations

from agenteval.errors import Problem

EVAL_MODES = ("", "trace")


def case_rules(file: str, cases: list[tuple[int, str, str, bool]]) -> list[Problem]:
    """evalId present and unique, evalMode known (ARCHITECTURE §5.3); (index, id, mode, id_is_str)."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, eval_id, mode, id_is_str in cases:
        base = f"evalCases[{index}]"
        if id_is_str and not eval_id.strip():
            problems.append(
                Problem(file, f"{base}.evalId", "evalId is empty", "every case needs an id")
            )
        elif eval_id in seen:
            problems.append(
                Problem(
                    file,
                    f"{base}.evalId",
                    f"duplicate evalId {eval_id!r}",
                    f"first used at evalCases[{seen[eval_id]}]",
                )
            )
        elif eval_id:
            seen[eval_id] = index
        if mode not in EVAL_MODES:
            problems.append(
                Problem(
                    file,
                    f"{base}.evalMode",
                    f"unknown evalMode {mode!r}",
                    'use "trace" or leave it empty',
                )
            )
    return problems
