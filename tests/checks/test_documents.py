"""Raw-document checks: wrong kinds refused, non-finite numbers errors, unknown keys per --strict."""

from __future__ import annotations

from agenteval.checks.documents import check_evalset_document, check_metrics_document, parsed
from agenteval.errors import Problem
from agenteval.inputs.unknown_keys import Strictness


def test_near_misses_are_errors_unless_lenient_other_keys_warnings_unless_strict() -> None:
    data = parsed('{"evalSetId": "s", "evalCases": [], "evalSetID": "x", "owner": "me"}')
    readable, problems, warnings = check_evalset_document(data, "f", Strictness.DEFAULT)
    paths = (readable, [p.path for p in problems], [w.path for w in warnings])
    assert paths == (True, ["evalSetID"], ["owner"])
    readable, problems, warnings = check_evalset_document(data, "f", Strictness.LENIENT)
    paths = (readable, [p.path for p in problems], [w.path for w in warnings])
    assert paths == (True, [], ["evalSetID", "owner"])
    readable, problems, warnings = check_evalset_document(data, "f", Strictness.STRICT)
    assert (readable, [p.path for p in problems], warnings) == (True, ["evalSetID", "owner"], [])


def test_a_metric_file_near_miss_is_an_error() -> None:
    data = parsed('[{"metricName": "m", "threshhold": 0.8}]')
    _, problems, warnings = check_metrics_document(
        data, "m", Strictness.DEFAULT, builtin=lambda n: True
    )
    assert ([str(p) for p in problems], warnings) == (
        [
            "m: [0].threshhold: 'threshhold' is not a field of EvalMetric (did you mean 'threshold'?)"
        ],
        [],
    )


def test_a_result_given_as_eval_set_is_not_readable() -> None:
    data = parsed('{"evalSetResultId": "r", "evalCaseResults": []}')
    readable, problems, warnings = check_evalset_document(data, "f", Strictness.DEFAULT)
    assert not readable and warnings == []
    assert [str(p) for p in problems] == [
        "f: not an eval set (looks like a result file) "
        "(pass it to show, diff, merge, --resume or --traces)"
    ]


def test_a_prices_or_labels_file_given_as_eval_set_or_metrics_is_named() -> None:
    # A prices file validated as an eval set with one unknown-key warning (exit 0); a label
    # line was called "an eval set" (its evalSetId) when given as --metrics.
    prices = parsed('{"openai:gpt-4o": {"inputPerMillion": 2.5, "outputPerMillion": 10}}')
    label = parsed('{"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}')
    assert check_evalset_document(prices, "f", Strictness.DEFAULT) == (
        False,
        [Problem("f", "", "not an eval set (looks like a prices file)", "pass it with --prices")],
        [],
    )
    _, problems, _ = check_metrics_document(
        label, "m", Strictness.DEFAULT, builtin=lambda name: True
    )
    assert [str(p) for p in problems] == [
        "m: not a metric file (looks like a labels file) (pass it with --labels)"
    ]


def test_non_finite_numbers_are_errors_even_without_strict() -> None:
    data = parsed('[{"metricName": "m", "threshold": NaN}]')
    readable, problems, _ = check_metrics_document(
        data, "m", Strictness.DEFAULT, builtin=lambda name: True
    )
    assert readable and [p.path for p in problems] == ["[0].threshold"]


def test_text_that_is_not_json_is_left_to_the_model_reader() -> None:
    assert parsed("{not json") is None


def test_a_key_given_twice_is_a_warning_unless_strict() -> None:
    text = (
        '[{"metricName": "final_response_avg_score", "threshold": 0.9, "threshold": 0,'
        ' "criterion": {"finalResponse": {"text": {"matchStrategy": "exact",'
        ' "matchStrategy": "regex"}}}}]'
    )
    data = parsed(text)
    ok, problems, warnings = check_metrics_document(
        data, "m.json", Strictness.DEFAULT, builtin=lambda name: True, text=text
    )
    assert ok and problems == []
    assert [(w.path, w.message) for w in warnings] == [
        ("[0].threshold", 'key "threshold" given twice; the last value (0) is used'),
        (
            "[0].criterion.finalResponse.text.matchStrategy",
            'key "matchStrategy" given twice; the last value ("regex") is used',
        ),
    ]
    _, strict_problems, strict_warnings = check_metrics_document(
        data, "m.json", Strictness.STRICT, builtin=lambda name: True, text=text
    )
    assert strict_problems == warnings and strict_warnings == []
