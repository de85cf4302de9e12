"""The manual runs: every ``agenteval`` line of the bash blocks of README.md and of the
pages in docs/ (issue 7; the manual moved to docs/ in issue 23).

Each ```bash block of the README or a docs/ page that holds ``agenteval ...`` lines is one
test: its lines run in order through ``python -m agenteval`` with the
repository root as working directory, so a block can build the state its
later lines read (``--output output/`` then ``show output/*.json``).  Paths
that are not inputs (anything outside ``evalsets/``, ``metrics/`` and
``tests/``) are moved into a temporary directory, globs are expanded as bash
would, and ``run`` and ``explain`` get a private judge cache, so nothing is written into the
repository.  The loopback judge of the ``judge_server`` fixture is scripted
with exactly the ``--reply`` arguments the README documents, and the
``JUDGE_MODEL_*`` variables are those of its ``export`` line.

A line passes when it exits 0 or 1 — or the code its trailing
``# exit N`` comment documents — and prints no traceback.  Further tests
check that every option of ``--help`` and every registered evaluator is in
the manual, that each evaluator has a metric a manual example runs, that
``validate`` accepts every eval set and metric combination the examples use,
and that the verifier example scores from logprobs when the judge sends them.
"""

from __future__ import annotations

import glob
import itertools
import json
import math
import os
import re
import shlex
import subprocess
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli
from judge_server import JudgeServer, Reply

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
# The manual: the README, then every page of docs/ (what `make docs` builds).
MANUAL = [README, *sorted((REPO / "docs").rglob("*.md"))]
INPUT_ROOTS = frozenset({"evalsets", "metrics", "tests", "examples"})
# Options whose value is never a path (a shard "1/2" has a slash).
PLAIN_VALUE_OPTIONS = frozenset(
    {
        "--shard",
        "--case",
        "--metric",
        "--skip-metric",
        "--app",
        "--case-aggregator",
        "--tolerance",
        "--rate-limit",
        "--concurrency",
        "--judge-retries",
        "--judge-timeout",
        "--max-judge-calls",
        "--max-judge-tokens",
        "--max-judge-cost",
        "--seed",
        "--max-shown",
        "--num-runs",
        "-n",
        "--title",
        "--agent",
        "--expected-agent",
        "--agent-concurrency",
        "--agent-timeout",
        "--run-group",
        "--branch",
        "--commit",
        "--since",
        "--status",
        "--last",
        "--baseline",
    }
)
PATH_SUFFIXES = (".json", ".jsonl", ".xml", ".md", ".sqlite", ".py", ".html")
DEFAULT_EXIT_CODES = frozenset({0, 1})
COMMANDS = (
    "run",
    "validate",
    "explain",
    "show",
    "diff",
    "merge",
    "report",
    "history",
    "trend",
    "store",
    "evaluators",
    "schema",
    "import",
    "calibrate",
)
# Commands whose options live on their subcommands.
SUBCOMMANDS = ("import adk", "import otel", "store add", "store export")

# README lines that hit a known bug of the tool (marked xfail while the bug prints a
# traceback; each passes on its own once fixed).  None at the moment.
KNOWN_BUGS: dict[str, str] = {}


@dataclass(frozen=True)
class Example:
    """One ``agenteval`` command line of the manual (``source``: its file)."""

    source: str
    line: int
    text: str
    argv: tuple[str, ...]
    exit_codes: frozenset[int]


@dataclass(frozen=True)
class Block:
    """A ```bash block: its file, its first line number and its logical lines."""

    source: str
    line: int
    lines: tuple[tuple[int, str], ...]

    def examples(self) -> list[Example]:
        """The ``agenteval`` lines of the block, in order."""
        found = []
        for number, text in self.lines:
            if text.startswith("agenteval "):
                command, comment = split_comment(text)
                argv = tuple(shlex.split(command)[1:])
                example = Example(self.source, number, command.strip(), argv, exit_codes(comment))
                found.append(example)
        return found


def bash_blocks(text: str, source: str = "README.md") -> list[Block]:
    """Every fenced bash block of ``source`` with its logical lines (continuations joined)."""
    blocks: list[Block] = []
    current: list[tuple[int, str]] | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if current is None:
            if stripped == "```bash":
                current, start = [], number
            continue
        if stripped == "```":
            blocks.append(Block(source, start, tuple(logical_lines(current))))
            current = None
            continue
        current.append((number, raw))
    return blocks


def logical_lines(raw: Sequence[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Join backslash-continued lines; yield (first line number, text)."""
    pending: list[str] = []
    first = 0
    for number, text in raw:
        if not pending:
            first = number
        stripped = text.strip()
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        joined = " ".join(part for part in pending if part)
        pending = []
        if joined:
            yield first, joined


def split_comment(text: str) -> tuple[str, str]:
    """The command and its trailing ``# ...`` comment (a ``#`` outside quotes after a space)."""
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index], text[index + 1 :]
    return text, ""


def exit_codes(comment: str) -> frozenset[int]:
    """The exit code a ``# exit N ...`` comment documents, else 0 or 1."""
    found = re.match(r"\s*exit (\d)\b", comment)
    return frozenset({int(found.group(1))}) if found else DEFAULT_EXIT_CODES


PAGES = {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8") for path in MANUAL}
# Every page of the manual in one text, for what must be documented somewhere in it.
MANUAL_TEXT = "\n".join(PAGES.values())
BLOCKS = [block for source, text in PAGES.items() for block in bash_blocks(text, source)]
EXAMPLE_BLOCKS = [block for block in BLOCKS if block.examples()]
EXAMPLES = [example for block in EXAMPLE_BLOCKS for example in block.examples()]


def judge_setup() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The fake judge's ``--reply`` rules and the ``export``ed variables of the manual."""
    for block in BLOCKS:
        texts = [text for _, text in block.lines]
        if not any("tests/judge_server.py" in text for text in texts):
            continue
        rules: list[tuple[str, str]] = []
        exported: dict[str, str] = {}
        for text in texts:
            tokens = shlex.split(text)
            if "tests/judge_server.py" in tokens:
                for flag, value in itertools.pairwise(tokens):
                    if flag == "--reply":
                        pattern, sep, reply = value.partition("=")
                        rules.append((pattern, reply) if sep else ("", value))
            elif tokens[:1] == ["export"]:
                for assignment in tokens[1:]:
                    name, _, value = assignment.partition("=")
                    exported[name] = value
        return rules, exported
    raise AssertionError("the manual has no block that starts tests/judge_server.py")


JUDGE_RULES, JUDGE_EXPORTS = judge_setup()


def script(server: JudgeServer) -> None:
    """Give the fixture's server the README's replies, as ``judge_server.py --reply`` does."""
    for pattern, text in JUDGE_RULES:
        server.when(pattern, Reply(content=text.replace("\\n", "\n")))


def environment(base_url: str) -> dict[str, str]:
    """The process environment of a README line: the exported judge variables, no CI hooks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(NO_COLOR="1", COLUMNS="120")
    for name in JUDGE_EXPORTS:
        env[name] = JUDGE_EXPORTS[name]
    env["JUDGE_MODEL_BASE_URL"] = base_url
    return env


def is_output_path(token: str) -> bool:
    """A relative path the example writes or reads back, i.e. not one of the shipped inputs."""
    looks_like_path = "/" in token or token.endswith(PATH_SUFFIXES)
    first = token.split("/", 1)[0]
    return looks_like_path and not Path(token).is_absolute() and first not in INPUT_ROOTS


def expand(token: str) -> list[str]:
    """Bash pathname expansion: sorted matches, or the word itself when nothing matches."""
    if not any(char in token for char in "*?["):
        return [token]
    root = None if Path(token).is_absolute() else REPO
    matches = sorted(glob.glob(token, root_dir=root))
    return matches or [token]


def localised(argv: Sequence[str], scratch: Path) -> list[str]:
    """``argv`` with output paths moved under ``scratch``, globs expanded, a private cache."""
    out: list[str] = []
    plain_value = False
    for token in argv:
        if plain_value or token.startswith("-"):
            out.append(token)
            plain_value = token in PLAIN_VALUE_OPTIONS
            continue
        if is_output_path(token):
            token = str(scratch / token)
        out.extend(expand(token))
    # run and explain ask the judge through the cache, by default one in the repository.
    if out[:1] in (["run"], ["explain"]) and "--cache" not in out and "--no-cache" not in out:
        out += ["--cache", str(scratch / ".agenteval" / "cache.sqlite")]
    return out


def agenteval(args: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``python -m agenteval ARGS`` from the repository root (a fork of a preloaded
    interpreter: tests/cli_process.py)."""
    return run_cli(args, cwd=REPO, env=env, timeout=300)


def outcome(example: Example, proc: subprocess.CompletedProcess[str]) -> str | None:
    """Why the line broke the manual, or None when it behaved as documented."""
    output = proc.stdout + proc.stderr
    problems = []
    if proc.returncode not in example.exit_codes:
        problems.append(f"exit {proc.returncode}, documented {sorted(example.exit_codes)}")
    if "Traceback" in output or "internal error" in output:
        problems.append("printed a traceback or an internal error")
    if not problems:
        return None
    where = f"{example.source} line {example.line}"
    return f"{where}: {example.text}\n  {'; '.join(problems)}\n{output[-3000:]}"


def known_bug(example: Example) -> str | None:
    """The reason a line is expected to break, if it hits a known bug."""
    return next((why for key, why in KNOWN_BUGS.items() if key in example.text), None)


@pytest.mark.parametrize(
    "block", EXAMPLE_BLOCKS, ids=[f"{b.source}-L{b.line}" for b in EXAMPLE_BLOCKS]
)
def test_readme_block_runs_as_documented(
    block: Block, judge_server: JudgeServer, tmp_path: Path
) -> None:
    script(judge_server)
    env = environment(judge_server.base_url)
    broken: list[str] = []
    expected_breaks: list[str] = []
    for example in block.examples():
        proc = agenteval(localised(example.argv, tmp_path), env)
        problem = outcome(example, proc)
        if problem is None:
            continue
        bug = known_bug(example)
        if bug is None:
            broken.append(problem)
        else:
            expected_breaks.append(f"{example.source} line {example.line}: {bug}")
    assert not broken, "\n\n".join(broken)
    if expected_breaks:
        pytest.xfail("; ".join(expected_breaks))


def test_readme_has_the_examples_this_suite_relies_on() -> None:
    # A parser regression would silently test nothing; these are the manual's own lines.
    assert len(EXAMPLES) >= 50
    # The README keeps its own examples, and the docs/ pages hold the rest.
    sources = {example.source for example in EXAMPLES}
    assert "README.md" in sources
    assert {"docs/commands/run.md", "docs/evaluators/llm-judges.md"} <= sources
    assert len(sources) >= 15
    subcommands = {example.argv[0] for example in EXAMPLES}
    assert subcommands == set(COMMANDS)
    assert len(JUDGE_RULES) >= 10
    assert {"JUDGE_MODEL_NAME", "JUDGE_MODEL_API_KEY", "JUDGE_MODEL_BASE_URL"} <= set(JUDGE_EXPORTS)
    documented_codes = {code for example in EXAMPLES for code in example.exit_codes}
    assert {0, 1, 2, 3} <= documented_codes


def test_the_comment_and_path_rules() -> None:
    command, comment = split_comment("agenteval run --reply 'a # b' # exit 3: budget")
    assert command.strip() == "agenteval run --reply 'a # b'"
    assert exit_codes(comment) == {3}
    assert exit_codes(" fills the cache") == {0, 1}
    scratch = Path("/scratch")
    argv = localised(
        ["merge", "shard1/x.json", "--shard", "1/2", "--evalset", "evalsets/"], scratch
    )
    assert argv == ["merge", "/scratch/shard1/x.json", "--shard", "1/2", "--evalset", "evalsets/"]


def help_text(*command: str) -> str:
    """``agenteval [COMMAND] --help`` on a wide terminal."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    proc = agenteval([*command, "--help"], env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def command_page(command: str) -> str:
    """The manual's text for ``agenteval COMMAND``: its page (a subcommand's is its command's,
    docs/commands/store.md for ``store add``); the whole manual for the bare program."""
    if not command:
        return MANUAL_TEXT
    return PAGES[f"docs/commands/{command.split()[0]}.md"]


def flags_in(text: str) -> set[str]:
    """Every ``--flag`` and ``-f`` named in ``text`` (``--max-shown``, not ``--max``)."""
    return set(re.findall(r"(?<![\w/-])(--[a-z][a-z-]*[a-z]|-[a-z])(?![\w-])", text))


@pytest.mark.parametrize("command", ["", *COMMANDS, *SUBCOMMANDS])
def test_every_option_of_the_help_is_on_its_commands_page(command: str) -> None:
    text = help_text(*command.split())
    options = re.findall(r"^\s+((?:-[a-z], )?--[a-z][a-z-]*)", text, flags=re.MULTILINE)
    assert options, text
    page = command_page(command)
    # A whole flag: --store is not documented by --store-dir, nor -v by -vv.
    missing = [
        opt
        for opt in options
        if opt != "--help" and not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", page)
    ]
    assert not missing, f"agenteval {command} --help options missing from its page: {missing}"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_a_commands_page_lists_exists(command: str) -> None:
    # The first cell of each option table row: a flag the command does not have is a lie.
    subcommands = [s for s in SUBCOMMANDS if s.split()[0] == command] or [command]
    known = set().union(*(flags_in(help_text(*s.split())) for s in subcommands))
    page = command_page(command)
    rows = re.findall(r"^\| (`-[^|]*)\|", page, flags=re.MULTILINE)
    assert bool(rows) == ("| option |" in page), "an option table whose rows were not read"
    listed = set().union(*(flags_in(row) for row in rows))
    assert sorted(listed - known) == [], f"agenteval {command}: options its page lists"


def test_every_exit_code_of_the_help_is_in_the_manual() -> None:
    summary = " ".join(help_text("run").split())
    assert "Exit 0 all passed, 1 failures, 2 bad input, 3 incomplete" in summary
    for code in range(4):
        assert re.search(rf"^\| {code} \| \S", MANUAL_TEXT, flags=re.MULTILINE), code


def registered_evaluators() -> list[str]:
    """The names ``agenteval evaluators`` lists."""
    env = dict(os.environ, COLUMNS="300", NO_COLOR="1")
    proc = agenteval(["evaluators"], env)
    assert proc.returncode == 0, proc.stderr
    return re.findall(r"^│ ([a-z_]+)\s+│", proc.stdout, flags=re.MULTILINE)


def metric_files(argv: Sequence[str]) -> list[Path]:
    """The metric files a ``run``/``validate`` example reads for each of its eval sets."""
    options = option_values(argv)
    evalsets: list[Path] = []
    for spec in options.get("--evalset", []) + options.get("-e", []):
        path = REPO / spec
        if path.is_dir():
            evalsets += sorted(path.glob("*.evalset.json"))
        else:
            evalsets += [Path(p) for p in sorted(glob.glob(str(path)))]
    given = options.get("--metrics", []) + options.get("-m", [])
    metrics = given[0] if given else None
    files = []
    for evalset in evalsets:
        set_id = json.loads(evalset.read_text(encoding="utf-8"))["evalSetId"]
        if metrics is None:
            files.append(evalset.with_name(f"{set_id}.metrics.json"))
        elif (REPO / metrics).is_dir():
            files.append(REPO / metrics / f"{set_id}.metrics.json")
        else:
            files.append(REPO / metrics)
    return files


def option_values(argv: Sequence[str]) -> dict[str, list[str]]:
    """Every ``--option value`` pair of an argument list (flags without a value are skipped)."""
    values: dict[str, list[str]] = {}
    for flag, value in itertools.pairwise(argv):
        if flag.startswith("-") and not value.startswith("-"):
            values.setdefault(flag, []).append(value)
    return values


def scoring_examples() -> list[Example]:
    """README lines that score or validate the shipped files.

    Lines documented to fail with exit 2 (a refused file) and lines reading what an earlier
    line wrote (``agenteval import … -o DIR``) check no shipped combination.
    """
    return [
        e
        for e in EXAMPLES
        if e.argv[0] in ("run", "validate")
        and e.exit_codes != frozenset({2})
        and not any(is_output_path(v) for v in option_values(e.argv).get("--evalset", []))
    ]


def test_every_evaluator_is_documented_and_run_by_an_example() -> None:
    names = registered_evaluators()
    assert len(names) >= 14, names
    used: set[str] = set()
    for example in scoring_examples():
        only = set(option_values(example.argv).get("--metric", []))
        for path in metric_files(example.argv):
            for metric in json.loads(path.read_text(encoding="utf-8")):
                if not only or metric["metricName"] in only:
                    used.add(metric.get("evaluatorName") or metric["metricName"])
    assert sorted(set(names) - used) == [], "evaluators no manual example runs"
    for name in names:
        assert f"`{name}`" in MANUAL_TEXT, name


def validate_argv(example: Example) -> tuple[str, ...]:
    """The ``validate`` call that checks the files a README ``run`` line uses."""
    keep = {"--evalset", "-e", "--metrics", "-m", "--traces", "--plugin", "--skip-metric"}
    keep |= {"--agent", "--expected-agent"}
    argv: list[str] = ["validate"]
    for flag, value in itertools.pairwise(example.argv):
        # A traces file an earlier line of the block writes (--record) does not exist here.
        if flag in keep and not (flag == "--traces" and is_output_path(value)):
            argv += [flag, value]
    return tuple(argv)


def test_validate_accepts_every_combination_the_examples_use() -> None:
    env = environment("http://127.0.0.1:9/v1")
    combinations = sorted({validate_argv(example) for example in scoring_examples()})
    assert len(combinations) >= 10
    with ThreadPoolExecutor(max_workers=2) as pool:
        procs = list(pool.map(lambda argv: agenteval(argv, env), combinations))
    failures = [
        f"agenteval {' '.join(argv)}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
        for argv, proc in zip(combinations, procs, strict=True)
        if proc.returncode != 0
    ]
    assert not failures, "\n".join(failures)


def test_the_demo_eval_sets_have_passing_and_failing_cases(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    proc = agenteval(
        ["run", "--evalset", "evalsets/", "--metrics", "metrics/", "--json", str(report), "-q"],
        environment("http://127.0.0.1:9/v1"),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    document = json.loads(report.read_text(encoding="utf-8"))
    assert len(document["evalSetResults"]) == 4
    for result in document["evalSetResults"]:
        statuses = {case["finalEvalStatus"] for case in result["evalCaseResults"]}
        assert statuses == {"passed", "failed"}, (result["evalSetId"], statuses)


def test_every_documented_reply_answers_some_judge_prompt(judge_server: JudgeServer) -> None:
    script(judge_server)
    env = environment(judge_server.base_url)
    for evalset in ("travel-assistant", "help-center"):
        proc = agenteval(
            [
                "run",
                "--evalset",
                f"evalsets/{evalset}.evalset.json",
                "--metrics",
                "metrics/judges/",
                "--no-cache",
            ],
            env,
        )
        assert proc.returncode == 1, proc.stdout + proc.stderr
    # The simulated user of the agent example (Score your agent) is played by the same judge.
    proc = agenteval(
        [
            "run",
            "--evalset",
            "evalsets/agent/calculator-chat.evalset.json",
            "--agent",
            "cmd:examples/agents/calculator_agent.py",
            "--no-cache",
        ],
        env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    prompts = [request.prompt for request in judge_server.recorded()]
    unused = [pattern for pattern, _ in JUDGE_RULES if not any(pattern in p for p in prompts)]
    assert unused == []
    # Every request was answered by a documented rule, none by the server's default reply.
    unmatched = [p[:80] for p in prompts if not any(pattern in p for pattern, _ in JUDGE_RULES)]
    assert unmatched == []


# The verifier's grade tokens: the chosen letter's logprob, then the judge's top alternatives.
GRADE_A = [("B", -0.2), ("A", -1.9), ("C", -3.0)]
GRADE_B = [("D", -0.4), ("C", -1.3), ("E", -2.2)]


def grade_token(choices: list[tuple[str, float]]) -> dict[str, Any]:
    """One logprob token whose alternatives are ``choices`` (the first is the token itself)."""
    token, logprob = choices[0]
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in choices],
    }


def plain(text: str) -> dict[str, Any]:
    """A logprob token without alternatives."""
    return {"token": text, "logprob": -0.01, "top_logprobs": []}


def expected_quality(choices: list[tuple[str, float]]) -> float:
    """llm-evaluators.md §5.7: softmax over the grades present, A = 1 … T = 0."""
    top = max(lp for _, lp in choices)
    weights = [(math.exp(lp - top), 1 - (ord(letter) - ord("A")) / 19) for letter, lp in choices]
    return sum(w * v for w, v in weights) / sum(w for w, _ in weights)


def test_the_verifier_example_scores_from_logprobs(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    (example,) = [e for e in EXAMPLES if "metrics/judges/logprobs/" in e.argv]
    stream = [
        plain("Both answers are close."),
        plain("\n<score_A>"),
        grade_token(GRADE_A),
        plain("</score_A>\n<score_B>"),
        grade_token(GRADE_B),
        plain("</score_B>"),
    ]
    content = "Both answers are close.\n<score_A>B</score_A>\n<score_B>D</score_B>"
    judge_server.when("You are a verifier.", Reply(content=content, logprobs=stream))
    report = tmp_path / "verifier.json"
    argv = [*localised(example.argv, tmp_path), "--no-cache", "--json", str(report)]
    proc = agenteval(argv, environment(judge_server.base_url))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bodies = judge_server.bodies()
    assert bodies and all(b["logprobs"] is True and b["top_logprobs"] == 20 for b in bodies)
    score = min(1.0, max(0.0, 0.5 + (expected_quality(GRADE_A) - expected_quality(GRADE_B)) / 2))
    document = json.loads(report.read_text(encoding="utf-8"))
    (result,) = document["evalSetResults"]
    assert len(result["evalCaseResults"]) == 4
    for case in result["evalCaseResults"]:
        (metric,) = case["overallEvalMetricResults"]
        assert metric["metricName"] == "agent_vs_reference"
        assert metric["score"] == pytest.approx(score, abs=1e-9)
        assert metric["evalStatus"] == "passed"
