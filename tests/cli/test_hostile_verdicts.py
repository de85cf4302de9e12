"""Issue 21's acceptance: 40 seeded hostile verdict scenarios, none green unless every case passed.

A random generator with a fixed seed (:data:`SEED`, printed in every failure with the
scenario's own seed) builds eight scenarios in each of five families — shards, resume,
traces, agents, keys — cycling through each family's kinds and drawing the rest (how many
cases, which answers are wrong, which shard is left out, which key is misspelt, where an
agent misbehaves).  Every scenario runs the real CLI (in this process, through typer's
runner: a child per command would cost seconds each; driven agents are real child
processes on real pipes, the judge a real HTTP server on loopback) and checks:

* the exit code is 0 only if every case truly passed on the inputs given;
* the exit code is the one expected (1 a case failed, 2 refused input, 3 incomplete);
* a key phrase of the message (the verdict line with its counts, or the refusal).

What is "truly passed" is computed from how the scenario was built, never read back from
agenteval: a case passes when its recorded answer equals its reference answer (the metrics
compare them exactly, threshold 1), when the scripted judge was told to call it valid, or
when the agent was asked to do nothing wrong.  A shard set with a shard left out, or a run
refused, has not passed.  Two outcomes are green by the issue's own design, and the
scenarios hold them to it: a metric without a threshold has no bar (trpc-agent-go's
threshold 0), so what it scores passes, with a warning that says so; and a --traces
record of another question is scored (a warning naming the case and turn; an error
under --strict), so its answer decides.  Either warning must show under -q and be
counted on the verdict line.

Shard membership is computed here from the documented rule (agenteval/sharding.py's
docstring: the first 8 bytes of sha256(evalSetId NUL evalId), big-endian, mod N, plus 1),
not by calling agenteval.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import secrets
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agent_cli import FAULT_AGENT
from otel_spans import PerTraceIds, Recorder, record_semconv
from typer.testing import CliRunner

from agenteval.cli import app
from agenteval.schema.evalset import Invocation, Message
from judge_server import JudgeServer, Reply

SEED = 2126
FAMILIES = ("shards", "resume", "traces", "agents", "keys")
PER_FAMILY = 8
# Reference answers and wrong answers never share a word, so a judge rule keyed on a
# wrong answer never matches a right one.
REFERENCES = ("Paris", "forty-two", "blue", "Tuesday", "seven", "granite", "Oslo", "kiwi")
WRONG = ("wrong-answer-a", "wrong-answer-b", "wrong-answer-c", "wrong-answer-d")
EXACT = {"finalResponse": {"text": {"matchStrategy": "exact"}}}
# Wide enough that nothing the CLI prints is folded inside a path or a phrase; the test
# machine's own settings and CI variables do not reach the runs.
ENV: dict[str, str | None] = {
    "COLUMNS": "400",
    "NO_COLOR": "1",
    "AGENTEVAL_STRICT": None,
    "AGENTEVAL_STORE": None,
    "GITHUB_ACTIONS": None,
    "GITHUB_STEP_SUMMARY": None,
}


@dataclass(frozen=True, slots=True)
class Case:
    """One eval case as built: its question, reference answer and recorded answer."""

    eval_id: str
    question: str
    reference: str
    actual: str

    @property
    def passes(self) -> bool:
        """Whether an exact comparison passes it (the truth, from the construction)."""
        return self.actual == self.reference


@dataclass(frozen=True, slots=True)
class Ran:
    """One command: exit code and output."""

    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        """stdout and stderr, whitespace runs folded to one space."""
        return " ".join((self.stdout + "\n" + self.stderr).split())


@dataclass
class Outcome:
    """What a scenario's last command did and what was expected of it."""

    ran: Ran
    code: int
    phrases: Sequence[str]
    truly_passed: bool
    absent: Sequence[str] = ()
    # What else the scenario found wrong (checked after the exit code and the message).
    faults: list[str] = field(default_factory=list)


@dataclass
class Lab:
    """One scenario's workspace: a directory, its random draws, the CLI in this process."""

    root: Path
    rng: random.Random
    request: pytest.FixtureRequest
    log: list[str] = field(default_factory=list)

    def cli(self, *args: object, env: dict[str, str] | None = None) -> Ran:
        """``agenteval ARGS`` in this process, in the scenario's directory."""
        argv = tuple(str(a) for a in args)
        before = Path.cwd()
        os.chdir(self.root)
        try:
            result = CliRunner().invoke(app, list(argv), env={**ENV, **(env or {})})
        finally:
            os.chdir(before)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        ran = Ran(argv, result.exit_code, result.stdout, result.stderr)
        self.log.append(f"$ agenteval {' '.join(argv)}\n-> {ran.code}\n{ran.stdout}{ran.stderr}")
        return ran

    def quiet(self) -> list[str]:
        """``-q`` half the time: what CI runs, and warnings must show all the same."""
        return ["-q"] if self.rng.random() < 0.5 else []

    def cases(self, count: int, wrong: str = "any", *, ids: Sequence[str] = ()) -> list[Case]:
        """``count`` cases (or one per id), some answered wrongly: ``wrong`` is "none",
        "some" (at least one) or "any" (none two times in five, else some)."""
        names = list(ids) or [f"case_{i:02d}" for i in range(count)]
        if wrong == "any":
            wrong = "none" if self.rng.random() < 0.4 else "some"
        wrongs = 0 if wrong == "none" else self.rng.randint(1, len(names))
        bad = set(self.rng.sample(names, wrongs))
        built = []
        for name in names:
            reference = self.rng.choice(REFERENCES)
            actual = self.rng.choice(WRONG) if name in bad else reference
            built.append(Case(name, f"question of {name}?", reference, actual))
        return built

    def evalset(self, cases: Sequence[Case], *, traced: bool = True, name: str = "suite") -> Path:
        """An eval set file; ``traced``: trace mode, the recorded answers inside it."""
        documents = []
        for case in cases:
            document: dict[str, Any] = {
                "evalId": case.eval_id,
                "sessionInput": {"appName": "hostile", "userId": "u"},
                "conversation": [turn(case.question, case.reference)],
            }
            if traced:
                document["evalMode"] = "trace"
                document["actualConversation"] = [turn(case.question, case.actual)]
            documents.append(document)
        path = self.root / f"{name}.evalset.json"
        path.write_text(json.dumps({"evalSetId": name, "evalCases": documents}))
        return path

    def metrics(self, metrics: Sequence[dict[str, Any]], name: str = "suite") -> Path:
        """A metric file."""
        path = self.root / f"{name}.metrics.json"
        path.write_text(json.dumps(list(metrics)))
        return path

    def traces(self, cases: Sequence[Case], name: str = "traces") -> Path:
        """A --traces JSONL file: one record per case, its recorded answer."""
        path = self.root / f"{name}.jsonl"
        lines = [
            json.dumps({"evalId": c.eval_id, "actualConversation": [turn(c.question, c.actual)]})
            for c in cases
        ]
        path.write_text("".join(line + "\n" for line in lines))
        return path


def turn(question: str, answer: str) -> dict[str, Any]:
    """One turn in the eval-set format."""
    return {
        "userContent": {"role": "user", "content": question},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def exact(threshold: float | None = 1.0, name: str = "final_response_avg_score") -> dict[str, Any]:
    """The exact final-response metric (no ``threshold`` key when None)."""
    metric: dict[str, Any] = {"metricName": name, "criterion": EXACT}
    if threshold is not None:
        metric["threshold"] = threshold
    return metric


def verdict(cases: Sequence[Case] | Sequence[bool]) -> tuple[str, bool]:
    """The verdict line's start for these cases, computed here, and whether all passed."""
    passed = [c.passes if isinstance(c, Case) else c for c in cases]
    total, good = len(passed), sum(passed)
    if good == total:
        return f"PASSED: {total} of {total} cases passed", True
    return f"FAILED: {good} of {total} cases passed ({total - good} failed)", False


def scored(ran: Ran, cases: Sequence[Case] | Sequence[bool], *more: str) -> Outcome:
    """The outcome of a run that scored ``cases``: exit 0 or 1 by their truth."""
    line, passed = verdict(cases)
    return Outcome(ran, 0 if passed else 1, (line, *more), passed)


def shard_of(eval_set_id: str, eval_id: str, count: int) -> int:
    """The documented shard rule, restated here (not agenteval's function)."""
    digest = hashlib.sha256(f"{eval_set_id}\0{eval_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def ids_filling(lab: Lab, count: int) -> list[str]:
    """Case ids with one or two cases in each of ``count`` shards of eval set 'suite'."""
    want = {index: lab.rng.randint(1, 2) for index in range(1, count + 1)}
    ids: list[str] = []
    number = lab.rng.randrange(1000)
    while any(want.values()):
        eval_id = f"case_{number}"
        number += 1
        shard = shard_of("suite", eval_id, count)
        if want[shard]:
            want[shard] -= 1
            ids.append(eval_id)
    return ids


def result_file(directory: Path) -> Path:
    """The one result file a run wrote into ``directory``."""
    (found,) = directory.glob("*.evalset_result.json")
    return found


# --- shards -----------------------------------------------------------------------------


def _shard_runs(lab: Lab, count: int, cases: Sequence[Case], metrics: Path) -> dict[int, Path]:
    evalset = lab.evalset(cases)
    found = {}
    for index in range(1, count + 1):
        out = lab.root / f"shard{index}"
        mine = [c for c in cases if shard_of("suite", c.eval_id, count) == index]
        ran = lab.cli("run", "-e", evalset, "-m", metrics, "-o", out, "--shard", f"{index}/{count}", "-q")  # fmt: skip
        assert ran.code == (0 if all(c.passes for c in mine) else 1), ran
        found[index] = result_file(out)
    return found


def shards_complete(lab: Lab) -> Outcome:
    """Every shard merged (and the merge shown): the whole set's verdict."""
    count = lab.rng.randint(2, 4)
    cases = lab.cases(0, ids=ids_filling(lab, count))
    parts = _shard_runs(lab, count, cases, lab.metrics([exact()]))
    merged = lab.root / "merged.json"
    extra = ["--evalset", lab.root / "suite.evalset.json"] if lab.rng.random() < 0.5 else []
    ran = lab.cli("merge", *lab.rng.sample(list(parts.values()), count), "-o", merged, *extra)
    expected = scored(ran, cases)
    assert ran.code == expected.code and expected.phrases[0] in ran.text, lab.log[-1]
    return scored(lab.cli("show", merged, *lab.quiet()), cases)


def shards_missing(lab: Lab) -> Outcome:
    """A shard left out: exit 2 naming it, whatever the given shards say."""
    count = lab.rng.randint(2, 4)
    cases = lab.cases(0, lab.rng.choice(("none", "none", "any")), ids=ids_filling(lab, count))
    parts = _shard_runs(lab, count, cases, lab.metrics([exact()]))
    gone = lab.rng.randint(1, count)
    given = [p for i, p in parts.items() if i != gone]
    extra = ["--evalset", lab.root / "suite.evalset.json"] if lab.rng.random() < 0.5 else []
    ran = lab.cli("merge", *given, "-o", lab.root / "merged.json", *extra)
    return Outcome(ran, 2, [f"shard {gone}/{count} is missing"], False)


def shards_partial(lab: Lab) -> Outcome:
    """Shards left out, --allow-partial: merged, INCOMPLETE (exit 3), and so is its show."""
    count = lab.rng.randint(2, 4)
    cases = lab.cases(0, lab.rng.choice(("none", "none", "any")), ids=ids_filling(lab, count))
    parts = _shard_runs(lab, count, cases, lab.metrics([exact()]))
    kept = sorted(lab.rng.sample(sorted(parts), lab.rng.randint(1, count - 1)))
    merged = lab.root / "merged.json"
    ran = lab.cli("merge", *(parts[i] for i in kept), "-o", merged, "--allow-partial", *lab.quiet())
    assert ran.code == 3 and "INCOMPLETE:" in ran.text, lab.log[-1]
    assert json.loads(merged.read_text())["partial"] is True
    return Outcome(lab.cli("show", merged, *lab.quiet()), 3, ["INCOMPLETE:"], False, ["PASSED"])


def shards_other_metrics(lab: Lab) -> Outcome:
    """One shard scored with a threshold-0 metric file (its wrong answers pass there)."""
    count = lab.rng.randint(2, 4)
    odd = lab.rng.randint(1, count)
    ids = ids_filling(lab, count)
    cases = lab.cases(0, "none", ids=ids)
    # One wrong answer in the lax shard: there it passes, under the strict file it fails.
    victim = lab.rng.choice([i for i, c in enumerate(cases) if shard_of("suite", c.eval_id, count) == odd])  # fmt: skip
    cases[victim] = Case(cases[victim].eval_id, cases[victim].question, cases[victim].reference, WRONG[0])  # fmt: skip
    parts = _shard_runs(lab, count, cases, lab.metrics([exact()]))
    lax = lab.metrics([exact(0.0)], name="lax")
    out = lab.root / "lax"
    lab.cli("run", "-e", lab.root / "suite.evalset.json", "-m", lax, "-o", out, "--shard", f"{odd}/{count}", "-q")  # fmt: skip
    parts[odd] = result_file(out)
    extra = ["--allow-partial"] if lab.rng.random() < 0.5 else []
    ran = lab.cli("merge", *parts.values(), "-o", lab.root / "merged.json", *extra)
    return Outcome(ran, 2, ["was scored on other inputs than in", "metric file changed"], False)


def shards_changed_evalset(lab: Lab) -> Outcome:
    """The eval set edited between the shard jobs (one answer flipped): refused."""
    count = lab.rng.randint(2, 4)
    cases = lab.cases(0, ids=ids_filling(lab, count))
    parts = _shard_runs(lab, count, cases, lab.metrics([exact()]))
    flip = lab.rng.randrange(len(cases))
    edited = list(cases)
    was = edited[flip]
    edited[flip] = Case(was.eval_id, was.question, was.reference, was.reference if not was.passes else WRONG[0])  # fmt: skip
    evalset = lab.evalset(edited)
    last = lab.rng.randint(1, count)
    out = lab.root / "again"
    lab.cli("run", "-e", evalset, "-m", lab.root / "suite.metrics.json", "-o", out, "--shard", f"{last}/{count}", "-q")  # fmt: skip
    parts[last] = result_file(out)
    ran = lab.cli("merge", *parts.values(), "-o", lab.root / "merged.json")
    return Outcome(ran, 2, ["was scored on other inputs than in", "eval set changed"], False)


def shards_other_split(lab: Lab) -> Outcome:
    """Shards of two different --shard I/N splits: refused."""
    count = lab.rng.randint(2, 3)
    cases = lab.cases(0, ids=ids_filling(lab, count))
    parts = _shard_runs(lab, count, cases, lab.metrics([exact()]))
    other = count + 1
    out = lab.root / "other"
    index = lab.rng.randint(1, other)
    lab.cli("run", "-e", lab.root / "suite.evalset.json", "-m", lab.root / "suite.metrics.json", "-o", out, "--shard", f"{index}/{other}", "-q")  # fmt: skip
    ran = lab.cli("merge", *parts.values(), result_file(out), "-o", lab.root / "merged.json")
    return Outcome(ran, 2, ["shards of different splits"], False)


# --- resume -----------------------------------------------------------------------------


def _junit_failures(path: Path) -> int:
    found = re.search(r'<testsuites[^>]*\bfailures="(\d+)"', path.read_text())
    assert found is not None, path.read_text()
    return int(found.group(1))


def resume_metrics(lab: Lab) -> Outcome:
    """Scored with threshold 0 (every case passes), resumed with the strict metric file."""
    cases = lab.cases(lab.rng.randint(2, 6), "some")
    evalset = lab.evalset(cases)
    first = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact(0.0)], "lax"), "-o", lab.root / "first", "-q")  # fmt: skip
    assert first.code == 0, lab.log[-1]
    junit = lab.root / "junit.xml"
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "-o", lab.root / "again", "--resume", result_file(lab.root / "first"), "--junit", junit, *lab.quiet())  # fmt: skip
    assert _junit_failures(junit) == sum(not c.passes for c in cases)
    return scored(ran, cases, f"re-scoring {len(cases)} whose metric file changed")


def resume_evalset(lab: Lab) -> Outcome:
    """The eval set's recorded answers changed between the run and its resume."""
    # Either the first run passed and the edit breaks answers (keeping its cases would be a
    # false green), or the other way round.
    breaks = lab.rng.random() < 0.5
    cases = lab.cases(lab.rng.randint(2, 6), "none" if breaks else "some")
    evalset = lab.evalset(cases)
    metrics = lab.metrics([exact()])
    lab.cli("run", "-e", evalset, "-m", metrics, "-o", lab.root / "first", "-q")
    changed = lab.cases(0, "some" if breaks else "none", ids=[c.eval_id for c in cases])
    lab.evalset(changed)
    ran = lab.cli("run", "-e", evalset, "-m", metrics, "-o", lab.root / "again", "--resume", result_file(lab.root / "first"), *lab.quiet())  # fmt: skip
    return scored(ran, changed, "whose eval set changed")


def resume_traces(lab: Lab) -> Outcome:
    """--traces swapped for another recording between the run and its resume."""
    breaks = lab.rng.random() < 0.5
    cases = lab.cases(lab.rng.randint(2, 6), "none" if breaks else "some")
    evalset = lab.evalset(cases, traced=False)
    metrics = lab.metrics([exact()])
    first = lab.traces(cases, "first")
    lab.cli("run", "-e", evalset, "-m", metrics, "--traces", first, "-o", lab.root / "first", "-q")
    fresh = lab.cases(0, "some" if breaks else "none", ids=[c.eval_id for c in cases])
    other = [  # the eval set is the same: these traces answer its references, or not
        Case(c.eval_id, c.question, c.reference, c.reference if f.passes else f.actual)
        for f, c in zip(fresh, cases, strict=True)
    ]
    ran = lab.cli("run", "-e", evalset, "-m", metrics, "--traces", lab.traces(other, "second"), "-o", lab.root / "again", "--resume", result_file(lab.root / "first"), *lab.quiet())  # fmt: skip
    return scored(ran, other, "whose traces changed")


def resume_same_inputs(lab: Lab) -> Outcome:
    """Part of the cases scored, the rest on resume with the same inputs: every case, once."""
    cases = lab.cases(lab.rng.randint(3, 6))
    evalset = lab.evalset(cases)
    metrics = lab.metrics([exact()])
    some = lab.rng.sample([c.eval_id for c in cases], lab.rng.randint(1, len(cases) - 1))
    picks = [arg for eval_id in some for arg in ("--case", eval_id)]
    lab.cli("run", "-e", evalset, "-m", metrics, "-o", lab.root / "first", *picks, "-q")
    ran = lab.cli("run", "-e", evalset, "-m", metrics, "-o", lab.root / "again", "--resume", result_file(lab.root / "first"), *lab.quiet())  # fmt: skip
    written = json.loads(result_file(lab.root / "again").read_text())["evalCaseResults"]
    assert Counter(c["evalId"] for c in written) == Counter(c.eval_id for c in cases)
    outcome = scored(ran, cases)
    outcome.absent = ["--resume"]  # nothing to say: every kept case matches
    return outcome


def resume_without_fingerprints(lab: Lab) -> Outcome:
    """A lax result without fingerprints (an older agenteval's) resumed with the strict file."""
    cases = lab.cases(lab.rng.randint(2, 5), "some")
    evalset = lab.evalset(cases)
    lab.cli("run", "-e", evalset, "-m", lab.metrics([exact(0.0)], "lax"), "-o", lab.root / "first", "-q")  # fmt: skip
    legacy = result_file(lab.root / "first")
    data = json.loads(legacy.read_text())
    del data["fingerprint"]
    legacy.write_text(json.dumps(data))
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "-o", lab.root / "again", "--resume", legacy, *lab.quiet())  # fmt: skip
    return scored(ran, cases, "from results without fingerprints")


def resume_partial_then_changed(lab: Lab) -> Outcome:
    """Part scored with threshold 0, then resumed with the strict file and a changed set."""
    cases = lab.cases(lab.rng.randint(3, 6))
    evalset = lab.evalset(cases)
    some = lab.rng.sample([c.eval_id for c in cases], lab.rng.randint(1, len(cases) - 1))
    picks = [arg for eval_id in some for arg in ("--case", eval_id)]
    lab.cli("run", "-e", evalset, "-m", lab.metrics([exact(0.0)], "lax"), "-o", lab.root / "first", *picks, "-q")  # fmt: skip
    changed = [Case(c.eval_id, c.question, c.reference, WRONG[0]) if c.eval_id == some[0] else c for c in cases]  # fmt: skip
    lab.evalset(changed)
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "-o", lab.root / "again", "--resume", result_file(lab.root / "first"), *lab.quiet())  # fmt: skip
    return scored(ran, changed, f"kept 0 cases; re-scoring {len(some)} whose eval set changed and metric file changed")  # fmt: skip


# --- traces -----------------------------------------------------------------------------


def _other_question(lab: Lab, strict: bool) -> Outcome:
    cases = lab.cases(lab.rng.randint(2, 5))
    evalset = lab.evalset(cases, traced=False)
    victim = lab.rng.choice(cases)
    recorded = [
        Case(c.eval_id, "a question of another case?", c.reference, c.actual) if c is victim else c
        for c in cases
    ]
    traces = lab.traces(recorded)
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--traces", traces, *(["--strict"] if strict else []), *lab.quiet())  # fmt: skip
    said = f"case '{victim.eval_id}': the --traces user message of turn 1 differs from the reference"  # fmt: skip
    if strict:
        return Outcome(ran, 2, [said], False)
    # Not strict: a warning (never hidden, counted on the verdict line); the answers decide.
    return scored(ran, cases, said, "· 1 warning")


def traces_other_question(lab: Lab) -> Outcome:
    """A --traces record whose user message is another question: warned, even under -q."""
    return _other_question(lab, strict=False)


def traces_other_question_strict(lab: Lab) -> Outcome:
    """The same under --strict: exit 2."""
    return _other_question(lab, strict=True)


def traces_missing_record(lab: Lab) -> Outcome:
    """A case with no --traces record fails (it needs an agent run); never green."""
    cases = lab.cases(lab.rng.randint(2, 5))
    evalset = lab.evalset(cases, traced=False)
    left_out = lab.rng.choice(cases)
    traces = lab.traces([c for c in cases if c is not left_out])
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--traces", traces, *lab.quiet())  # fmt: skip
    truth = [c.passes and c is not left_out for c in cases]
    return scored(ran, truth, "this case needs an agent run")


def traces_duplicate_record(lab: Lab) -> Outcome:
    """Two records for one case (the second answering otherwise): a located error."""
    cases = lab.cases(lab.rng.randint(2, 5))
    evalset = lab.evalset(cases, traced=False)
    twice = lab.rng.randrange(len(cases))
    copy = Case(cases[twice].eval_id, cases[twice].question, cases[twice].reference, WRONG[0])
    traces = lab.traces([*cases, copy])
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--traces", traces, *lab.quiet())  # fmt: skip
    return Outcome(ran, 2, [f"line {len(cases) + 1}.evalId: duplicate evalId '{copy.eval_id}'"], False)  # fmt: skip


def traces_stray_record(lab: Lab) -> Outcome:
    """A record no case names: warned (its turns are not scored); the cases decide."""
    cases = lab.cases(lab.rng.randint(2, 5))
    evalset = lab.evalset(cases, traced=False)
    stray = Case("nobody_asked", "q?", "a", "a")
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--traces", lab.traces([*cases, stray]), *lab.quiet())  # fmt: skip
    return scored(ran, cases, "no case has evalId 'nobody_asked'")


def traces_extra_turn(lab: Lab) -> Outcome:
    """A record with one turn more than its case: a located error, exit 2."""
    cases = lab.cases(lab.rng.randint(2, 5))
    evalset = lab.evalset(cases, traced=False)
    traces = lab.traces(cases)
    longer = lab.rng.randrange(len(cases))
    lines = traces.read_text().splitlines()
    record = json.loads(lines[longer])
    record["actualConversation"].append(turn("and then?", "nothing"))
    lines[longer] = json.dumps(record)
    traces.write_text("\n".join(lines) + "\n")
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--traces", traces, *lab.quiet())  # fmt: skip
    return Outcome(ran, 2, [f"evalCases[{longer}]: inference count 2 does not match"], False)


def _otlp(lab: Lab, cases: Sequence[Case], *, repeat: bool) -> Path:
    recorder = Recorder(id_generator=PerTraceIds())  # every trace numbers its spans 1, 2 …
    for case in cases:
        invocation = Invocation(
            user_content=Message(role="user", content=case.question),
            final_response=Message(role="assistant", content=case.actual),
        )
        record_semconv(recorder.tracer, case.eval_id, [invocation])
    path = recorder.write_json(lab.root / "spans.otlp.jsonl")
    if repeat:  # one trace exported twice (an exporter's retry)
        lines = path.read_text().splitlines()
        again = lab.rng.choice(lines)
        path.write_text("\n".join([*lines, again]) + "\n")
    return path


def traces_otlp_span_ids(lab: Lab) -> Outcome:
    """OTLP sessions whose span ids repeat across traces: every session scored."""
    cases = lab.cases(lab.rng.randint(2, 5))
    evalset = lab.evalset(cases, traced=False)
    repeat = lab.rng.random() < 0.5
    spans = _otlp(lab, cases, repeat=repeat)
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--traces", spans, "--no-cache", *lab.quiet())  # fmt: skip
    outcome = scored(ran, cases)
    outcome.absent = ["needs an agent run"]
    if repeat:
        outcome.phrases = [*outcome.phrases, "repeats the trace and span id of an earlier span"]
    return outcome


# --- agents -----------------------------------------------------------------------------

FAULTS = {
    "double": "wrote after its final reply",
    "double late": "wrote after its final reply",
    "crash": "agent process exited with code 3",
    "garbage": "protocol error",
    "fail": "agent reported an error: model quota exceeded",
    "hang": "no final reply within",
}


def _agent_run(lab: Lab, faults: Sequence[str]) -> Outcome:
    """Cases of one or two turns; a case with a fault in any turn fails, the rest pass."""
    ids = [f"case_{i:02d}" for i in range(lab.rng.randint(2, 5))]
    # A hang costs --agent-timeout: one hanging case per run.  Mixed runs may have no fault.
    least = 0 if len(faults) > 3 else 1
    chosen = lab.rng.sample(ids, 1 if "hang" in faults else lab.rng.randint(least, len(ids) - 1))
    plan: dict[str, list[tuple[str, str]]] = {}
    for number, eval_id in enumerate(ids):
        texts = [f"hello {number} {t}" for t in range(lab.rng.randint(1, 2))]
        if eval_id in chosen:
            texts[lab.rng.randrange(len(texts))] = lab.rng.choice(faults)
        plan[eval_id] = [(text, f"echo: {text}") for text in texts]
    return _drive(lab, plan, lab.rng.randint(1, 3))


def _drive(lab: Lab, plan: dict[str, list[tuple[str, str]]], concurrency: int) -> Outcome:
    """Drive the fault agent over ``plan`` (per case: its turns' user texts and reference
    answers); a case passes when no turn commits a fault and every reference is the echo."""
    documents = [
        {
            "evalId": eval_id,
            "sessionInput": {"appName": "faults", "userId": "u"},
            "conversation": [turn(text, reference) for text, reference in turns],
        }
        for eval_id, turns in plan.items()
    ]
    evalset = lab.root / "suite.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "suite", "evalCases": documents}))
    metrics = lab.metrics([exact()])
    record = lab.root / "record.jsonl"
    texts = {eval_id: [text for text, _ in turns] for eval_id, turns in plan.items()}
    hangs = any("hang" in case for case in texts.values())
    ran = lab.cli(
        "run", "-e", evalset, "-m", metrics, "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--agent-concurrency", str(concurrency), "--record", record,
        *(["--agent-timeout", "5"] if hangs else []), *lab.quiet(),
    )  # fmt: skip
    truth = [
        all(text not in FAULTS and reference == f"echo: {text}" for text, reference in turns)
        for turns in plan.values()
    ]
    # The record holds every driven case once, failures included; a stray line never
    # becomes another case's answer.
    used = {FAULTS[t] for case in texts.values() for t in case if t in FAULTS}
    outcome = scored(ran, truth, *sorted(used))
    recorded = [json.loads(line) for line in record.read_text().splitlines()]
    if Counter(r["evalId"] for r in recorded) != Counter(list(plan)):
        outcome.faults.append(f"the record holds {sorted(r['evalId'] for r in recorded)}")
    for line in recorded:
        if "stray" in json.dumps(line) and not any(t.startswith("double") for t in texts[line["evalId"]]):  # fmt: skip
            outcome.faults.append(f"another case's stray line recorded for {line['evalId']}")
    return outcome


def agents_stray_as_next_answer(lab: Lab) -> Outcome:
    """One worker; a case's second final is exactly the answer the next case expects, and
    that next case's agent turn errors: neither may pass (a leaky pipe passed both)."""
    plan = {
        f"case_{i:02d}": [(f"hello {i}", f"echo: hello {i}")] for i in range(lab.rng.randint(0, 3))
    }
    double = lab.rng.choice(("double", "double late"))
    plan["writes_twice"] = [(double, f"echo: {double}")]
    plan["errs"] = [("fail", "echo: stray")]
    return _drive(lab, plan, 1)


def agents_stray_final(lab: Lab) -> Outcome:
    """An agent writing a second final (at once or late): its case fails, no other."""
    return _agent_run(lab, ["double", "double late"])


def agents_crash(lab: Lab) -> Outcome:
    """An agent that dies mid-session."""
    return _agent_run(lab, ["crash"])


def agents_hang(lab: Lab) -> Outcome:
    """An agent that never answers a turn (--agent-timeout 5: a loaded box starts workers slowly)."""
    return _agent_run(lab, ["hang"])


def agents_protocol(lab: Lab) -> Outcome:
    """Garbage on the pipe, or an error reply."""
    return _agent_run(lab, ["garbage", "fail"])


def agents_mixed(lab: Lab) -> Outcome:
    """Any of the faults, in any turn, or none."""
    return _agent_run(lab, ["double", "double late", "crash", "garbage", "fail"])


def agents_cannot_start(lab: Lab) -> Outcome:
    """A command that does not exist: every case incomplete, one INCOMPLETE verdict."""
    cases = [f"case_{i}" for i in range(lab.rng.randint(1, 4))]
    documents = [
        {"evalId": c, "sessionInput": {}, "conversation": [turn("hi", "echo: hi")]} for c in cases
    ]
    evalset = lab.root / "suite.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "suite", "evalCases": documents}))
    missing = lab.root / "no-such-agent"
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([exact()]), "--agent", f"cmd:{missing}", *lab.quiet())  # fmt: skip
    line = f"INCOMPLETE: 0 of {len(cases)} cases passed ({len(cases)} incomplete)"
    return Outcome(ran, 3, [line, "the agent could not be started"], False, ["FAILED:"])


# --- keys -------------------------------------------------------------------------------

THRESHOLD_TYPOS = ("threshhold", "treshold", "thresold", "Threshold", "thershold")
NEAR_MISSES = (  # (where, misspelt key, the key it means)
    ("metric", "criterian", "criterion"),
    ("metric", "metricNam", "metricName"),
    ("criterion", "matchStratgy", "matchStrategy"),
    ("case", "conversaton", "conversation"),
    ("case", "evalMod", "evalMode"),
    ("turn", "finalRespone", "finalResponse"),
    ("set", "evalCasses", "evalCases"),
)


def keys_misspelt_threshold(lab: Lab) -> Outcome:
    """A misspelt threshold on (possibly) wrong answers: an error, exit 2, --quiet or not."""
    typo = lab.rng.choice(THRESHOLD_TYPOS)
    cases = lab.cases(lab.rng.randint(1, 4), "some")
    metric = exact(None)
    metric[typo] = lab.rng.choice((0.5, 0.8, 1.0))
    ran = lab.cli("run", "-e", lab.evalset(cases), "-m", lab.metrics([metric]), *lab.quiet())
    return Outcome(ran, 2, [f"'{typo}' is not a field of EvalMetric (did you mean 'threshold'?)"], False)  # fmt: skip


def keys_lenient_no_threshold(lab: Lab) -> Outcome:
    """--lenient (or no threshold at all) beside a strict metric: the strict one decides,
    and the bar-less metric is warned about, -q or not."""
    cases = lab.cases(lab.rng.randint(1, 4))
    loose = exact(None, name="loose")
    loose["evaluatorName"] = "final_response_avg_score"
    lenient = lab.rng.random() < 0.5
    if lenient:
        loose[lab.rng.choice(THRESHOLD_TYPOS)] = 0.9
    metrics = lab.metrics([exact(), loose])
    ran = lab.cli("run", "-e", lab.evalset(cases), "-m", metrics, *(["--lenient"] if lenient else []), *lab.quiet())  # fmt: skip
    return scored(ran, cases, "no threshold, so this metric always passes", "· 2 warnings" if lenient else "· 1 warning")  # fmt: skip


def keys_threshold_out_of_range(lab: Lab) -> Outcome:
    """A threshold outside the evaluator's 0..1 scores (80 meaning 80 %, or below 0)."""
    value = lab.rng.choice((lab.rng.randint(2, 100), -lab.rng.randint(1, 5) / 10))
    cases = lab.cases(lab.rng.randint(1, 4))
    name = lab.rng.choice(("final_response_avg_score", "response_match_score"))
    metric = exact(value) if name == "final_response_avg_score" else {"metricName": name, "threshold": value}  # fmt: skip
    ran = lab.cli("run", "-e", lab.evalset(cases), "-m", lab.metrics([metric]), *lab.quiet())
    return Outcome(ran, 2, [f"threshold: {value:g} is outside the scores of {name} (0 to 1)"], False)  # fmt: skip


def keys_near_miss(lab: Lab) -> Outcome:
    """A key one letter from a known one, anywhere in the eval set or metric file: exit 2."""
    where, typo, meant = lab.rng.choice(NEAR_MISSES)
    cases = lab.cases(lab.rng.randint(1, 4))
    evalset = lab.evalset(cases)
    metric = exact()
    data = json.loads(evalset.read_text())
    victim = lab.rng.randrange(len(cases))
    target: dict[str, Any] = {
        "metric": metric,
        "criterion": metric["criterion"]["finalResponse"]["text"],
        "case": data["evalCases"][victim],
        "turn": data["evalCases"][victim]["actualConversation"][0],
        "set": data,
    }[where]
    if typo == "criterian":
        target[typo] = metric.pop("criterion")
    else:
        target[typo] = target.pop(meant)
    evalset.write_text(json.dumps(data))
    ran = lab.cli("run", "-e", evalset, "-m", lab.metrics([metric]), *lab.quiet())
    phrase = f"(did you mean '{meant}'?)"
    if typo == "metricNam":  # the metric's name is missing too
        phrase = f"'{typo}' is not a field of EvalMetric (did you mean '{meant}'?)"
    return Outcome(ran, 2, [phrase], False)


def keys_unknown(lab: Lab) -> Outcome:
    """A key close to none: a warning (the answers decide), an error under --strict."""
    cases = lab.cases(lab.rng.randint(1, 4))
    metric = exact()
    metric["xyzzyPlugh"] = True
    strict = lab.rng.random() < 0.5
    ran = lab.cli("run", "-e", lab.evalset(cases), "-m", lab.metrics([metric]), *(["--strict"] if strict else []), *lab.quiet())  # fmt: skip
    phrase = "'xyzzyPlugh' is not a field of EvalMetric"
    if strict:
        return Outcome(ran, 2, [phrase], False)
    return scored(ran, cases, phrase, "· 1 warning")


def _judged(base_url: str) -> dict[str, Any]:
    judge = {
        "providerName": "openai",
        "modelName": "loopback-judge",
        "baseURL": base_url,
        "apiKey": "${JUDGE_KEY}",
    }
    return {
        "metricName": "llm_final_response",
        "threshold": 1,
        "criterion": {"llmJudge": {"judgeModel": judge}},
    }


def keys_credentials_in_base_url(lab: Lab) -> Outcome:
    """user:password@ in a judge's baseURL: a located config error at validate and run."""
    password = f"pw{secrets.token_hex(6)}"
    cases = lab.cases(lab.rng.randint(1, 3))
    metrics = lab.metrics([_judged("http://judge:${JUDGE_PASSWORD}@127.0.0.1:9/v1")])
    command = lab.rng.choice(("validate", "run"))
    ran = lab.cli(command, "-e", lab.evalset(cases), "-m", metrics, *(lab.quiet() if command == "run" else []), env={"JUDGE_PASSWORD": password, "JUDGE_KEY": "sk-x"})  # fmt: skip
    return Outcome(ran, 2, ["baseURL: the base URL holds credentials"], False, [password])


def keys_key_in_base_url(lab: Lab) -> Outcome:
    """A key in the judge's baseURL query: the judge's verdicts decide, the key is in no file."""
    server: JudgeServer = lab.request.getfixturevalue("judge_server")
    url_key, api_key = f"k{secrets.token_hex(10)}", f"sk{secrets.token_hex(10)}"
    cases = lab.cases(lab.rng.randint(1, 4))
    invalid = Reply(content="reasoning: it does not match\nis_the_agent_response_valid: invalid")
    for wrong in WRONG:
        server.when(f"{wrong}", invalid)
    metrics = lab.metrics([_judged(f"{server.base_url}/chat/completions?key=${{URL_KEY}}")])
    out = lab.root / "out"
    ran = lab.cli(
        "run", "-e", lab.evalset(cases), "-m", metrics, "-o", out / "results",
        "--json", out / "run.json", "--junit", out / "junit.xml", "--no-cache", *lab.quiet(),
        env={"URL_KEY": url_key, "JUDGE_KEY": api_key},
    )  # fmt: skip
    assert server.count == len(cases), server.count
    leaked = [p.name for p in out.rglob("*") if p.is_file() and url_key.encode() in p.read_bytes()]
    assert leaked == []
    outcome = scored(ran, cases)
    outcome.absent = [url_key, api_key]
    return outcome


KINDS: dict[str, list[Callable[[Lab], Outcome]]] = {
    "shards": [
        shards_complete, shards_missing, shards_partial, shards_other_metrics,
        shards_changed_evalset, shards_other_split,
    ],
    "resume": [
        resume_metrics, resume_evalset, resume_traces, resume_same_inputs,
        resume_without_fingerprints, resume_partial_then_changed,
    ],
    "traces": [
        traces_other_question, traces_other_question_strict, traces_missing_record,
        traces_duplicate_record, traces_stray_record, traces_extra_turn, traces_otlp_span_ids,
    ],
    "agents": [
        agents_stray_final, agents_crash, agents_hang, agents_protocol, agents_mixed,
        agents_cannot_start, agents_stray_as_next_answer,
    ],
    "keys": [
        keys_misspelt_threshold, keys_lenient_no_threshold, keys_threshold_out_of_range,
        keys_near_miss, keys_unknown, keys_credentials_in_base_url, keys_key_in_base_url,
    ],
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Scenario:
    """One drawn scenario: its family, kind and own seed."""

    number: int
    family: str
    build: Callable[[Lab], Outcome]
    seed: int

    @property
    def name(self) -> str:
        """``NN-family-kind``."""
        kind = self.build.__name__.removeprefix(f"{self.family}_")
        return f"{self.number:02d}-{self.family}-{kind}"


def draw(seed: int) -> list[Scenario]:
    """The scenarios of ``seed``: each family's kinds in turn, in a shuffled order."""
    rng = random.Random(seed)
    drawn = []
    for family in FAMILIES:
        kinds = list(KINDS[family])
        rng.shuffle(kinds)
        for slot in range(PER_FAMILY):
            drawn.append((family, kinds[slot % len(kinds)], rng.randrange(2**32)))
    return [Scenario(n, f, b, s) for n, (f, b, s) in enumerate(drawn, start=1)]


SCENARIOS = draw(SEED)


def test_forty_scenarios_cover_every_kind_of_every_family() -> None:
    assert len(SCENARIOS) == 40
    assert Counter(s.family for s in SCENARIOS) == dict.fromkeys(FAMILIES, PER_FAMILY)
    assert {s.build for s in SCENARIOS} == {b for kinds in KINDS.values() for b in kinds}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_never_green_unless_every_case_passed(
    scenario: Scenario, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    lab = Lab(tmp_path, random.Random(scenario.seed), request)
    try:
        outcome = scenario.build(lab)
    except AssertionError as error:
        raise AssertionError(f"{where(scenario)}: {error}\n" + "\n".join(lab.log)) from error
    ran = outcome.ran
    context = f"{where(scenario)}\n" + "\n".join(lab.log)
    assert "Traceback" not in ran.stdout + ran.stderr, context
    # The promise: exit 0 only when every case truly passed on the inputs given.
    assert ran.code != 0 or outcome.truly_passed, context
    assert ran.code == outcome.code, context
    for phrase in outcome.phrases:
        assert " ".join(phrase.split()) in ran.text, f"missing {phrase!r}\n{context}"
    for phrase in outcome.absent:
        assert phrase not in ran.stdout + ran.stderr, f"unexpected {phrase!r}\n{context}"
    assert outcome.faults == [], context
    # One verdict line, the last, for a run that scored.
    if outcome.code in (0, 1) and ran.args[0] in ("run", "show", "merge"):
        verdicts = [
            line for line in ran.stdout.splitlines()
            if line.startswith(("PASSED:", "FAILED:", "INCOMPLETE:"))
        ]  # fmt: skip
        assert len(verdicts) == 1, context


def where(scenario: Scenario) -> str:
    """How to find a failing scenario again."""
    return (
        f"scenario {scenario.name} (SEED={SEED}, scenario seed {scenario.seed}; "
        f"re-run with -k '{scenario.name}')"
    )
