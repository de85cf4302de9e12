"""Located problems for agenteval's own formats: unknown keys with the nearest key, quoted paths."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agenteval.inputs.own_formats import closest, json_path, strict_problems


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    input_per_million: float = Field(alias="inputPerMillion", ge=0)


def test_json_path_quotes_keys_that_are_not_plain_names() -> None:
    assert json_path(["a", 3, "b"]) == "a[3].b"
    assert json_path(["openai:gpt-4.1", "inputPerMillion"]) == '["openai:gpt-4.1"].inputPerMillion'
    assert json_path(['say "x"']) == '["say \\"x\\""]'


def test_closest_key() -> None:
    keys = ["inputPerMillion", "outputPerMillion"]
    assert closest("input_per_million", keys) == "inputPerMillion"
    assert closest("outputPerMilion", keys) == "outputPerMillion"
    assert closest("colour", keys) == ""


def test_strict_problems_name_the_near_key_and_the_bound() -> None:
    try:
        Entry.model_validate({"inputPerMillion": -1, "inputPerMilion": 1})
    except ValidationError as exc:
        lines = sorted(str(p) for p in strict_problems("f.json", exc, ["inputPerMillion"]))
    assert lines == [
        "f.json: inputPerMilion: unknown key (did you mean 'inputPerMillion'?)",
        "f.json: inputPerMillion: must be at least 0, got -1",
    ]
