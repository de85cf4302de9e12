"""The checks of an ADK ``test_config.json`` before its criteria become metrics.

google-adk reads the file leniently (unknown keys kept, ``criterias`` silently meaning no
criteria) and fails only when a metric is evaluated (a misspelt ``match_type``, a criterion
name no evaluator has).  The import writes a metric file that is scored later, without ADK:
what ADK would have refused, or a typo that would drop a check, must stop the import, or the
imported cases pass on fewer checks than the file asks for.  So, located at their JSON path:

* errors: a file that is not an object, no ``criteria`` object, a key or criterion name that
  is a near miss of one ADK defines (``criterias``, ``threshhold``,
  ``tool_trajectory_avg_scor``), a threshold that is no number, an unknown ``match_type``;
* warnings: any other unknown key, and ADK settings the import does not carry over.

Thresholds are read as ADK's pydantic reads them: a number, or text that is one (``"0.7"``).

Tested in tests/importers/test_adk_config.py.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from typing import Any

from pydantic.alias_generators import to_camel

from agenteval.errors import Problem
from agenteval.inputs.unknown_keys import UnknownKey, is_near_miss

# google-adk's PrebuiltMetrics (1.x): names a test_config.json may give criteria.
ADK_METRICS = frozenset(
    {
        "tool_trajectory_avg_score",
        "response_evaluation_score",
        "response_match_score",
        "safety_v1",
        "final_response_match_v2",
        "rubric_based_final_response_quality_v1",
        "hallucinations_v1",
        "rubric_based_tool_use_quality_v1",
        "per_turn_user_simulator_quality_v1",
        "multi_turn_task_success_v1",
        "multi_turn_trajectory_quality_v1",
        "multi_turn_tool_use_quality_v1",
        "rubric_based_multi_turn_trajectory_quality_v1",
        "tool_call_count_v1",
        "inference_call_count_v1",
        "token_usage_v1",
        "invocation_duration_v1",
    }
)
# EvalConfig's keys besides criteria: ADK's, but nothing the metric file can hold.
_OTHER_CONFIG_KEYS = ("custom_metrics", "user_simulator_config", "live_model_config")
_BASE_KEYS = ("threshold", "include_intermediate_responses_in_final")
# The keys of each criterion object (ADK's criterion models); others: _BASE_KEYS and judges'.
_CRITERION_KEYS: dict[str, tuple[str, ...]] = {
    "tool_trajectory_avg_score": (*_BASE_KEYS, "match_type", "ignore_args"),
    "response_match_score": _BASE_KEYS,
}
_JUDGE_KEYS = (*_BASE_KEYS, "judge_model_options", "rubrics", "evaluate_intermediate_nl_responses")
# ADK's MatchType by name: (ordered, subset) as the trajectory criterion reads them; and by
# the number ADK's enum gives each name.
MATCH_TYPES = {"EXACT": (True, False), "IN_ORDER": (True, True), "ANY_ORDER": (False, True)}
MATCH_NUMBERS = {0: "EXACT", 1: "IN_ORDER", 2: "ANY_ORDER"}


class _Warning(UnknownKey):
    """A warning that is no unknown key (a setting not carried over)."""


def threshold_of(value: Any) -> float | None:
    """A criterion's threshold as ADK reads it (a number or numeric text), or None."""
    if isinstance(value, dict):
        value = value.get("threshold")
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def get(data: Any, snake: str) -> Any:
    """``data[snake]``, or its camelCase spelling: the two key styles ADK writes."""
    if not isinstance(data, dict):
        return None
    if snake in data:
        return data[snake]
    return data.get(to_camel(snake))


def both_styles(keys: Iterable[str]) -> set[str]:
    """``keys`` (snake_case) in both key styles ADK writes."""
    return {form for key in keys for form in (key, to_camel(key))}


def key_problem(file: str, where: str, key: str, known: Iterable[str], what: str) -> UnknownKey:
    """An unknown key, ``near_miss`` (an error) when it is almost surely a typo of a known one."""
    names = sorted(both_styles(known))
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    meant = close[0] if close else ""
    hint = f"did you mean {meant!r}?" if meant else ""
    near = is_near_miss(key, meant)
    said = f"{key!r} is not {what}" + ("" if near else "; ignored")
    return UnknownKey(file, where, said, hint, meant, near)


_VERSION = re.compile(r"_v\d+$")


def _other_version(name: str, meant: str) -> bool:
    """``safety_v2`` beside ``safety_v1``: another version ADK may add, not a typo."""
    return bool(_VERSION.search(name)) and _VERSION.sub("", name) == _VERSION.sub("", meant)


def _is_error(problem: Problem) -> bool:
    return not isinstance(problem, UnknownKey) or problem.near_miss


def _is_match_type(value: Any) -> bool:
    """ADK's MatchType by name (any case, as the conversion reads it) or by number."""
    if isinstance(value, str):
        return value.upper() in MATCH_TYPES
    return isinstance(value, int) and not isinstance(value, bool) and value in MATCH_NUMBERS


def _criterion_problems(file: str, name: str, value: Any) -> list[Problem]:
    where = f"criteria.{name}"
    known = _CRITERION_KEYS.get(name, _JUDGE_KEYS)
    problems: list[Problem] = [
        key_problem(file, f"{where}.{key}", key, known, f"a setting of {name}")
        for key in (value if isinstance(value, dict) else ())
        if key not in both_styles(known)
    ]
    if threshold_of(value) is None:
        problems.append(
            Problem(
                file,
                f"{where}.threshold" if isinstance(value, dict) else where,
                "no threshold number" if isinstance(value, dict) else "not a threshold number",
                "give a number or {threshold: number, …}",
            )
        )
    if not isinstance(value, dict):
        return problems
    match = get(value, "match_type")
    if name == "tool_trajectory_avg_score" and match is not None and not _is_match_type(match):
        problems.append(
            Problem(
                file,
                f"{where}.match_type",
                f"unknown match_type {match!r}",
                f"one of {', '.join(MATCH_TYPES)}",
            )
        )
    if get(value, "include_intermediate_responses_in_final") is True:
        problems.append(
            _Warning(
                file,
                f"{where}.include_intermediate_responses_in_final",
                "not imported: agenteval scores the final response only",
            )
        )
    if name not in _CRITERION_KEYS:
        problems.extend(_judge_problems(file, where, value))
    return problems


def _judge_problems(file: str, where: str, value: dict[str, Any]) -> list[Problem]:
    """A judged criterion's judge options and rubrics: what the metric file's llmJudge gets
    (a judge_model of 5, a rubric without text, were written as they were)."""
    problems: list[Problem] = []
    options = get(value, "judge_model_options")
    at = f"{where}.judge_model_options"
    if options is not None and not isinstance(options, dict):
        problems.append(Problem(file, at, "expected an object"))
    elif options is not None:
        known = ("judge_model", "judge_model_config", "num_samples", "parallelism_limit")
        problems += [
            key_problem(file, f"{at}.{key}", key, known, "a judge model option")
            for key in options
            if key not in both_styles(known)
        ]
        model, samples = get(options, "judge_model"), get(options, "num_samples")
        if model is not None and (not isinstance(model, str) or not model):
            problems.append(Problem(file, f"{at}.judge_model", "expected a model name"))
        if samples is not None and (
            isinstance(samples, bool) or not isinstance(samples, int) or samples < 1
        ):
            problems.append(Problem(file, f"{at}.num_samples", "expected an integer >= 1"))
    rubrics = get(value, "rubrics")
    if rubrics is not None and not isinstance(rubrics, list):
        return [*problems, Problem(file, f"{where}.rubrics", "expected an array of rubrics")]
    for index, rubric in enumerate(rubrics or []):
        content = get(rubric, "rubric_content") if isinstance(rubric, dict) else None
        text = get(content, "text_property") if isinstance(content, dict) else None
        if not isinstance(text, str) or not text.strip():
            problems.append(
                Problem(
                    file,
                    f"{where}.rubrics[{index}]",
                    "a rubric without text: the judge would be asked about nothing",
                    "expected {rubric_id, rubric_content: {text_property: TEXT}}",
                )
            )
    return problems


def config_problems(config: Any, file: str) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings) of a ``test_config.json``."""
    problems = _all_problems(config, file)
    errors = [p for p in problems if _is_error(p)]
    return errors, [p for p in problems if not _is_error(p)]


def _all_problems(config: Any, file: str) -> list[Problem]:
    if not isinstance(config, dict):
        return [Problem(file, "$", "expected an object", "expected {criteria: {name: threshold}}")]
    problems: list[Problem] = []
    for key in config:
        if key in both_styles(_OTHER_CONFIG_KEYS):
            problems.append(_Warning(file, key, "ADK setting not imported"))
        elif key != "criteria":
            problems.append(key_problem(file, key, key, ("criteria",), "a key of test_config.json"))
    criteria = config.get("criteria")
    if not isinstance(criteria, dict) or not criteria:
        problems.append(
            Problem(
                file,
                "criteria",
                "no criteria: nothing would be scored",
                "expected {criteria: {name: threshold}}",
            )
        )
        return problems
    for name, value in criteria.items():
        if name not in ADK_METRICS:
            problem = key_problem(file, f"criteria.{name}", name, ADK_METRICS, "an ADK criterion")
            if _is_error(problem) and not _other_version(name, problem.meant):
                problems.append(problem)
            continue  # an unknown criterion's warning comes from the conversion
        problems.extend(_criterion_problems(file, name, value))
    return problems
