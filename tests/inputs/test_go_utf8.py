"""Invalid UTF-8 inside JSON strings read as U+FFFD, as Go's encoding/json reads it, with a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.checks.documents import load_checked_evalset
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.go_utf8 import go_utf8
from agenteval.inputs.loading import read_text
from agenteval.inputs.result_inputs import read_results
from cli_process import run_cli

EVALSET = {
    "evalSetId": "s",
    "evalCases": [
        {
            "evalId": "c1",
            "conversation": [
                {
                    "invocationId": "i1",
                    "userContent": {"role": "user", "content": "caf\u00e9 PLACE"},
                    "finalResponse": {"role": "assistant", "content": "ok"},
                }
            ],
            "sessionInput": {"appName": "a", "userId": "u"},
        }
    ],
}


def _with_byte(data: object, stray: bytes) -> bytes:
    """``data`` as JSON with ``stray`` written where the text says PLACE."""
    return json.dumps(data, ensure_ascii=False, indent=2).encode().replace(b"PLACE", stray)


def test_each_invalid_byte_is_one_replacement_character_as_in_go() -> None:
    # Go's decoder writes one U+FFFD per byte of an ill-formed sequence (a cut 3-byte
    # sequence \xe2\x82 is two), and so do the readers here (Python's "replace" writes one).
    read = go_utf8(b'{"a": "x\xe2\x82y\xffz"}', "f.json")
    assert read is not None
    text, warning = read
    assert json.loads(text) == {"a": "x\ufffd\ufffdy\ufffdz"}
    assert warning == Problem(
        "f.json",
        "",
        "invalid UTF-8 read as U+FFFD, as trpc-agent-go reads it: byte 0xe2 at byte offset 8, "
        "line 1 column 9 (and 2 more)",
        "save the file as UTF-8 to keep the original characters",
    )


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfd",  # Latin-1 or binary data, no JSON string at all
        b'{"a": 1, \xff: 2}',  # outside a string
        b'{"a": "x"}\x89PNG',  # after the document
        b'{"a": "\\"", \xff}',  # an escaped quote does not end the string
    ],
)
def test_bytes_outside_a_string_mean_no_text(data: bytes) -> None:
    assert go_utf8(data, "f.json") is None


def test_an_evalset_with_a_stray_byte_in_a_string_is_read_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "s.evalset.json"
    path.write_bytes(_with_byte(EVALSET, b"\xff"))
    evalset, warnings = load_checked_evalset(path)
    turn = evalset.eval_cases[0].conversation[0]  # type: ignore[union-attr,index]
    assert turn.user_content.content == "caf\u00e9 \ufffd"  # type: ignore[union-attr]
    offset = path.read_bytes().index(b"\xff")  # 218; column 30 counts "é" as one character
    assert [str(w) for w in warnings] == [
        f"{path}: invalid UTF-8 read as U+FFFD, as trpc-agent-go reads it: byte 0xff at byte "
        f"offset {offset}, line 11 column 30 (save the file as UTF-8 to keep the original "
        "characters)"
    ]
    # A reader that has no place for the warning refuses the file, as before: never silent.
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        read_text(path)
    # The command line: validated, and the warning printed (run reads it the same way).
    done = run_cli(["validate", "--evalset", str(path)])
    assert done.returncode == 0, done.stderr
    assert f"warning: {path}: invalid UTF-8 read as U+FFFD" in done.stderr


def test_a_result_file_with_a_stray_byte_in_a_string_is_read_with_a_warning(
    tmp_path: Path,
) -> None:
    result = {
        "evalSetResultId": "r",
        "evalSetId": "s",
        "evalCaseResults": [
            {
                "evalSetId": "s",
                "evalId": "c1 PLACE",
                "finalEvalStatus": "passed",
                "runId": 1,
            }
        ],
    }
    path = tmp_path / "r.evalset_result.json"
    path.write_bytes(_with_byte(result, b"\xff"))
    warnings: list[Problem] = []
    results, _ = read_results([path], warnings)
    assert [c.eval_id for c in results[0].case_results()] == ["c1 \ufffd"]
    assert len(warnings) == 1
    assert warnings[0].message.startswith(
        "invalid UTF-8 read as U+FFFD, as trpc-agent-go reads it: byte 0xff at byte offset "
    )
    done = run_cli(["show", str(path)])
    assert done.returncode == 0, done.stderr
    assert f"warning: {path}: invalid UTF-8 read as U+FFFD" in done.stderr
    assert "c1 \ufffd" in done.stdout


def test_a_result_file_past_the_repair_limit_is_refused_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Repairing reads the file whole in memory (100 MB peaked at 1.7 GB): past the limit
    such a file is refused, saying why."""
    import agenteval.inputs.result_inputs as result_inputs

    result = {"evalSetId": "s", "evalCaseResults": [{"evalSetId": "s", "evalId": "c PLACE"}]}
    path = tmp_path / "r.evalset_result.json"
    path.write_bytes(_with_byte(result, b"\xff"))
    monkeypatch.setattr(result_inputs, "REPAIR_LIMIT", path.stat().st_size - 1)
    with pytest.raises(ConfigError) as refused:
        read_results([path], [])
    (problem,) = refused.value.problems
    assert problem.message.startswith("not UTF-8 text")
    assert problem.hint == "over 64 MiB, not read as U+FFFD in memory: save the file as UTF-8"


def test_a_file_that_is_no_text_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.evalset_result.json"
    path.write_bytes(b'{"evalCaseResults": [], \xff\xfe}')
    done = run_cli(["show", str(path)])
    assert done.returncode == 2
    assert f"error: {path}: not UTF-8 text (invalid start byte)" in done.stderr
    path.write_bytes('{"evalCaseResults": []}'.encode("utf-16"))
    done = run_cli(["show", str(path)])
    assert done.returncode == 2
    assert "UTF-16 text" in done.stderr
