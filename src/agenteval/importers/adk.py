"""Google ADK eval files → trpc-agent-go eval sets and metric files.

Reads the three kinds of file ADK writes, in both key styles it writes them (snake_case from
``model_dump_json()``, camelCase from its web API, which dumps by alias):

* eval sets (``{eval_set_id, eval_cases: [{eval_id, conversation: [Invocation]}]}``);
* legacy ``*.test.json`` files (``[{query, expected_tool_use, reference}]``), one case per file
  as ADK's own migration makes them;
* eval results (``{eval_set_result_id, eval_case_results: [...]}``, also string-wrapped as
  ADK's local results manager writes them): trace-mode cases whose recorded turns are the
  ``actual_invocation``s and whose expected turns are the ``expected_invocation``s.

Every file is first validated against ADK's format (``adk_format.py``): a value of the
wrong type, a ``null`` turn, a case with neither conversation nor scenario, and duplicate
``eval_id``s are located errors (exit 2) and nothing is written.

An ADK invocation maps to a trpc-agent-go invocation as ADK's own evaluators read it: the user
and final-response text is the text parts joined by newlines; tools are the function calls of
``intermediate_data`` (``tool_uses``, or the ``function_call`` parts of ``invocation_events``)
with the ``function_response`` of the same id as result.  What the turn's model calls
spent (the ``usage_metadata`` of its ``invocation_events``, read as ADK's ``token_usage``
reads it) becomes the turn's ``usage``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic.alias_generators import to_camel

from agenteval.errors import ConfigError, Problem
from agenteval.importers import adk_format as fmt
from agenteval.importers.adk_config import (
    MATCH_NUMBERS,
    MATCH_TYPES,
    config_problems,
    get,
    threshold_of,
)
from agenteval.importers.adk_format import validate_adk
from agenteval.inputs.finite_numbers import non_finite_numbers
from agenteval.inputs.loading import read_text
from agenteval.schema.evalset import (
    ConversationScenario,
    EvalCase,
    EvalSet,
    Invocation,
    Message,
    SessionInput,
    Tool,
    Usage,
)

# ADK's AgentEvaluator criteria when a test folder has no test_config.json.
ADK_DEFAULT_CRITERIA: dict[str, Any] = {
    "tool_trajectory_avg_score": 1.0,
    "response_match_score": 0.8,
}
ADK_DEFAULT_JUDGE = "gemini-2.5-flash"
ADK_DEFAULT_SAMPLES = 5


@dataclass(slots=True)
class Imported:
    """What one input file became: eval sets, metric files (as JSON data) and warnings."""

    evalsets: list[EvalSet] = field(default_factory=list)
    metrics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)


def _tools(intermediate: fmt.IntermediateData | fmt.InvocationEvents | None) -> list[Tool]:
    calls: list[fmt.FunctionCall] = []
    responses: list[fmt.FunctionResponse] = []
    if isinstance(intermediate, fmt.InvocationEvents):
        for event in intermediate.invocation_events:
            for part in (event.content.parts if event.content else None) or []:
                if part.function_call is not None:
                    calls.append(part.function_call)
                if part.function_response is not None:
                    responses.append(part.function_response)
    elif intermediate is not None:
        calls, responses = intermediate.tool_uses, intermediate.tool_responses
    by_id = {r.id: r.response for r in responses}
    return [
        Tool(
            id=call.id or "",
            name=call.name or "",
            arguments=call.args,
            result=by_id.get(call.id) if call.id else None,
        )
        for call in calls
    ]


def _model_key(versions: set[str | None]) -> str:
    """The turn's model as the price table names it, "" unless every call names the same one.

    ADK records the model's own version string; a Gemini one (``gemini-2.5-flash``) is
    served by the ``gemini`` provider, any other is kept as it is (no provider: no price).
    """
    if len(versions) != 1:
        return ""
    (version,) = versions
    if not version:
        return ""
    return f"gemini:{version}" if version.startswith("gemini-") else version


def _usage(intermediate: fmt.IntermediateData | fmt.InvocationEvents | None) -> Usage | None:
    """What the turn's model calls spent, as ADK's ``token_usage`` / ``inference_call_count``
    read it: an event with ``usage_metadata`` or ``model_version`` is a model call; input is
    prompt + tool-use prompt tokens, output candidates + thoughts tokens.  None when no
    event reports usage."""
    if not isinstance(intermediate, fmt.InvocationEvents):
        return None
    calls = [
        e
        for e in intermediate.invocation_events
        if e.usage_metadata is not None or e.model_version is not None
    ]
    reported = [e.usage_metadata for e in calls if e.usage_metadata is not None]
    if not reported:
        return None
    usage = Usage(inference_calls=len(calls), model=_model_key({e.model_version for e in calls}))
    for spent in reported:
        usage.input_tokens += (spent.prompt_token_count or 0) + (
            spent.tool_use_prompt_token_count or 0
        )
        usage.output_tokens += (spent.candidates_token_count or 0) + (
            spent.thoughts_token_count or 0
        )
        usage.cached_input_tokens += spent.cached_content_token_count or 0
        # No cacheWriteInputTokens: google-genai's usage metadata has no count of tokens
        # written to a cache (Gemini bills a cache's creation and storage apart).
    return usage


def _text(content: fmt.Content | None) -> str:
    """ADK's text of a ``Content``: its text parts joined by newlines (thought parts too, as ADK)."""
    parts = content.parts if content is not None else None
    return "\n".join(p.text for p in parts or [] if p.text)


def invocation(turn: fmt.Invocation) -> Invocation:
    """One ADK ``Invocation`` as a trpc-agent-go invocation."""
    final = turn.final_response
    return Invocation(
        invocation_id=turn.invocation_id or "",
        user_content=Message(role="user", content=_text(turn.user_content)),
        final_response=Message(role="assistant", content=_text(final))
        if final is not None
        else None,
        tools=_tools(turn.intermediate_data),
        creation_timestamp=turn.creation_timestamp or None,
        usage=_usage(turn.intermediate_data),
    )


def _session_input(data: fmt.SessionInput | None) -> SessionInput:
    if data is None:
        return SessionInput()
    return SessionInput(
        app_name=data.app_name or "", user_id=data.user_id or "", state=data.state or None
    )


def _scenario(data: fmt.ConversationScenario | None) -> ConversationScenario | None:
    if data is None:
        return None
    return ConversationScenario(
        starting_prompt=data.starting_prompt, conversation_plan=data.conversation_plan
    )


def _duplicates(file: str, ids: Sequence[str], where: str, key: str) -> list[Problem]:
    """One problem per case whose id an earlier case already has."""
    first: dict[str, int] = {}
    problems: list[Problem] = []
    for index, eval_id in enumerate(ids):
        if eval_id in first:
            problems.append(
                Problem(
                    file,
                    f"{where}[{index}].{key}",
                    f"duplicate {key} {eval_id!r} (also {where}[{first[eval_id]}])",
                    "every case needs its own id",
                )
            )
        else:
            first[eval_id] = index
    return problems


def _spelt(data: Any, cases: str) -> tuple[str, str]:
    """The cases key and ``eval_id`` as the file spells its keys (camelCase when its cases key is)."""
    if isinstance(data, dict) and to_camel(cases) in data:
        return to_camel(cases), "evalId"
    return cases, "eval_id"


def evalset_from_adk(data: fmt.EvalSet, file: str, raw: Any = None) -> Imported:
    """An ADK eval set (either key style) as a trpc-agent-go eval set (``raw``: the file's data)."""
    out = Imported()
    where, key = _spelt(raw, "eval_cases")
    ids = [case.eval_id or f"case-{index + 1}" for index, case in enumerate(data.eval_cases)]
    duplicates = _duplicates(file, ids, where, key)
    if duplicates:
        raise ConfigError(duplicates)
    cases: list[EvalCase | None] = []
    for index, (eval_id, case) in enumerate(zip(ids, data.eval_cases, strict=True)):
        if case.rubrics:
            out.warnings.append(
                Problem(
                    file,
                    f"{where}[{index}].rubrics",
                    "case rubrics are not imported",
                    "put rubrics in the metric file",
                )
            )
        cases.append(
            EvalCase(
                eval_id=eval_id,
                conversation=[invocation(t) for t in case.conversation]
                if case.conversation is not None
                else None,
                conversation_scenario=_scenario(case.conversation_scenario),
                session_input=_session_input(case.session_input),
            )
        )
    set_id = data.eval_set_id or Path(file).name.split(".")[0]
    out.evalsets.append(
        EvalSet(
            eval_set_id=set_id,
            name=data.name or "",
            description=data.description or "",
            eval_cases=cases,
        )
    )
    return out


def evalset_from_legacy(rows: list[fmt.LegacyRow], file: str) -> Imported:
    """A legacy ``*.test.json`` (one multi-turn case per file, as ADK migrates it)."""
    turns: list[Invocation | None] = [
        Invocation(
            user_content=Message(role="user", content=row.query),
            final_response=Message(role="assistant", content=row.reference or ""),
            tools=[
                Tool(name=use.tool_name, arguments=use.tool_input) for use in row.expected_tool_use
            ],
        )
        for row in rows
    ]
    name = Path(file).name
    stem = name[: -len(".test.json")] if name.endswith(".test.json") else Path(file).stem
    case = EvalCase(eval_id=stem, conversation=turns, session_input=SessionInput())
    return Imported(evalsets=[EvalSet(eval_set_id=stem, name=stem, eval_cases=[case])])


def evalset_from_results(data: fmt.EvalSetResult, file: str, raw: Any = None) -> Imported:
    """ADK eval results as a trace-mode eval set: recorded turns plus expected turns."""
    out = Imported()
    where, key = _spelt(raw, "eval_case_results")
    results = data.eval_case_results
    ids = [result.eval_id or f"case-{index + 1}" for index, result in enumerate(results)]
    duplicates = _duplicates(file, ids, where, key)
    if duplicates:
        raise ConfigError(duplicates)
    cases: list[EvalCase | None] = []
    for index, (eval_id, result) in enumerate(zip(ids, results, strict=True)):
        per_turn = result.eval_metric_result_per_invocation
        actual = [invocation(t.actual_invocation) for t in per_turn]
        expected = [invocation(t.expected_invocation) for t in per_turn if t.expected_invocation]
        if expected and len(expected) != len(actual):
            out.warnings.append(
                Problem(
                    file,
                    f"{where}[{index}]",
                    "some turns have no expected invocation; expected turns dropped",
                )
            )
            expected = []
        cases.append(
            EvalCase(
                eval_id=eval_id,
                eval_mode="trace",
                actual_conversation=list(actual),
                conversation=list(expected) or None,
                session_input=SessionInput(user_id=result.user_id or ""),
            )
        )
    set_id = data.eval_set_id or data.eval_set_result_id or Path(file).stem
    out.evalsets.append(
        EvalSet(eval_set_id=set_id, name=data.eval_set_result_name or "", eval_cases=cases)
    )
    return out


def _trajectory(value: Any, threshold: float) -> dict[str, Any]:
    raw = get(value, "match_type")
    match = MATCH_NUMBERS.get(raw, "EXACT") if isinstance(raw, int) else str(raw or "EXACT").upper()
    ordered, subset = MATCH_TYPES.get(match, (True, False))
    # ADK compares names and args (Python equality), never results: no number tolerance
    # (agenteval's default 1e-6 passed an amount of 100.000000001 for 100; ADK does not).
    strategy: dict[str, Any] = {"name": {"matchStrategy": "exact"}}
    if not get(value, "ignore_args"):
        strategy["arguments"] = {"numberTolerance": 0}
    return {
        "metricName": "tool_trajectory_avg_score",
        "threshold": threshold,
        "criterion": {
            "toolTrajectory": {
                "orderSensitive": ordered,
                "subsetMatching": subset,
                "defaultStrategy": strategy,
            }
        },
    }


def _judge_model(value: Any) -> dict[str, Any]:
    options = get(value, "judge_model_options")
    samples = get(options, "num_samples")
    return {
        "providerName": "openai",
        "modelName": get(options, "judge_model") or ADK_DEFAULT_JUDGE,
        "baseURL": "${JUDGE_MODEL_BASE_URL}",
        "apiKey": "${JUDGE_MODEL_API_KEY}",
        "numSamples": samples if isinstance(samples, int) and samples > 0 else ADK_DEFAULT_SAMPLES,
    }


def _rubrics(value: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, rubric in enumerate(get(value, "rubrics") or []):
        content = get(rubric, "rubric_content")
        text = get(content, "text_property") or ""
        out.append(
            {"id": get(rubric, "rubric_id") or f"rubric-{index + 1}", "content": {"text": text}}
        )
    return out


# ADK criteria with an agenteval evaluator that judges the same question.
_JUDGED = {
    "final_response_match_v2": "llm_final_response",
    "rubric_based_final_response_quality_v1": "llm_rubric_response",
    "hallucinations_v1": "llm_hallucinations",
}


def metrics_from_config(config: Any, file: str) -> tuple[list[dict[str, Any]], list[Problem]]:
    """A trpc-agent-go metric list for ADK ``test_config.json`` data, with a warning per criterion left out."""
    criteria = get(config, "criteria")
    if not isinstance(criteria, dict):
        return [], [
            Problem(
                file, "criteria", "no criteria object", "expected {criteria: {name: threshold}}"
            )
        ]
    metrics: list[dict[str, Any]] = []
    warnings: list[Problem] = []
    for name, value in criteria.items():
        threshold = threshold_of(value)
        where = f"criteria.{name}"
        if threshold is None:
            warnings.append(Problem(file, where, "no threshold; criterion not imported"))
        elif name == "tool_trajectory_avg_score":
            metrics.append(_trajectory(value, threshold))
        elif name == "response_match_score":
            metrics.append({"metricName": "response_match_score", "threshold": threshold})
        elif name in _JUDGED:
            llm_judge: dict[str, Any] = {"judgeModel": _judge_model(value)}
            rubrics = _rubrics(value)
            if rubrics:
                llm_judge["rubrics"] = rubrics
            metrics.append(
                {
                    "metricName": name,
                    "evaluatorName": _JUDGED[name],
                    "threshold": threshold,
                    "criterion": {"llmJudge": llm_judge},
                }
            )
            warnings.append(
                Problem(
                    file,
                    where,
                    f"imported as {_JUDGED[name]}: an LLM judge with agenteval's prompt, not ADK's",
                    "set JUDGE_MODEL_BASE_URL and JUDGE_MODEL_API_KEY (e.g. Gemini's OpenAI-compatible endpoint)",
                )
            )
        else:
            warnings.append(
                Problem(
                    file, where, f"ADK criterion {name!r} has no agenteval equivalent; not imported"
                )
            )
    return metrics, warnings


def load_json(path: Path) -> Any:
    """A JSON file's data (a string-wrapped document unwrapped), or ConfigError.

    pydantic_core's parser bounds nesting (as the eval set loaders do) and says where
    the text breaks; the stdlib's raised RecursionError on 5,000 nested ``[``.
    """
    text = read_text(path)
    try:
        data = pydantic_core.from_json(text)
    except ValueError as exc:
        raise ConfigError([Problem(str(path), "", f"invalid JSON: {exc}")]) from None
    if isinstance(data, str):
        try:
            data = pydantic_core.from_json(data)
        except ValueError as exc:
            raise ConfigError(
                [Problem(str(path), "$", f"invalid JSON in the string-wrapped document: {exc}")]
            ) from None
    # NaN and Infinity read as numbers but no run can use them (written out, they are null
    # or invalid JSON): located errors, as in the files agenteval reads itself.
    infinite = non_finite_numbers(data, str(path), text)
    if infinite:
        raise ConfigError(infinite)
    return data


def import_adk_file(path: Path, kind: str) -> Imported:
    """Convert one ADK file whose kind ``detect`` recognised; metrics from its ``test_config.json``."""
    data = load_json(path)
    file = str(path)
    model, problems = validate_adk(data, kind, file)
    unknown = fmt.unknown_keys(model, data, file) if not problems else []
    problems += [p for p in unknown if p.near_miss]
    if problems:
        raise ConfigError(problems, [p for p in unknown if not p.near_miss])
    if kind == "adk-legacy":
        imported = evalset_from_legacy(model, file)
    elif kind == "adk-result":
        imported = evalset_from_results(model, file, data)
    else:
        imported = evalset_from_adk(model, file, data)
    config_path = path.with_name("test_config.json")
    if config_path.is_file():
        config = load_json(config_path)
        errors, checked = config_problems(config, str(config_path))
        if errors:
            raise ConfigError(errors)
        metrics, warnings = metrics_from_config(config, str(config_path))
        warnings = checked + warnings
    else:
        metrics, warnings = metrics_from_config(
            {"criteria": ADK_DEFAULT_CRITERIA}, "(ADK defaults)"
        )
        warnings = [
            Problem(
                str(config_path),
                "",
                "no test_config.json beside the file; using ADK's default criteria",
                "tool_trajectory_avg_score 1.0, response_match_score 0.8",
            )
        ]
    imported.warnings.extend([*unknown, *warnings])
    for evalset in imported.evalsets:
        imported.metrics[evalset.eval_set_id] = metrics
    return imported


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A file-name-safe form of an id (nothing can climb out of the output directory)."""
    cleaned = _UNSAFE.sub("_", name).strip("._") or "evalset"
    return cleaned[:120]


def distinct_ids(evalsets: Sequence[EvalSet]) -> None:
    """Give eval sets that would share a file name distinct ids (``x``, ``x-2`` …)."""
    seen: dict[str, int] = {}
    for evalset in evalsets:
        base = safe_name(evalset.eval_set_id)
        count = seen.get(base, 0) + 1
        seen[base] = count
        evalset.eval_set_id = base if count == 1 else f"{base}-{count}"
