"""Rules of one metric file beyond its types: metric names present and unique, no null strategy."""

from __future__ import annotations

from collections.abc import Sequence

from agenteval.errors import Problem
from agenteval.schema.metric import EvalMetric


def metric_rules(file: str, names: list[tuple[int, str, bool]]) -> list[Problem]:
    """metricName present and unique (ARCHITECTURE §5.3); ``(index, name, name_is_str)``."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, name, name_is_str in names:
        base = f"[{index}]"
        if name_is_str and not name.strip():
            problems.append(Problem(file, f"{base}.metricName", "metricName is empty"))
        elif name in seen:
            problems.append(
                Problem(
                    file,
                    f"{base}.metricName",
                    f"duplicate metricName {name!r}",
                    f"first defined at [{seen[name]}]",
                )
            )
        elif name:
            seen[name] = index
    return problems


def null_tool_strategies(file: str, metrics: Sequence[EvalMetric]) -> list[Problem]:
    """A ``null`` entry of ``toolStrategy`` is a configuration error (ARCHITECTURE §5.3)."""
    problems: list[Problem] = []
    for index, metric in enumerate(metrics):
        trajectory = metric.criterion.tool_trajectory if metric.criterion else None
        if trajectory and trajectory.tool_strategy:
            for name, strategy in trajectory.tool_strategy.items():
                if strategy is None:
                    problems.append(
                        Problem(
                            file,
                            f"[{index}].criterion.toolTrajectory.toolStrategy.{name}",
                            "tool strategy is null",
                            "use {} to accept any pair, or remove the entry",
                        )
                    )
    return problems
