"""``agenteval calibrate``: how well a judge metric agrees with human labels.

:func:`calibrate` pairs each label with the scored item it names
(:mod:`agenteval.calibrate.items`) and reports, per metric and per rubric
(``metric / rubric``): the labelled items, accuracy, Cohen's κ with a seeded
bootstrap interval, the confusion matrix (judge verdict × people's label),
precision and recall of ``fail``, the threshold that would maximise κ on these
labels (shown, never applied), Spearman's ρ for ``score`` labels, the judge's
self-consistency when it took several samples, the position-bias flip rate of
``llm_verifier_pairwise`` metrics with ``positionCheck``, and every disagreement with the
``agenteval explain`` command line that shows why.  Labels that name no scored
item, and items the judge did not evaluate, are listed, never dropped silently.

Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenteval.calibrate import stats
from agenteval.calibrate.items import Item, ItemKey, case_items
from agenteval.calibrate.labels import Label
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.result_inputs import (
    ResultPart,
    each_case,
    raise_problems,
    read_parts,
    reading_warnings,
)
from agenteval.schema.result import EvalCaseResult
from agenteval.schema.status import passes

# The positive class of precision / recall: what a judge gate is for is catching failures.
FAIL = "fail"


@dataclass(frozen=True, slots=True)
class Pair:
    """A label next to the item it names."""

    label: Label
    item: Item


# What stands in an explain line for the metric file a saved result does not name.
METRIC_FILE = "FILE"


def _needs_metric_file(source: Sequence[str], item: Item) -> bool:
    """Whether explain needs ``--metrics``: the result does not name the evaluator.  Scored on
    the spot (``--evalset`` in ``source``) explain finds the metrics as the scoring did."""
    return item.needs_metric_file and "--evalset" not in source


def _explain_command(source: Sequence[str], pair: Pair, metrics: str | None) -> str:
    """The ``agenteval explain`` line of one item; ``source`` names what was scored,
    ``metrics`` the ``--metrics`` it was scored with (a file, or a directory of them)."""
    _, eval_id, metric, run_id, invocation, _ = pair.label.item
    words = ["agenteval", "explain", *source, "--case", eval_id, "--metric", metric]
    if run_id != 1:
        words += ["--run", str(run_id)]
    if invocation and pair.item.turn is not None:
        words += ["--turn", str(pair.item.turn)]  # explain names a turn by its place
    if _needs_metric_file(source, pair.item):
        words += ["--metrics", _metric_file(metrics) or METRIC_FILE]
    return shlex.join(words)


def _metric_file(metrics: str | None) -> str | None:
    """The metric file the scoring was given, None when there is none or a directory."""
    return metrics if metrics is not None and not Path(metrics).is_dir() else None


def _explain_entry(source: Sequence[str], pair: Pair, metrics: str | None) -> dict[str, str]:
    """``explain``: the command line; ``explainNeeds``: what to fill in, when anything."""
    entry = {"explain": _explain_command(source, pair, metrics)}
    if _needs_metric_file(source, pair.item) and _metric_file(metrics) is None:
        # A directory: explain reads one file, and the eval set's is not known here.
        among = f" in {metrics}" if metrics is not None else ""
        entry["explainNeeds"] = (
            f"{METRIC_FILE}: the metric file{among} that defines {pair.label.item[2]}; the "
            "result does not say which evaluator scored it"
        )
    return entry


def _where(key: ItemKey) -> dict[str, Any]:
    set_id, eval_id, metric, run_id, invocation, rubric = key
    found: dict[str, Any] = {"evalSetId": set_id, "evalId": eval_id, "metricName": metric}
    if run_id != 1:
        found["runId"] = run_id
    if invocation:
        found["invocationId"] = invocation
    if rubric:
        found["rubricId"] = rubric
    return found


@dataclass(slots=True)
class Group:
    """The agreement of one metric (or one rubric of it) with people."""

    name: str
    pairs: list[Pair] = field(default_factory=list)
    not_evaluated: list[Label] = field(default_factory=list)

    def to_json(
        self, source: Sequence[str], seed: int, metrics: str | None = None
    ) -> dict[str, Any]:
        """Every statistic of the group, as ``--json`` prints it (``metrics``: see
        :class:`Calibration`)."""
        data: dict[str, Any] = {"name": self.name, "notEvaluated": len(self.not_evaluated)}
        labelled = [p for p in self.pairs if p.label.kind == "label"]
        scored = [p for p in self.pairs if p.label.kind == "score"]
        categorised = [p for p in self.pairs if p.label.kind == "category"]
        data["items"] = len(self.pairs)
        if labelled:
            data["passFail"] = _pass_fail(labelled, seed)
        if scored:
            judge = [p.item.score for p in scored]
            people = [float(p.label.line.score or 0.0) for p in scored]
            data["scores"] = {"items": len(scored), "spearman": stats.spearman(judge, people)}
        if categorised:
            data["categories"] = _categories(categorised, seed)
        agreements = [p.item.agreement for p in self.pairs if p.item.agreement is not None]
        if agreements:
            # Self-consistency: the mean share of samples that agreed with the verdict.
            data["selfConsistency"] = {
                "items": len(agreements),
                "meanAgreement": sum(agreements) / len(agreements),
                "unanimous": sum(1 for a in agreements if a == 1.0),
            }
        checks = [p.item.position for p in self.pairs if p.item.position is not None]
        if checks:
            # llm_verifier_pairwise asked in both orders: how often the preferred answer flipped.
            turns = sum(n for _, n in checks)
            flips = sum(f for f, _ in checks)
            data["positionBias"] = {"turns": turns, "flips": flips, "flipRate": flips / turns}
        data["disagreements"] = [
            {
                **_where(p.label.item),
                "line": p.label.where,
                "judge": _judge_word(p),
                "people": _people_word(p.label),
                "score": p.item.score,
                **_explain_entry(source, p, metrics),
            }
            for p in self.pairs
            if p.label.kind != "score" and _judge_word(p) != _people_word(p.label)
        ]
        return data


def _judge_word(pair: Pair) -> str:
    if pair.label.kind == "category":
        return pair.item.category or ""
    return pair.item.verdict or ""


def _people_word(label: Label) -> str:
    line = label.line
    return line.label or line.category or ""


def _matrix(judge: Sequence[str], people: Sequence[str], classes: Sequence[str]) -> list[list[int]]:
    counts = stats.confusion(judge, people)
    return [[counts[(j, p)] for p in classes] for j in classes]


def _pass_fail(pairs: Sequence[Pair], seed: int) -> dict[str, Any]:
    judge = [p.item.verdict or "" for p in pairs]
    people = [p.label.line.label or "" for p in pairs]
    kappa = stats.cohen_kappa(judge, people)
    interval = stats.bootstrap_kappa(judge, people, seed=seed)
    precision, recall = stats.precision_recall(judge, people, FAIL)
    thresholds = {p.item.threshold for p in pairs}
    current = thresholds.pop() if len(thresholds) == 1 else None
    upper = bounded_above(pairs)
    best = stats.best_threshold(
        [p.item.score for p in pairs],
        [label == "pass" for label in people],
        current,
        upper_bound=upper,
    )
    return {
        "items": len(pairs),
        "accuracy": stats.accuracy(judge, people),
        "kappa": kappa,
        "kappaInterval": None
        if interval is None
        else {
            "low": interval.low,
            "high": interval.high,
            "level": stats.INTERVAL,
            "resamples": interval.resamples,
            "seed": interval.seed,
        },
        # Rows: the judge's verdict; columns: people's label.
        "confusion": {
            "classes": ["pass", "fail"],
            "matrix": _matrix(judge, people, ["pass", "fail"]),
        },
        "failPrecision": precision,
        "failRecall": recall,
        "threshold": current,
        # A count metric's threshold bounds the score from above (pass iff score <= it).
        "upperBound": upper,
        "suggestedThreshold": None
        if best is None
        else {"value": best.value, "kappa": best.kappa, "applied": False},
    }


def bounded_above(pairs: Sequence[Pair]) -> bool:
    """Whether the pairs' metric is a count whose threshold is an upper bound: as the result
    says (:attr:`EvalMetricResult.upper_bound`: by its name, as
    :func:`agenteval.schema.status.metric_status` decides, or its ``upperBound`` key).  A
    file written before that key (a count evaluator under another ``metricName``) says
    nothing: then because the judge's verdicts fit only an upper bound.  A rubric's verdict
    is always ``score >= threshold``."""
    key = pairs[0].label.item
    if key[5] is not None:
        return False
    said = {p.item.upper_bound for p in pairs} - {None}
    if said:
        return True in said  # a turn's result does not carry the key: its case's does

    def fits(upper: bool) -> bool:
        return all(
            (p.item.verdict == "pass") == passes(p.item.score, p.item.threshold, upper_bound=upper)
            for p in pairs
        )

    return fits(True) and not fits(False)


def _categories(pairs: Sequence[Pair], seed: int) -> dict[str, Any]:
    judge = [p.item.category or "" for p in pairs]
    people = [p.label.line.category or "" for p in pairs]
    classes = sorted(set(judge) | set(people))
    interval = stats.bootstrap_kappa(judge, people, seed=seed)
    return {
        "items": len(pairs),
        "accuracy": stats.accuracy(judge, people),
        "kappa": stats.cohen_kappa(judge, people),
        "kappaInterval": None
        if interval is None
        else {"low": interval.low, "high": interval.high, "level": stats.INTERVAL},
        "confusion": {"classes": classes, "matrix": _matrix(judge, people, classes)},
    }


@dataclass(slots=True)
class Calibration:
    """Groups by name, and the labels that matched nothing.

    ``result`` names what was calibrated; ``source`` is what ``agenteval explain`` is
    given to show an item (the result, or the eval set and metrics scored on the spot);
    ``metrics``: the ``--metrics`` the run that saved the result was given (``run --labels``),
    for the explain lines of metrics whose evaluator the result does not name.
    """

    result: str
    seed: int
    source: tuple[str, ...] = ()
    metrics: str | None = None
    groups: dict[str, Group] = field(default_factory=dict)
    unknown: list[Label] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The whole calibration, as ``--json`` prints it."""
        return {
            "result": self.result,
            "seed": self.seed,
            "groups": [
                g.to_json(self.source or (self.result,), self.seed, self.metrics)
                for g in self.groups.values()
            ],
            "unknownLabels": [
                {**_where(label.item), "line": label.where} for label in self.unknown
            ],
            "notEvaluated": [
                {**_where(label.item), "line": label.where}
                for g in self.groups.values()
                for label in g.not_evaluated
            ],
        }


def group_name(key: ItemKey) -> str:
    """``metric`` or ``metric / rubric``."""
    return f"{key[2]} / {key[5]}" if key[5] else key[2]


def pair_labels(
    result: str,
    labels: Iterable[Label],
    items: dict[ItemKey, Item],
    seed: int,
    source: Sequence[str] = (),
    metrics: str | None = None,
) -> Calibration:
    """Pair every label with its item and group the pairs (``source``, ``metrics``: see
    :class:`Calibration`); ConfigError when two labels find one item."""
    found = Calibration(result, seed, tuple(source), metrics=metrics)
    named: dict[tuple[Any, ...], Label] = {}
    problems: list[Problem] = []
    for label in labels:
        item = items.get(label.item)
        if item is None:
            found.unknown.append(label)
            continue
        # Two labels that find one item (a turn by its invocationId, and the one turn of
        # its case by none) would count its verdict twice: refused, as two labels with the
        # same keys are when they are read (calibrate/labels.py).
        earlier = named.setdefault(_found_item(label.item, item), label)
        if earlier is not label:
            problems.append(_same_item(label, earlier))
            continue
        group = found.groups.setdefault(group_name(label.item), Group(group_name(label.item)))
        # A category label of a metric that wrote no category has nothing to compare with.
        if item.verdict is None or (label.kind == "category" and item.category is None):
            group.not_evaluated.append(label)
        else:
            group.pairs.append(Pair(label, item))
    if problems:
        raise ConfigError(problems)
    found.groups = dict(sorted(found.groups.items()))
    return found


def _found_item(key: ItemKey, item: Item) -> tuple[Any, ...]:
    """What a label found: a turn's item by its case, metric, place and rubric however the
    label named the turn; any other item by its key."""
    return key if item.turn is None else (*key[:4], item.turn, key[5])


def _same_item(label: Label, earlier: Label) -> Problem:
    turn = earlier.line.invocation_id or label.line.invocation_id
    return Problem(
        label.file,
        label.where,
        f"labels the same item as {earlier.where}: turn {turn!r}, the one turn of its case",
        "keep one label per item",
    )


def labelled_items(
    cases: Iterable[tuple[str, EvalCaseResult]], labels: Sequence[Label]
) -> dict[ItemKey, Item]:
    """The items of the ``(evalSetId, case)`` results that some label names a case of."""
    wanted = labelled_cases(labels)
    items: dict[ItemKey, Item] = {}
    for set_id, case in cases:
        if (set_id, case.eval_id, case.run_id or 1) in wanted:
            items.update(labelled_case_items(set_id, case, labels))
    return items


def labelled_case_items(
    set_id: str, case: EvalCaseResult, labels: Iterable[Label]
) -> dict[ItemKey, Item]:
    """The items of one case result, and, when the case ended with an error (its agent
    failed before the metrics scored it, say), every label of the case that names no item
    of it as an item the judge did not evaluate: never "names no scored item"."""
    items = case_items(set_id, case)
    if case.error_message:
        run = case.run_id or 1
        for label in labels:
            key = label.item
            if key[:2] == (set_id, case.eval_id) and key[3] == run and key not in items:
                items[key] = Item(None, 0.0, 0.0)
    return items


def labelled_cases(labels: Iterable[Label]) -> set[tuple[str, str, int]]:
    """The (evalSetId, evalId, runId) of every case a label names."""
    return {(label.item[0], label.item[1], label.item[3]) for label in labels}


def saved_cases(
    parts: Sequence[ResultPart], labelled: set[tuple[str, str, int]] | None = None
) -> Iterator[tuple[str, EvalCaseResult]]:
    """Every case of saved result ``parts`` with its evalSetId; ConfigError after the last
    when a case did not validate, or when a case and run of ``labelled`` (see
    :func:`labelled_cases`) is in more than one place: two result files of one eval set in
    a directory, or a run document that ran it twice.  Which verdicts the labels judge is
    then not known, and taking the last read would drop the others silently."""
    problems: list[Problem] = []
    first: dict[tuple[str, str, int], str] = {}
    for part, case in each_case(parts, problems):
        key = (part.head.eval_set_id, case.eval_id, case.run_id or 1)
        place = f"{part.source} {part.where}".rstrip()
        if labelled is not None and key in labelled and first.setdefault(key, place) != place:
            problems.append(_repeated(key, first[key], part))
        yield part.head.eval_set_id, case
    raise_problems(problems)


def _repeated(key: tuple[str, str, int], first: str, part: ResultPart) -> Problem:
    set_id, eval_id, run_id = key
    return Problem(
        part.source,
        part.where,
        f"case {eval_id!r} run {run_id} of eval set {set_id!r} is also in {first}",
        "give calibrate the one result whose verdicts the labels judge",
    )


def calibrate(
    result: Path,
    labels: Sequence[Label],
    *,
    seed: int = 0,
    warnings: list[Problem] | None = None,
) -> Calibration:
    """Read ``result`` (a result file, run document or directory) and compare it with ``labels``
    (``warnings``: what reading it found that is no error goes there)."""
    parts = read_parts([result])
    items = labelled_items(saved_cases(parts, labelled_cases(labels)), labels)
    if warnings is not None:
        warnings.extend(reading_warnings(parts))
    return pair_labels(str(result), labels, items, seed)


__all__ = [
    "Calibration",
    "Group",
    "Pair",
    "bounded_above",
    "calibrate",
    "group_name",
    "labelled_case_items",
    "labelled_cases",
    "labelled_items",
    "pair_labels",
    "saved_cases",
]
