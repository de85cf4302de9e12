"""agenteval merge --evalset: the eval sets giving the case order are checked as validate checks them."""

from __future__ import annotations

import json
from pathlib import Path

from cli_process import run_cli
from tests.cli.test_commands import write_suite


def _result(tmp_path: Path, **extra: str) -> tuple[Path, Path]:
    suite = write_suite(tmp_path)
    suite.write_text(json.dumps({**json.loads(suite.read_text()), **extra}))
    out = tmp_path / "out"
    run_cli(["run", "--evalset", str(suite), "--output", str(out), "-q"], timeout=120)
    (result,) = out.glob("*.evalset_result.json")
    return suite, result


def test_merge_refuses_an_evalset_that_validate_refuses(tmp_path: Path) -> None:
    # Read with loading.load_evalset alone, a result file given as --evalset, a near-miss
    # key and NaN each merged with exit 1 and nothing said.
    suite, result = _result(tmp_path)
    data = json.loads(suite.read_text())
    typo = tmp_path / "typo.evalset.json"
    typo.write_text(json.dumps({**data, "EvalSetId": "x"}))
    nan = tmp_path / "nan.evalset.json"
    nan.write_text(suite.read_text().replace('"x": 1', '"x": NaN', 1))
    expected = {
        result: "not an eval set (looks like a result file) "
        "(pass it to show, diff, merge, --resume or --traces)",
        typo: "EvalSetId: 'EvalSetId' is not a field of EvalSet (did you mean 'evalSetId'?)",
        nan: "evalCases[0].conversation[0].tools[0].arguments.x: nan is not a finite number "
        "(NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)",
    }
    for given, message in expected.items():
        proc = run_cli(
            ["merge", str(result), "--evalset", str(given), "-o", str(tmp_path / "m.json")],
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.splitlines()[0] == f"error: {given}: {message}"
        assert "Traceback" not in proc.stderr
        assert not (tmp_path / "m.json").exists()


def test_merge_reports_an_unknown_key_of_its_evalset(tmp_path: Path) -> None:
    suite, result = _result(tmp_path, owner="qa")
    proc = run_cli(
        ["merge", str(result), "--evalset", str(suite), "-o", str(tmp_path / "m.json"), "-q"],
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert f"warning: {suite}: owner: 'owner' is not a field of EvalSet" in proc.stderr


def test_merge_to_a_place_that_cannot_take_it_is_a_located_exit_2(tmp_path: Path) -> None:
    # `merge R -o FILE` was "internal error: FileExistsError" (exit 4), `-o FILE/x.json`
    # NotADirectoryError; the shards were read (and the merge spooled) first.
    _, result = _result(tmp_path)
    (tmp_path / "afile").write_text("")
    for where, problem in (
        ("afile", "afile: --output is not a directory (give a directory)"),
        ("afile/m.json", "afile/m.json: --output: Not a directory"),
        ("afile/sub", "afile/sub: --output: cannot create it: afile is not a directory"),
    ):
        proc = run_cli(["merge", str(result), "-o", where], cwd=tmp_path, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"error: {problem}\n"), proc.stderr
    # Checked before the shards are read: a missing shard is not what is said first.
    proc = run_cli(["merge", "nothere.json", "-o", "afile"], cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: afile: --output is not a directory"), proc.stderr
    assert (tmp_path / "afile").read_text() == ""
