"""--shard I/N: a stable sha256 split of cases (ARCHITECTURE §4)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from agenteval.results.sharding import Shard, parse_shard, select, shard_of
from agenteval.schema.evalset import EvalCase

# From coreutils, side by side: printf '%s\0%s' SET ID | sha256sum, first 16 hex digits as an
# unsigned integer, then value % N + 1 for N = 2, 3, 5, 7, 1000003.
VECTORS = [
    ("math-basic", "calc_add", [2, 2, 3, 6, 689970]),
    ("math-basic", "calc_mul", [1, 3, 1, 2, 980031]),
    ("shop", "refund_ünï", [2, 3, 4, 1, 708065]),
    ("a", "bc", [2, 2, 3, 3, 4725]),
    ("ab", "c", [2, 2, 1, 3, 600238]),
]
COUNTS = [2, 3, 5, 7, 1000003]


def test_shard_of_matches_sha256_computed_elsewhere() -> None:
    for eval_set_id, eval_id, shards in VECTORS:
        assert [shard_of(eval_set_id, eval_id, n) for n in COUNTS] == shards


def test_separator_keeps_id_boundaries_apart() -> None:
    # Without the NUL both keys would read "abc".
    assert shard_of("a", "bc", 1000003) != shard_of("ab", "c", 1000003)


def test_same_shards_in_processes_with_different_hash_seeds() -> None:
    code = (
        "from agenteval.results.sharding import shard_of;"
        "print(','.join(str(shard_of('set', f'case{i}', 5)) for i in range(200)))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        run = subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(run.stdout.strip())
    assert outputs == {",".join(str(shard_of("set", f"case{i}", 5)) for i in range(200))}


def test_shards_partition_cases_evenly_and_keep_order() -> None:
    cases = [EvalCase(eval_id=f"case-{i}") for i in range(10_000)]
    parts = [select(cases, "big", index, 4) for index in range(1, 5)]
    assert sorted(c.eval_id for part in parts for c in part) == sorted(c.eval_id for c in cases)
    for part in parts:
        positions = [int(c.eval_id.removeprefix("case-")) for c in part]
        assert positions == sorted(positions)
        # 2500 expected, binomial sd ≈ 43: ±200 is over 4.6 sd.
        assert 2300 <= len(part) <= 2700
    assert select(cases, "big", 1, 1) == cases


def test_adding_cases_moves_no_existing_case() -> None:
    before = {f"c{i}": shard_of("s", f"c{i}", 3) for i in range(50)}
    after = {f"c{i}": shard_of("s", f"c{i}", 3) for i in range(80)}
    assert {k: after[k] for k in before} == before
    assert Counter(after.values()).keys() == {1, 2, 3}


def test_parse_shard() -> None:
    assert parse_shard("1/4") == Shard(1, 4)
    assert parse_shard(" 3 / 3 ") == Shard(3, 3)
    assert str(parse_shard("2/5")) == "2/5"
    errors = {
        "0/3": "shard index must be within 1..3 (shards count from 1), got 0",
        "4/3": "shard index must be within 1..3 (shards count from 1), got 4",
        "1/0": "shard count must be at least 1, got 0",
        "a/3": "shard index must be a positive whole number, got 'a' in 'a/3'",
        "1/x": "shard count must be a positive whole number, got 'x' in '1/x'",
        "-1/3": "shard index must be a positive whole number, got '-1' in '-1/3'",
        "1.5/3": "shard index must be a positive whole number, got '1.5' in '1.5/3'",
        "3": "shard must look like I/N, for example 1/4, got '3'",
        "1/2/3": "shard must look like I/N, for example 1/4, got '1/2/3'",
        "": "shard must look like I/N, for example 1/4, got ''",
    }
    for text, message in errors.items():
        with pytest.raises(ValueError) as caught:
            parse_shard(text)
        assert str(caught.value) == message


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="shard count must be at least 1, got 0"):
        shard_of("s", "c", 0)
    with pytest.raises(ValueError, match=r"within 1\.\.2"):
        select([EvalCase(eval_id="c")], "s", 3, 2)
