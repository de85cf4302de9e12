"""Building blocks of the console report: status styling, per-case tables, reasons.

Tested in tests/report/test_console.py.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import Any, NamedTuple

from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from agenteval.inputs.safe_text import DEFAULT_REASON_CAP, cap, escape_control
from agenteval.inputs.score_text import (
    failed_against,
    format_score,
    score_beside,
    threshold_beside,
)
from agenteval.report.cell_table import CellTable, Column
from agenteval.results.aggregation import metric_summaries, pass_at_k, pass_hat_k
from agenteval.results.flakiness import Verdict, run_verdict
from agenteval.schema.result import (
    EvalCaseResult,
    EvalCaseSummary,
    EvalMetricResult,
    MetricDetails,
    MetricSummary,
    extra,
)
from agenteval.schema.status import EvalStatus

# More turns than this collapse into one "turns passed" column.
MAX_TURN_COLUMNS = 6


class StatusLook(NamedTuple):
    """How a status is shown: its word, its console style, its Markdown headline mark."""

    label: str
    style: str
    mark: str


STATUS_LOOKS = {
    EvalStatus.PASSED: StatusLook("passed", "green", "✅"),
    EvalStatus.FAILED: StatusLook("failed", "red", "❌"),
    EvalStatus.NOT_EVALUATED: StatusLook("not evaluated", "yellow", "⚠️"),
    EvalStatus.UNKNOWN: StatusLook("unknown", "magenta", "❔"),
    EvalStatus.INCOMPLETE: StatusLook("incomplete", "bold yellow", "❗"),
}
STATUS_STYLES = {status: look.style for status, look in STATUS_LOOKS.items()}
STATUS_LABELS = {status: look.label for status, look in STATUS_LOOKS.items()}


def status_text(status: EvalStatus, *, upper: bool = False) -> Text:
    """A status word in its colour."""
    label = STATUS_LABELS[status]
    return Text(label.upper() if upper else label, style=STATUS_STYLES[status])


def _new_table(*headers: str) -> CellTable:
    """Name columns (run, metric, case) on the left and key the row; the rest are values."""
    columns = []
    for header in headers:
        key = header in ("metric", "case", "run")
        justify: JustifyMethod = "left" if key else "right"
        columns.append(Column(header, justify, key=key, labelled=not key or header == "run"))
    return CellTable(columns)


def _turn_results(case: EvalCaseResult, metric_name: str) -> list[EvalMetricResult | None]:
    """Per-turn results of one metric, None where the turn has no result for it."""
    turns: list[EvalMetricResult | None] = []
    for turn in case.eval_metric_result_per_invocation or []:
        found = next(
            (r for r in turn.eval_metric_results or [] if r.metric_name == metric_name), None
        )
        turns.append(found)
    return turns


def _turn_count(runs: Sequence[EvalCaseResult]) -> int:
    return max((len(run.eval_metric_result_per_invocation or []) for run in runs), default=0)


def case_table(runs: Sequence[EvalCaseResult], *, multi_run: bool) -> CellTable | None:
    """One row per (run, metric): per-turn scores, overall score, threshold, status."""
    turn_count = _turn_count(runs)
    per_turn_columns = turn_count <= MAX_TURN_COLUMNS
    headers = ["run"] if multi_run else []
    headers.append("metric")
    if per_turn_columns:
        headers += [f"turn {i}" for i in range(1, turn_count + 1)]
    else:
        headers.append("turns passed")
    headers += ["score", "threshold", "status"]
    table = _new_table(*headers)
    rows = 0
    for run in runs:
        for result in run.overall_eval_metric_results or []:
            turns = _turn_results(run, result.metric_name)
            cells: list[Text | str] = [str(run.run_id)] if multi_run else []
            # Text, not str: names from files must not be read as rich markup.
            cells.append(Text(escape_control(result.metric_name)))
            threshold = result.threshold
            if per_turn_columns:
                cells += [_turn_cell(turn, threshold) for turn in turns]
                cells += ["—"] * (turn_count - len(turns))
            else:
                passed = sum(1 for t in turns if t and t.eval_status is EvalStatus.PASSED)
                unstable = sum(
                    1 for t in turns if t and t.details and extra(t.details).get("unstable")
                )
                cells.append(
                    f"{passed}/{len(turns)}" + (f" ({unstable} unstable)" if unstable else "")
                )
            # Every score of the row is read against its threshold column.
            shown = [result.score]
            if per_turn_columns:
                shown += [turn.score for turn in turns if turn]
            cells += [
                Text(
                    score_beside(result.score, threshold), style=STATUS_STYLES[result.eval_status]
                ),
                threshold_beside(threshold, *shown),
                status_text(result.eval_status),
            ]
            table.add_row(*cells)
            rows += 1
    return table if rows else None


def _turn_cell(turn: EvalMetricResult | None, threshold: float) -> Text:
    """A turn's score as read against the row's ``threshold`` column, with its judge votes."""
    if turn is None:
        return Text("—", style="dim")
    cell = Text(score_beside(turn.score, threshold), style=STATUS_STYLES[turn.eval_status])
    votes = judge_votes(turn.details)
    if votes:
        # Judge variance made visible: "1 (2/3 pass)", highlighted when the samples disagree.
        unstable = bool(extra(turn.details).get("unstable")) if turn.details else False
        cell.append(f" ({votes})", style="yellow" if unstable else "dim")
    return cell


def judge_votes(details: MetricDetails | None) -> str:
    """``"2/3 pass"`` from the per-sample votes a judge turn records, ``""`` without them."""
    samples = extra(details).get("samples") if details is not None else None
    if not isinstance(samples, list) or len(samples) < 2:
        return ""
    passed = sum(1 for s in samples if isinstance(s, dict) and s.get("status") == "passed")
    return f"{passed}/{len(samples)} pass"


def vote_note(details: MetricDetails | None) -> str:
    """``"2/3 pass, agreement 0.6667, unstable"`` for a judge turn with several samples."""
    votes = judge_votes(details)
    if not votes or details is None:
        return ""
    extras = extra(details)
    agreement = extras.get("agreement")
    if isinstance(agreement, int | float) and not isinstance(agreement, bool):
        votes += f", agreement {format_score(agreement)}"
    return votes + (", unstable" if extras.get("unstable") is True else "")


def unstable_turns(cases: Iterable[EvalCaseResult]) -> int:
    """Per-turn judge results whose samples disagreed (details ``unstable: true``)."""
    count = 0
    for case in cases:
        for turn in case.eval_metric_result_per_invocation or []:
            for result in turn.eval_metric_results or []:
                extras = result.details.model_extra if result.details is not None else None
                if extras and extras.get("unstable") is True:
                    count += 1
    return count


def _details_extras(details: MetricDetails | None) -> str:
    """Evaluator-specific detail keys (judge votes, method counts, ...) as ``k=v`` pairs,
    each value cut as a reason is (:func:`_capped`): a judge sample's 200 KB reason in
    ``samples`` flooded the terminal under --verbose."""
    if details is None:
        return ""
    pairs = []
    for key, value in sorted(extra(details).items()):
        shown, note = _capped(_compact(value))
        pairs.append(f"{key}={shown}" + (f" ({note})" if note else ""))
    return ", ".join(pairs)


def _capped(text: str) -> tuple[str, str]:
    """``text`` cut to :data:`DEFAULT_REASON_CAP` characters, and the note that says so
    (``""`` when whole): the one rule for a reason and for each detail value on the console."""
    if len(text) <= DEFAULT_REASON_CAP:
        return text, ""
    note = f"cut to {DEFAULT_REASON_CAP} of {len(text):,} characters; the result file has it whole"
    return cap(text, DEFAULT_REASON_CAP), note


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def _reason(result: EvalMetricResult) -> str:
    return result.details.reason if result.details else ""


class ReasonLine(NamedTuple):
    """A mark (✗ or ·) and the text beside it; wrapped text stays under the text."""

    mark: Text
    body: Text


def _reason_line(mark: str, style: str, where: str, reason: str, extras: str) -> ReasonLine:
    body = Text(escape_control(where), style="bold")
    if reason:
        # Cut as the CI reports cut it: a judge's 200 KB reason must not flood the terminal.
        shown, note = _capped(reason)
        body.append(f": {escape_control(shown)}")
        if note:
            body.append(f" [{note}]", style="dim")
    if extras:
        body.append(f" [{escape_control(extras)}]", style="dim")
    return ReasonLine(Text(mark, style=style), body)


def _not_evaluated_line(where: str, reason: str, extras: str) -> ReasonLine:
    why = f"not evaluated: {reason}" if reason else "not evaluated (no reason recorded)"
    return _reason_line("!", STATUS_STYLES[EvalStatus.INCOMPLETE], where, why, extras)


def reason_grid(lines: Sequence[ReasonLine], *, indent: int = 0) -> ReasonGrid:
    """Reason lines as a two-column grid, indented by ``indent`` (0 or at least 2) columns."""
    return ReasonGrid(lines, indent)


# A text column narrower than this is left to rich's table (its last-resort squeezing).
_GRID_MIN_TEXT = 10


class ReasonGrid:
    """Reason lines laid out as rich lays out a two-column ``Table.grid`` (a mark, then the
    text wrapped under itself, folded inside a word only when the word is wider than the
    line), without the table.

    rich's table measured every cell twice and built a padded renderable per cell: 200
    failed cases' reasons took ~0.1 s of a 10,000-case run (bench/adk_side_by_side.py),
    here ~0.01 s.  The output is the table's, character for character and style for style
    (tests/report/test_console_tables.py compares them on random lines and widths); text
    with a line break or a tab, or a terminal too narrow for the text column, is laid out
    by the table itself.
    """

    def __init__(self, lines: Sequence[ReasonLine], indent: int) -> None:
        self.lines = list(lines)
        self.indent = indent

    def table(self) -> Table:
        """The rich table this grid lays out like (the indent a leading empty column rather
        than a ``Padding``: rich measures the grid once instead of twice)."""
        grid = Table.grid(padding=(0, 1, 0, 0), pad_edge=False)
        if self.indent:
            # Its cell padding adds the last column of the indent.
            grid.add_column(no_wrap=True, width=self.indent - 1)
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for line in self.lines:
            if self.indent:
                grid.add_row("", line.mark, line.body)
            else:
                grid.add_row(line.mark, line.body)
        return grid

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table())

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.lines or any(_unplain(line) for line in self.lines):
            yield self.table()
            return
        mark_width = max(line.mark.cell_len for line in self.lines)
        lead = self.indent + mark_width + 1
        width = min(max(line.body.cell_len for line in self.lines), options.max_width - lead)
        if width < _GRID_MIN_TEXT:
            yield self.table()
            return
        indent = Segment(" " * self.indent)
        blank = Segment(" " * (mark_width + 1))
        gap = Segment(" ")
        newline = Text("\n")
        for line in self.lines:
            mark = line.mark.copy()
            mark.truncate(mark_width, pad=True)
            if line.body.cell_len <= width:
                # It fits: what rich's wrap makes of it, without dividing it into words
                # (its wrap cuts whitespace at the end of a line with more characters than
                # cells, a combining accent or a joiner in it; the padding is plain spaces).
                fitted = line.body.copy()
                fitted.rstrip_end(width)
                fitted.truncate(width, overflow="fold", pad=True)
                wrapped: Iterable[Text] = [fitted]
            else:
                wrapped = line.body.wrap(console, width, justify="left", overflow="fold")
            # Joined as rich joins a wrapped text (its style becomes a span), then split,
            # cropped and padded by its segments' widths as the table's cell is (a joiner
            # ending a segment hides no cell there, as it does inside the text's measure).
            body = Segment.split_and_crop_lines(
                newline.join(wrapped).render(console), width, include_new_lines=False
            )
            for number, segments in enumerate(body):
                if self.indent:
                    yield indent
                if number:
                    yield blank
                else:
                    yield from newline.join([mark]).render(console)
                    yield gap
                yield from segments
                yield Segment.line()


def _unplain(line: ReasonLine) -> bool:
    """Whether a line holds what the table lays out its own way (a break, a tab)."""
    return any(c in text.plain for text in line for c in "\n\t\r")


def reason_lines(run: EvalCaseResult, *, multi_run: bool, verbose: bool) -> list[ReasonLine]:
    """Why things failed (every reason when verbose), then the case error, for one run."""
    prefix = f"run {run.run_id} · " if multi_run else ""
    lines: list[ReasonLine] = []
    for overall in run.overall_eval_metric_results or []:
        turns = _turn_results(run, overall.metric_name)
        shown = False
        for index, turn in enumerate(turns, start=1):
            if turn is None:
                continue
            failed = turn.eval_status is EvalStatus.FAILED
            where = f"{prefix}{overall.metric_name} · turn {index}"
            votes = vote_note(turn.details)
            if turn.eval_status is EvalStatus.NOT_EVALUATED:
                # What could not be evaluated and why (a judge that never answered, ...):
                # the case is INCOMPLETE, and its table alone does not say why.
                extras = _details_extras(turn.details) if verbose else ""
                lines.append(_not_evaluated_line(where, _reason(turn), extras))
                shown = True
                continue
            if not (failed or verbose):
                if votes.endswith(", unstable"):
                    # A passing turn the judge samples disagreed on is worth a look.
                    lines.append(_reason_line("~", "yellow", where, _reason(turn), votes))
                continue
            mark, style = ("✗", "red") if failed else ("·", "dim")
            extras = _details_extras(turn.details) if verbose else votes
            lines.append(_reason_line(mark, style, where, _reason(turn), extras))
            shown = shown or failed
        overall_failed = overall.eval_status is EvalStatus.FAILED
        overall_extras = _details_extras(overall.details) if verbose else ""
        if overall.eval_status is EvalStatus.NOT_EVALUATED and not shown:
            where = f"{prefix}{overall.metric_name}"
            lines.append(_not_evaluated_line(where, _reason(overall).strip(";"), overall_extras))
            continue
        if (overall_failed and not shown) or overall_extras:
            # A failure without a failing turn (averages, judges): say why at metric level.
            reason = _reason(overall).strip(";") or (
                "score "
                + failed_against(overall.score, overall.threshold, upper_bound=overall.upper_bound)
                if overall_failed
                else ""
            )
            mark, style = ("✗", "red") if overall_failed else ("·", "dim")
            where = f"{prefix}{overall.metric_name}"
            lines.append(_reason_line(mark, style, where, reason, overall_extras))
    if run.error_message:
        lines.append(_reason_line("✗", "red", f"{prefix}error", run.error_message, ""))
    return lines


def metric_average_table(cases: Iterable[EvalCaseResult]) -> CellTable | None:
    """Per-metric average over every case and run (not_evaluated results skipped)."""
    return summary_table(
        metric_summaries(
            result for case in cases for result in case.overall_eval_metric_results or []
        )
    )


def summary_table(summaries: Sequence[MetricSummary]) -> CellTable | None:
    """The metric averages table of ``summaries``; None without any."""
    if not summaries:
        return None
    table = _new_table("metric", "average", "threshold", "status", "passed", "failed", "not eval.")
    for summary in summaries:
        counts = summary.status_counts
        table.add_row(
            Text(escape_control(summary.metric_name)),
            Text(
                score_beside(summary.average_score, summary.threshold),
                style=STATUS_STYLES[summary.eval_status],
            ),
            threshold_beside(summary.threshold, summary.average_score),
            status_text(summary.eval_status),
            str(counts.passed if counts else 0),
            str(counts.failed if counts else 0),
            str(counts.not_evaluated if counts else 0),
        )
    return table


def shown_ks(num_runs: int) -> list[int]:
    """The k values worth a column: 1, a few small ones and N."""
    return sorted({k for k in (1, 2, 3, 5, 10, num_runs) if k <= num_runs})


def pass_rate_table(
    cases: Sequence[EvalCaseSummary], num_runs: int, *, incomplete: Collection[str]
) -> CellTable:
    """pass@k and pass^k per case (n = runs, c = passed runs) and their mean over cases."""
    return pass_count_table(
        [
            (case.eval_id, case.run_status_counts.passed if case.run_status_counts else 0)
            for case in cases
        ],
        num_runs,
        incomplete=incomplete,
        undecided=[c.eval_id for c in cases if c.overall_status is EvalStatus.NOT_EVALUATED],
    )


def pass_count_table(
    cases: Sequence[tuple[str, int]],
    num_runs: int,
    *,
    incomplete: Collection[str],
    undecided: Collection[str] = (),
) -> CellTable:
    """:func:`pass_rate_table` of ``(evalId, runs passed)`` pairs, with each case's verdict
    (stable pass / flaky / stable fail; incomplete for the evalIds in ``incomplete``, whose
    status is; undecided for those in ``undecided``, not evaluated) and its pass rate's
    95 % Wilson interval."""
    ks = shown_ks(num_runs)
    headers = ["case", "runs passed", "verdict", "95% interval"]
    headers += [f"pass@{k}" for k in ks] + [f"pass^{k}" for k in ks]
    table = _new_table(*headers)
    rows: list[list[float]] = []
    for eval_id, passed in cases:
        values = [pass_at_k(num_runs, passed, k) for k in ks]
        values += [pass_hat_k(num_runs, passed, k) for k in ks]
        rows.append(values)
        verdict = run_verdict(
            passed, num_runs, incomplete=eval_id in incomplete, undecided=eval_id in undecided
        )
        table.add_row(
            Text(escape_control(eval_id)),
            f"{passed}/{num_runs}",
            Text(verdict.verdict.label, style=_VERDICT_STYLES[verdict.verdict]),
            f"{format_score(verdict.low)}–{format_score(verdict.high)}",
            *(format_score(v) for v in values),
        )
    if len(rows) > 1:
        means = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
        table.add_row(
            Text("mean over cases", style="bold"), "", "", "", *(format_score(v) for v in means)
        )
    return table


_VERDICT_STYLES = {
    Verdict.STABLE_PASS: "green",
    Verdict.FLAKY: "yellow",
    Verdict.STABLE_FAIL: "red",
    Verdict.UNDECIDED: "dim",
    # As the INCOMPLETE status is shown.
    Verdict.INCOMPLETE: STATUS_STYLES[EvalStatus.INCOMPLETE],
}


__all__ = [
    "MAX_TURN_COLUMNS",
    "ReasonGrid",
    "ReasonLine",
    "case_table",
    "format_score",
    "judge_votes",
    "metric_average_table",
    "pass_count_table",
    "pass_rate_table",
    "reason_grid",
    "reason_lines",
    "shown_ks",
    "status_text",
    "summary_table",
    "unstable_turns",
    "vote_note",
]
