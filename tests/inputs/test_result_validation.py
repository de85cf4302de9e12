"""agenteval.inputs.result_validation: parsed JSON validated to the same results and the same problems.

The reference is the route every result reader took before:
``EvalSetResult.model_validate_json(text)``.  The readers now validate a result in
pieces (head, each case, each case summary: result_inputs.read_as_result).  Valid
files (trpc-agent-go's own and agenteval's, criteria included) must give equal
models that write the same bytes; broken files (seeded mutations of every kind at
every place) must give the same problems, word for word, place for place and in
the same order.  What the readers check beyond validation (non-finite numbers, misspelt
keys: ``piece_problems``) is the whole document's check, made first.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agenteval.inputs.loading import validation_problems
from agenteval.inputs.result_inputs import piece_problems, read_as_result
from agenteval.inputs.result_validation import CaseValidator
from agenteval.schema.base import dump_json
from agenteval.schema.metric import Criterion
from agenteval.schema.result import EvalSetResult
from tests.sample_results import criteria_result
from tests.trpc_fixtures import FIXTURES

TRPC_RESULTS = sorted(FIXTURES.glob("**/*.evalset_result.json"))


def old_route(text: str) -> tuple[bytes | None, list[Any]]:
    """What the readers did before: the model's written bytes, or the problems."""
    try:
        return dump_json(EvalSetResult.model_validate_json(text)).encode(), []
    except ValidationError as exc:
        return None, validation_problems("r.json", exc)


def check_errors(text: str) -> list[str]:
    """The errors of the readers' checks over the whole document (stdlib-parsed: NaN,
    Infinity and 1e400 read as floats), each criterion walked once as the readers do, and
    a case's run found twice or missing (:func:`layout_errors`)."""
    data = json.loads(text)
    if not isinstance(data, dict):
        return []
    errors, _ = piece_problems(data, "r.json", EvalSetResult, "", criteria=set())
    return [str(problem) for problem in errors] + layout_errors(data)


def layout_errors(data: dict[str, Any]) -> list[str]:
    """What ``layout_problems`` finds, found here from the parsed document (as messages)."""
    cases = data.get("evalCaseResults")
    summary = data.get("summary")
    if not isinstance(cases, list):
        return []
    seen: dict[str, list[int]] = {}
    errors: list[str] = []
    for case in cases:
        run = case.get("runId") if isinstance(case, dict) else None
        run = run if isinstance(run, int) and not isinstance(run, bool) else 0
        if run < 0:
            errors.append(f"{run} is no run")
            continue
        eval_id = case.get("evalId") if isinstance(case, dict) else None
        if not isinstance(eval_id, str) or not eval_id:
            continue
        run = run or 1
        if run in seen.setdefault(eval_id, []):
            errors.append(f"case {eval_id!r} run {run} is also at")
        seen[eval_id].append(run)
    num_runs = summary.get("numRuns") if isinstance(summary, dict) else None
    num_runs = num_runs if isinstance(num_runs, int) and not isinstance(num_runs, bool) else 0
    highest = max((max(runs) for runs in seen.values()), default=0)
    if num_runs < 0:
        errors.append("is no run count")
    if 0 < num_runs < highest:
        errors.append(f"{num_runs}, but case results hold run {highest}")
    expected = max(num_runs, highest)
    if expected > 1 and data.get("partial") is not True:
        errors += [
            f"case {eval_id!r} lacks run"
            for eval_id, runs in seen.items()
            if set(range(1, expected + 1)) - set(runs)
        ]
    return errors


def reads_as_before(text: str) -> None:
    """The readers give what validating the whole text gives, or the checks' errors."""
    got = new_route(text)
    errors = check_errors(text)
    if errors:
        assert got[0] is None, text
        found = [str(problem) for problem in got[1]]
        assert all(any(error in line for line in found) for error in errors), (errors, found)
    else:
        assert got == old_route(text), text


def new_route(text: str) -> tuple[bytes | None, list[Any]]:
    """The same through the readers' route: validated in pieces from parsed JSON."""
    result, problems = read_as_result(text, "r.json")
    return (dump_json(result).encode() if result is not None else None), problems


def pieces(text: str) -> EvalSetResult:
    result, problems = read_as_result(text, "r.json")
    assert result is not None, problems
    return result


@pytest.mark.parametrize("path", TRPC_RESULTS, ids=lambda p: p.name[:40])
def test_trpc_result_files_give_equal_models(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = EvalSetResult.model_validate_json(text)
    got = pieces(text)
    assert got == expected
    assert dump_json(got) == dump_json(expected)


def test_the_trpc_fixtures_are_there() -> None:
    assert len(TRPC_RESULTS) >= 10


def test_agenteval_results_give_equal_models_and_share_equal_criteria() -> None:
    text = json.dumps(criteria_result())
    expected = EvalSetResult.model_validate_json(text)
    got = pieces(text)
    assert got == expected
    assert dump_json(got) == dump_json(expected)
    criteria = [
        m.criterion
        for case in got.case_results()
        for m in case.overall_eval_metric_results or []
        if m.criterion is not None
    ]
    assert len(criteria) > 20
    # One object per distinct criterion, as a run shares its metric's criterion.
    assert len({id(c) for c in criteria}) == 2
    assert {type(c) for c in criteria} == {Criterion}


def test_criteria_that_compare_equal_in_python_are_not_merged() -> None:
    """1, 1.0 and true are == in Python, not in the schema; key order shows in extras."""
    data = criteria_result()
    metrics = data["evalCaseResults"][0]["overallEvalMetricResults"]
    metrics[0]["criterion"] = {"finalResponse": {"text": {"ignore": True}}}
    metrics[1]["criterion"] = {"finalResponse": {"text": {"ignore": 1}}}
    text = json.dumps(data)
    assert new_route(text) == old_route(text)
    assert old_route(text)[1][0].path.endswith("criterion.finalResponse.text.ignore")
    metrics[1]["criterion"] = {"finalResponse": {"text": {"ignore": True}}, "x": 1, "y": 2}
    metrics[0]["criterion"] = {"finalResponse": {"text": {"ignore": True}}, "y": 2, "x": 1}
    text = json.dumps(data)
    assert new_route(text) == old_route(text)
    assert old_route(text)[0] is not None


SCALARS: list[Any] = [
    None, True, False, 0, 1, -1, 2**70, 1.0, 0.5, -0.0, 1e300, "", "x", "passed", "failed",
    "not_evaluated", "incomplete", "PASSED", "1", [], {}, [1, "a"], {"k": "v"}, {"evalStatus": 1},
]  # fmt: skip


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    places = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            places += _places(item, (*path, index))
    return places


def _mutated(data: Any, rng: random.Random) -> Any:
    """``data`` with one to three places given another value, or a key added or dropped."""
    data = copy.deepcopy(data)
    for _ in range(rng.randint(1, 3)):
        place = rng.choice(_places(data)[1:])
        parent = data
        for step in place[:-1]:
            parent = parent[step]
        roll = rng.random()
        if roll < 0.1 and isinstance(parent, dict):
            del parent[place[-1]]
        elif roll < 0.2 and isinstance(parent, dict):
            parent[rng.choice(["evalStatus", "eval_status", "score", "criterion", "zz"])] = (
                rng.choice(SCALARS)
            )
        else:
            parent[place[-1]] = copy.deepcopy(rng.choice(SCALARS))
    return data


@pytest.mark.parametrize("seed", range(6))
def test_broken_files_give_the_same_problems(seed: int) -> None:
    rng = random.Random(seed)
    base = criteria_result()
    trpc = json.loads(TRPC_RESULTS[seed % len(TRPC_RESULTS)].read_text(encoding="utf-8"))
    outcomes = {"valid": 0, "broken": 0, "checked": 0}
    for _ in range(60):
        text = json.dumps(_mutated(rng.choice([base, trpc]), rng))
        reads_as_before(text)
        outcomes["valid" if new_route(text)[0] is not None else "broken"] += 1
        outcomes["checked"] += bool(check_errors(text))
    assert outcomes["valid"] > 0 and outcomes["broken"] > 0


@pytest.mark.parametrize(
    "text",
    [
        # Duplicate keys: the last one wins in both routes.
        '{"evalSetId": "a", "evalSetId": "b", "evalCaseResults": []}',
        '{"evalCaseResults": [{"evalId": "a", "finalEvalStatus": "passed", "finalEvalStatus": 3}]}',
        # A field under its file key and its Python name.
        '{"evalCaseResults": [{"evalId": "a", "eval_id": "b", "run_id": 2, "runId": 3}]}',
        '{"evalCaseResults": [{"overallEvalMetricResults": [{"criterion": null}, {"criterion": []}]}]}',
        '{"evalCaseResults": [{"overallEvalMetricResults": [{"criterion": {"llmJudge": {"rubrics": 1}}}]}]}',
        '{"evalCaseResults": [{"score": NaN, "runId": 1.0}], "creationTimestamp": 1e400}',
        '{"evalCaseResults": 7, "judgeFailures": true}',
        '{"evalCaseResults": [], "judgeFailures": ["a", 1], "partial": 1}',
        '["not", "an", "object"]',
    ],
)
def test_edge_cases_give_the_same_outcome(text: str) -> None:
    reads_as_before(text)


def test_a_failure_puts_the_parsed_data_back_for_the_text() -> None:
    """A case that fails is worded from its JSON text, which may be made after the try."""
    data = criteria_result()["evalCaseResults"][-1]
    data["runId"] = "two"
    validator = CaseValidator()
    with pytest.raises(ValidationError) as raised:
        validator.case(data, lambda: json.dumps(data))
    assert [e["loc"][-1] for e in raised.value.errors()] == ["runId"]
    assert data == json.loads(json.dumps(data))  # no models left behind in the data
