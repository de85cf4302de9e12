"""merge's output written case by case: the bytes of a whole write, nothing on a bad case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agenteval.errors import ConfigError
from agenteval.inputs.result_inputs import read_parts
from agenteval.report.merge_writer import close, spool_merge, write_merged
from agenteval.report.result_files import write_json, write_result
from agenteval.report.set_tally import ConsoleView, set_report
from agenteval.results.merging import merge_results, plan_merge
from agenteval.results.sharding import shard_of
from agenteval.schema.base import dump, dump_json
from sample_results import generated_result

STAMP = re.compile(rb'"creationTimestamp": [0-9.e+-]+')


def shard_files(tmp_path: Path, num_runs: int) -> list[Path]:
    full = generated_result("gen", cases=17, num_runs=num_runs, seed=num_runs)
    full.judge_usage = {"total": {"calls": 2}}
    files = []
    for index in (1, 2, 3):
        part = full.model_copy(
            update={
                "eval_case_results": [
                    c for c in full.case_results() if shard_of("gen", c.eval_id, 3) == index
                ],
                "summary": None,
                "creation_timestamp": 1_767_225_600.0 + index,
            }
        )
        path = tmp_path / f"shard{index}.evalset_result.json"
        path.write_text(dump_json(part))
        files.append(path)
    return files


@pytest.mark.parametrize("num_runs", [1, 3])
def test_a_merge_written_case_by_case_is_the_whole_write(tmp_path: Path, num_runs: int) -> None:
    files = shard_files(tmp_path, num_runs)
    planned = plan_merge(read_parts(files))
    spooled = spool_merge(planned, app_name=None)
    (streamed,) = write_merged(spooled, tmp_path / "merged.json")
    (whole,) = merge_results(read_parts(files))
    expected = write_json(tmp_path / "whole.json", dump(whole))
    assert streamed.read_bytes() == expected.read_bytes()
    # The console's report is the whole result's.
    assert spooled[0].report == set_report(whole, view=ConsoleView(quiet=True))
    close(spooled)
    # In a directory: one named result file, as write_result names and stamps it.
    spooled = spool_merge(plan_merge(read_parts(files)), app_name="app")
    (named,) = write_merged(spooled, tmp_path / "dir")
    close(spooled)
    assert named.parent == tmp_path / "dir" and named.name.startswith("app_gen_")
    rid = named.name.removesuffix(".evalset_result.json")
    whole.eval_set_result_id = whole.eval_set_result_name = rid
    again = write_result(whole, tmp_path / "whole_dir", "app")
    assert STAMP.sub(b"", named.read_bytes()) == STAMP.sub(b"", again.read_bytes())


def test_a_case_that_does_not_validate_writes_nothing(tmp_path: Path) -> None:
    files = shard_files(tmp_path, 1)
    data = json.loads(files[1].read_text())
    data["evalCaseResults"][0]["finalEvalStatus"] = "great"
    files[1].write_text(json.dumps(data))
    planned = plan_merge(read_parts(files))
    with pytest.raises(ConfigError) as caught:
        spool_merge(planned, app_name=None)
    (problem,) = caught.value.problems
    assert (problem.file, problem.path) == (
        str(files[1]),
        "evalCaseResults[0].finalEvalStatus",
    )
    assert not (tmp_path / "merged.json").exists()
