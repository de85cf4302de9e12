"""The labels line model: exactly one verdict, strict types, no unknown keys."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agenteval.schema.labels import KEYS, LabelLine


def test_one_verdict_per_line() -> None:
    line = LabelLine.model_validate(
        {"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}
    )
    assert (line.eval_set_id, line.label, line.score) == ("s", "pass", None)
    with pytest.raises(ValidationError, match="give exactly one of label"):
        LabelLine.model_validate(
            {"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "fail", "score": 0.2}
        )
    with pytest.raises(ValidationError, match="give exactly one of label"):
        LabelLine.model_validate({"evalSetId": "s", "evalId": "c", "metricName": "m"})


def test_unknown_keys_and_bad_values_are_refused() -> None:
    base = {"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}
    with pytest.raises(ValidationError, match="Extra inputs"):
        LabelLine.model_validate({**base, "lable": "pass"})
    with pytest.raises(ValidationError):
        LabelLine.model_validate({**base, "runId": 0})
    assert set(KEYS) == {f.alias or name for name, f in LabelLine.model_fields.items()}
