"""tests/cli_process.py: a forked command behaves as ``python -m agenteval`` started afresh.

Every command of the command line, as the manual runs it (the fewest manual blocks that hold
every command), gives the same exit codes and the same output forked and fresh; this is
also the suite's real-process run of each command.  Run ids, timestamps and durations
differ between any two runs and are masked.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli.test_readme_examples import (
    COMMANDS,
    EXAMPLE_BLOCKS,
    REPO,
    Block,
    environment,
    localised,
    script,
)
from cli_process import run_cli
from judge_server import JudgeServer
from test_dependencies import imported_modules

# Hex ids (uuids, run ids, commits) and numbers (durations, timestamps).
VARYING = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|\b[0-9a-f]*[0-9][0-9a-f]*\b|\d+(\.\d+)?"
)


def covering_blocks() -> list[Block]:
    """Few, short manual blocks whose lines run every command (greedy: most new commands
    per line)."""
    left, chosen = set(COMMANDS), []
    while left:
        best = max(
            EXAMPLE_BLOCKS,
            key=lambda b: len(left & {e.argv[0] for e in b.examples()}) / len(b.examples()),
        )
        covered = left & {e.argv[0] for e in best.examples()}
        assert covered, f"no manual block runs {sorted(left)}"
        chosen.append(best)
        left -= covered
    return chosen


BLOCKS = covering_blocks()


def fresh(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A new interpreter, as tests/cli_process.py stands in for."""
    return subprocess.run(
        [sys.executable, "-m", "agenteval", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def forked(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=REPO, env=env, timeout=300)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.source}-L{b.line}" for b in BLOCKS])
def test_every_command_forked_is_the_command_fresh(
    block: Block, judge_server: JudgeServer, tmp_path: Path
) -> None:
    script(judge_server)
    env = environment(judge_server.base_url)
    runs = {}
    for name, run in (("fresh", fresh), ("forked", forked)):
        scratch = tmp_path / name
        lines = []
        for example in block.examples():
            done = run(localised(example.argv, scratch), env)
            text = (done.stdout + "\n--stderr--\n" + done.stderr).replace(str(scratch), "S")
            lines.append((example.text, done.returncode, VARYING.sub("N", text)))
        runs[name] = lines
    assert runs["forked"] == runs["fresh"]


def test_the_covering_blocks_run_every_command() -> None:
    ran = {example.argv[0] for block in BLOCKS for example in block.examples()}
    assert ran >= set(COMMANDS)


def test_a_command_past_its_timeout_is_killed() -> None:
    # run --watch scores, then waits for a file to change until it is stopped.
    args = ["run", "--evalset", "evalsets/order-api.evalset.json", "--metrics", "metrics/"]
    # run_cli returns only once the command's wait status is in, i.e. after killing it.
    with pytest.raises(subprocess.TimeoutExpired) as timed_out:
        run_cli([*args, "--watch"], cwd=REPO, timeout=5)
    assert "order-api" in timed_out.value.output


def test_the_zygote_preloads_every_library_a_command_imports_lazily() -> None:
    # A library missing from cli_process._LAZY_LIBRARIES costs every forked command that
    # needs it its import again (jsonschema: ~0.12 s), which nothing else would notice.
    # Every library src/ imports, at the top of a module or inside a function.
    libraries = {
        module
        for module in imported_modules([REPO / "src"])
        if module.split(".")[0] not in {"agenteval", *sys.stdlib_module_names}
    }
    assert {"jsonschema", "sqlalchemy.engine", "watchfiles"} <= libraries  # lazy ones found
    probe = (
        "import sys; sys.path.insert(0, 'tests'); import cli_process; cli_process._preload(); "
        "print('\\n'.join(sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert sorted(libraries - set(done.stdout.split())) == []
