"""cli/saved_results.pinned_name: what a stored run's exported copy is shown as."""

from __future__ import annotations

from agenteval.cli.saved_results import pinned_name

PINNED = {"/tmp/s/0/run-ab12.json": "@ab12", "/tmp/s/1": "@group-7"}


def test_a_copy_and_a_file_of_a_copied_run_group_are_named_by_their_run() -> None:
    assert pinned_name("/tmp/s/0/run-ab12.json", PINNED) == "@ab12"
    assert pinned_name("/tmp/s/1/qa.evalset_result.json", PINNED) == "@group-7"


def test_other_paths_keep_their_name_even_when_they_share_a_prefix() -> None:
    assert (
        pinned_name("/tmp/s/10/qa.evalset_result.json", PINNED)
        == "/tmp/s/10/qa.evalset_result.json"
    )
    assert pinned_name("results/qa.json", PINNED) == "results/qa.json"
    assert pinned_name("results/qa.json", {}) == "results/qa.json"
