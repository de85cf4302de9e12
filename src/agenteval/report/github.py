"""GitHub Actions annotations: one workflow-command line per case that did not pass.

A failed case gives ``::error title=…::message``; a not-evaluated case gives
``::warning`` instead, since it does not fail the run on its own (the exit
code follows the overall status) but usually means a missing trace or
metric.  A run left unfinished (interrupted, a judge call for no case failed) gives
one ``::error title=agenteval: run incomplete::`` line saying why.  Each warning of the run (collapsed as on the console) is a
``::warning file=…,title=agenteval warning::message`` line too.  Escaping
follows GitHub's workflow-command rules (the
``@actions/core`` toolkit): in the message ``%``, CR and LF become ``%25``,
``%0D`` and ``%0A``; in properties ``:`` and ``,`` also become ``%3A`` and
``%2C``.  The CLI prints these lines only when ``GITHUB_ACTIONS=true``.
"""

# No "from __future__ import annotations": this module's main function has that name.
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from agenteval.errors import Problem
from agenteval.inputs.safe_text import escape_control
from agenteval.report.markdown import append_step_summary_reports
from agenteval.report.outcomes import DEFAULT_REASON_CAP, OutcomeText, cap
from agenteval.report.run_notes import NO_NOTES, RunNotes
from agenteval.report.set_tally import SetReport, set_report
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus

ACTIONS_ENV = "GITHUB_ACTIONS"

_DATA_ESCAPES = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY_ESCAPES = (*_DATA_ESCAPES, (":", "%3A"), (",", "%2C"))


def escape_data(text: str) -> str:
    """Escape the message part of a workflow command."""
    # Terminal escapes and lone surrogates first; CR and LF are left to GitHub's own escapes.
    text = escape_control(text, keep="\r\n")
    # "%" goes first so the escapes added after it are not escaped again.
    for char, escape in _DATA_ESCAPES:
        text = text.replace(char, escape)
    return text


def escape_property(text: str) -> str:
    """Escape a property value (``title=``, ``file=``) of a workflow command."""
    text = escape_control(text, keep="\r\n")
    for char, escape in _PROPERTY_ESCAPES:
        text = text.replace(char, escape)
    return text


def workflow_command(command: str, properties: Mapping[str, str], message: str) -> str:
    """``::command key=value,…::message`` with every part escaped."""
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    head = f"{command} {props}" if props else command
    return f"::{head}::{escape_data(message)}"


def is_github_actions(environ: Mapping[str, str]) -> bool:
    """True inside a GitHub Actions job (``GITHUB_ACTIONS=true``)."""
    return environ.get(ACTIONS_ENV, "") == "true"


def _message(outcome: OutcomeText, reason_cap: int | None) -> str:
    details = [s.text(reason_cap) for s in outcome.shortfalls()]
    details += [f"error: {cap(e, reason_cap)}" for e in outcome.errors()]
    lines = details or [outcome.headline(reason_cap)]
    if outcome.multi_run:
        lines.insert(0, f"{outcome.passed_runs_text()}; metric averages decide")
    return "\n".join(lines)


def annotations(
    results: Sequence[EvalSetResult],
    *,
    files: Mapping[str, str] | None = None,
    reason_cap: int | None = DEFAULT_REASON_CAP,
) -> list[str]:
    """Annotation lines for every case that did not pass, in report order.

    ``files`` maps an evalSetId to its eval set file so GitHub can attach the
    annotation to that file.
    """
    reports = [set_report(result) for result in results]
    return report_annotations(reports, files=files, reason_cap=reason_cap)


def report_annotations(
    reports: Sequence[SetReport],
    *,
    files: Mapping[str, str] | None = None,
    reason_cap: int | None = DEFAULT_REASON_CAP,
    sources: Sequence[str] = (),
) -> list[str]:
    """:func:`annotations` of tallied eval sets.

    ``sources``: the eval set file of each report, by position (before ``files``): two
    files may hold eval sets of one evalSetId, and each annotation names its own file.
    """
    lines: list[str] = []
    for index, report in enumerate(reports):
        file = sources[index] if index < len(sources) else (files or {}).get(report.eval_set_id)
        for outcome in report.not_passed():
            lines.append(_annotation(outcome, file, reason_cap))
    return lines


def _annotation(outcome: OutcomeText, file: str | None, reason_cap: int | None) -> str:
    failed = outcome.status is EvalStatus.FAILED
    incomplete = outcome.status is EvalStatus.INCOMPLETE
    verdict = "failed" if failed else "incomplete" if incomplete else "not evaluated"
    # Title before file: the order @actions/core writes them in.
    properties = {"title": f"agenteval: {outcome.eval_set_id}/{outcome.eval_id} {verdict}"}
    if file:
        properties["file"] = file
    # Incomplete is never green: an error, like a failure (exit code 3).
    command = "error" if failed or incomplete else "warning"
    return workflow_command(command, properties, _message(outcome, reason_cap))


def warning_annotations(warnings: Sequence[Problem]) -> list[str]:
    """One ``::warning`` line per warning as shown (collapsed), attached to its file."""
    lines: list[str] = []
    for problem in warnings:
        properties = {"title": "agenteval warning"}
        if problem.file and not problem.file.startswith("-"):  # not an option like --traces
            properties["file"] = problem.file
        message = f"{problem.path}: {problem.message}" if problem.path else problem.message
        if problem.hint:
            message += f" ({problem.hint})"
        lines.append(workflow_command("warning", properties, message))
    return lines


def write_ci_outputs(
    reports: Sequence[SetReport],
    environ: Mapping[str, str],
    *,
    sources: Sequence[Path | str] = (),
    elapsed: float | None = None,
    emit: Callable[[str], None] = print,
    notes: RunNotes = NO_NOTES,
) -> None:
    """GitHub Actions: the step summary; ``emit`` an annotation per case not passed and warning.

    ``sources`` are the eval set files in the order of ``reports`` (annotations attach to
    them); ``notes`` the run's warnings (as shown) and why it is unfinished.
    """
    append_step_summary_reports(reports, environ, elapsed=elapsed, notes=notes)
    if is_github_actions(environ):
        for line in report_annotations(reports, sources=[str(path) for path in sources]):
            emit(line)
        if notes.unfinished:
            # Its finished cases may all pass: the run is still INCOMPLETE (exit 3); say why.
            why = "the run is incomplete: " + "; ".join(notes.unfinished)
            emit(workflow_command("error", {"title": "agenteval: run incomplete"}, why))
        for line in warning_annotations(notes.warnings):
            emit(line)


__all__ = [
    "ACTIONS_ENV",
    "annotations",
    "escape_data",
    "escape_property",
    "is_github_actions",
    "report_annotations",
    "warning_annotations",
    "workflow_command",
    "write_ci_outputs",
]
