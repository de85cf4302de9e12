"""Hostile inputs end to end: located errors or escaped text, never a crash, a hang or a forged line.

Each run is a subprocess under a timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from cli_process import run_cli

FORGED = "x\n::error file=README.md,line=1::FORGED ERROR \x1b[2J\x1b]0;title\x07"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120, env=env, errors="surrogateescape")


def turn(answer: str) -> dict[str, object]:
    return {"userContent": {"role": "user", "content": "q"},
            "finalResponse": {"role": "assistant", "content": answer}}  # fmt: skip


def suite(tmp_path: Path, cases: list[dict[str, object]], name: str = "s") -> Path:
    evalset = tmp_path / f"{name}.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": name, "evalCases": cases}))
    metric = {"metricName": "m\x1b[31m", "evaluatorName": "final_response_avg_score",
              "threshold": 1, "criterion": {"finalResponse": {"text": {}}}}  # fmt: skip
    (tmp_path / f"{name}.metrics.json").write_text(json.dumps([metric]))
    return evalset


def test_forged_eval_id_and_ansi_reasons_are_escaped_everywhere(tmp_path: Path) -> None:
    case = {"evalId": FORGED, "evalMode": "trace", "actualConversation": [turn("a\x1b[31mred")],
            "conversation": [turn("b")], "sessionInput": {}}  # fmt: skip
    evalset = suite(tmp_path, [case])
    md, xml, doc = tmp_path / "r.md", tmp_path / "r.xml", tmp_path / "r.json"
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    done = cli("run", "--evalset", str(evalset), "--markdown", str(md), "--junit", str(xml),
               "--json", str(doc), env=env)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    for text in (done.stdout, done.stderr, md.read_text()):
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text
        assert not [line for line in text.splitlines() if line.startswith("::error file=README")]
    assert "x\\n::error file=README.md" in done.stdout
    assert '"a\\u001b[31mred"' in done.stdout or "a\\x1b[31mred" in done.stdout
    # The JSON document keeps the id exactly (its own escaping), the XML parses.
    data = json.loads(doc.read_text())
    assert data["evalSetResults"][0]["evalCaseResults"][0]["evalId"] == FORGED
    assert "\x1b" not in xml.read_text()


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_bidi_controls_are_escaped_everywhere(tmp_path: Path) -> None:
    eval_id = "refund\u202edesab"  # shows as "refundbased" reversed: "refund" + "pased"
    case = {"evalId": eval_id, "evalMode": "trace", "sessionInput": {},
            "actualConversation": [turn("sure " + BIDI + " \x1b[31m")],
            "conversation": [turn("no")]}  # fmt: skip
    evalset = suite(tmp_path, [case])
    md, xml, doc = tmp_path / "r.md", tmp_path / "r.xml", tmp_path / "r.json"
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    done = cli("run", "--evalset", str(evalset), "--markdown", str(md), "--junit", str(xml),
               "--json", str(doc), env=env)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert annotations and "refund\\u202edesab" in annotations[0]
    assert "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066" in annotations[0]
    for text in (done.stdout, done.stderr, md.read_text(), xml.read_text()):
        assert not any(char in text for char in BIDI), text
        assert "\x1b" not in text
    for text in (done.stdout, md.read_text(), xml.read_text()):
        assert "refund\\u202edesab" in text
        assert "\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c" in text
    # The JSON keeps the text exactly; diff and show escape it too.
    data = json.loads(doc.read_text())
    assert data["evalSetResults"][0]["evalCaseResults"][0]["evalId"] == eval_id
    for result in data["evalSetResults"][0]["evalCaseResults"]:
        for metric in result["overallEvalMetricResults"]:
            metric.update(score=1, evalStatus="passed")
        result.update(score=1, finalEvalStatus="passed")
    base = tmp_path / "base.json"
    base.write_text(json.dumps(data))
    for shown in (cli("show", str(doc)), cli("diff", str(base), str(doc))):
        assert not any(char in shown.stdout for char in BIDI), shown.stdout
        assert "refund\\u202edesab" in shown.stdout


def test_lone_surrogate_in_a_trace_answer(tmp_path: Path) -> None:
    case = {"evalId": "c", "conversation": [turn("x")], "sessionInput": {}}
    evalset = suite(tmp_path, [case])
    traces = tmp_path / "t.jsonl"
    record = '{"evalId": "c", "actualConversation": [{"userContent": {"role": "user", '
    record += '"content": "q"}, "finalResponse": {"role": "assistant", "content": "a\\ud800b"}}]}'
    traces.write_text(record + "\n")
    out, doc = tmp_path / "out", tmp_path / "r.json"
    done = cli("run", "--evalset", str(evalset), "--traces", str(traces), "--output", str(out),
               "--json", str(doc), "--markdown", str(tmp_path / "r.md"))  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    # Read as Go reads a lone surrogate escape: U+FFFD (inputs/go_escapes.py), printed as it is.
    assert "a\ufffdb" in done.stdout
    (result,) = out.glob("*.evalset_result.json")
    # Go decodes the escape to the rune U+FFFD and writes that rune as it is (valid UTF-8).
    assert "a\ufffdb" in result.read_text(encoding="utf-8")
    json.loads(doc.read_text())


def test_huge_number_and_deep_nesting_are_located_errors(tmp_path: Path) -> None:
    head = '{"evalSetId": "s", "evalCases": [{"evalId": "c", "sessionInput": {"state": {"n": '
    for name, value in (("big", "9" * 100_000), ("deep", "[" * 100_000 + "]" * 100_000)):
        path = tmp_path / f"{name}.evalset.json"
        path.write_text(head + value + "}}}]}")
        done = cli("validate", "--evalset", str(path))
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        assert done.stderr.startswith(f"error: {path}:")
    traces = tmp_path / "t.jsonl"
    traces.write_text(
        '{"evalId": "c", "actualConversation": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    )
    done = cli("validate", "--evalset", str(tmp_path / "big.evalset.json"), "--traces", str(traces))
    assert done.returncode == 2
    assert f"error: {traces}: line 1: nesting too deep to read" in done.stderr


def test_digit_run_inside_a_string_is_text(tmp_path: Path) -> None:
    answer = "The number is: " + "7" * 5000
    case = {"evalId": "c", "evalMode": "trace", "actualConversation": [turn(answer)],
            "conversation": [turn(answer)], "sessionInput": {}}  # fmt: skip
    out = tmp_path / "out"
    done = cli("run", "--evalset", str(suite(tmp_path, [case])), "--output", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    (result,) = out.glob("*.json")
    shown = cli("show", str(result))
    assert shown.returncode == 0, shown.stdout + shown.stderr


def test_corrupt_cache_is_named_before_any_judge_call(tmp_path: Path, judge_server: object) -> None:
    from judge_server import JudgeServer
    from tests.cli.test_interrupt_resume import write_suite

    assert isinstance(judge_server, JudgeServer)
    evalset, metrics = write_suite(tmp_path, judge_server)
    cache = tmp_path / "bad.sqlite"
    cache.write_bytes(b"not a database " * 200)
    done = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), "--cache", str(cache))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {cache}: not a readable cache (delete it or run with --no-cache)" in (
        done.stderr
    )
    assert judge_server.count == 0


def test_plugin_calling_sys_exit_is_a_located_error(tmp_path: Path) -> None:
    plugin = tmp_path / "quitter.py"
    plugin.write_text("import sys\nsys.exit(0)\n")
    evalset = suite(tmp_path, [])
    done = cli("run", "--evalset", str(evalset), "--plugin", str(plugin))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--plugin {plugin}: failed to load: it called sys.exit(0)" in done.stderr


def test_diff_tolerance_inf_is_a_usage_error(tmp_path: Path) -> None:
    case = {"evalId": "c", "evalMode": "trace", "actualConversation": [turn("a")],
            "conversation": [turn("a")], "sessionInput": {}}  # fmt: skip
    out = tmp_path / "out"
    assert (
        cli("run", "--evalset", str(suite(tmp_path, [case])), "--output", str(out)).returncode == 0
    )
    (result,) = out.glob("*.json")
    done = cli("diff", str(result), str(result), "--tolerance", "inf")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "error: --tolerance: must be a finite number, got inf\n" in done.stderr
    page = tmp_path / "r.html"
    done = cli(
        "report", str(result), "--base", str(result), "--html", str(page), "--tolerance", "inf"
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "error: --tolerance: must be a finite number, got inf\n" in done.stderr
    assert not page.exists()


def test_a_malformed_turn_list_is_a_located_error_not_an_internal_one(tmp_path: Path) -> None:
    # Telling the file's kind walked these values before the checks could locate them.
    case = {"evalId": "c", "evalMode": "trace", "actualConversation": [turn("a")],
            "conversation": 7, "sessionInput": {}}  # fmt: skip
    done = cli("run", "--evalset", str(suite(tmp_path, [case])))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "s.evalset.json: evalCases[0].conversation: expected an array, got a number" in (
        done.stderr
    )
    result = tmp_path / "r.evalset_result.json"
    result.write_text(json.dumps({"evalSetResultId": "r", "evalCaseResults": [
        {"evalId": "c", "evalMetricResultPerInvocation": 5}]}))  # fmt: skip
    done = cli("show", str(result))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "evalCaseResults[0].evalMetricResultPerInvocation: expected an array" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_paths_of_written_files_are_escaped_and_never_read_as_markup(tmp_path: Path) -> None:
    case = {"evalId": "c", "evalMode": "trace", "actualConversation": [turn("a")],
            "conversation": [turn("a")], "sessionInput": {}}  # fmt: skip
    evalset = suite(tmp_path, [case])
    doc = tmp_path / "d\x1b[2J[bold]x.json"
    md = tmp_path / "m\x1b]0;title\x07.md"
    done = cli("run", "--evalset", str(evalset), "--json", str(doc), "--markdown", str(md))
    assert done.returncode == 0, done.stdout + done.stderr
    assert doc.is_file() and md.is_file()
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert f"wrote {tmp_path}/d\\x1b[2J[bold]x.json" in done.stdout
    assert f"wrote {tmp_path}/m\\x1b]0;title\\x07.md" in done.stdout


def test_a_misspelt_key_in_a_traces_record_stops_the_run(tmp_path: Path) -> None:
    case = {"evalId": "c", "conversation": [turn("a")], "sessionInput": {}}
    evalset = suite(tmp_path, [case])
    record = {"evalId": "c", "actualConversation": [{**turn("a"), "tools": [{"nmae": "x"}]}]}
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps(record) + "\n")
    done = cli("run", "--evalset", str(evalset), "--traces", str(traces))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "t.jsonl: line 1.actualConversation[0].tools[0].nmae: 'nmae' is not a field" in (
        done.stderr
    )


def test_a_traces_file_given_as_another_input_is_named(tmp_path: Path) -> None:
    traces = tmp_path / "t.json"
    traces.write_text(json.dumps([{"evalId": "c", "actualConversation": [turn("a")]}]))
    looks = "not {} (looks like a traces file) (pass it with --traces)"
    evalset = suite(tmp_path, [{"evalId": "c", "conversation": [turn("a")]}])
    for args, noun in [
        (("run", "--evalset", str(traces)), "an eval set"),
        (("run", "--evalset", str(evalset), "--metrics", str(traces)), "a metric file"),
        (("show", str(traces)), "an agenteval or trpc-agent-go result"),
    ]:
        done = cli(*args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"t.json: {looks.format(noun)}" in done.stderr
