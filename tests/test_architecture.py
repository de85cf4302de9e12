"""ARCHITECTURE.md's layer list is true: checked against the import graph of the source.

Every package and loose module of src/agenteval appears in exactly one row; a row imports
only rows below it (issue 23 item 8). A failure names the imports that break the list.
"""

from __future__ import annotations

import re

from import_graph import LAUNCHER, ROOT, packages, top_level_modules, unit_edges

DOC = ROOT / "ARCHITECTURE.md"
# A row: names ("run/", "plugins.py", "cli"), comma-separated, then two spaces and what
# they hold; a line that starts with spaces continues the row above.
ROW = re.compile(r"^((?:[a-z_]+(?:/|\.py)?)(?:, [a-z_]+(?:/|\.py)?)*)(?:\s{2,}.*)?$")


def layer_rows(text: str) -> list[list[str]]:
    """The rows of the fenced block under "### Layers", top row first, as unit names."""
    section = text.split("### Layers", 1)[1]
    block = section.split("```", 2)[1]
    rows = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        match = ROW.match(line)
        assert match is not None, f"not a layer row: {line!r}"
        names = [re.sub(r"(/|\.py)$", "", n) for n in match.group(1).split(", ")]
        rows.append([LAUNCHER.get(n, n) for n in names])
    return rows


def test_every_package_and_loose_module_has_its_row() -> None:
    rows = layer_rows(DOC.read_text(encoding="utf-8"))
    listed = [name for row in rows for name in row]
    # __init__.py is the package itself (it imports nothing at run time).
    units = set(packages()) | {LAUNCHER.get(m, m) for m in top_level_modules()} - {"__init__"}
    assert sorted(units - set(listed)) == []
    assert sorted(set(listed) - units) == []
    assert sorted(n for n in set(listed) if listed.count(n) > 1 and n != "cli") == []


def test_rows_import_only_rows_below() -> None:
    rows = layer_rows(DOC.read_text(encoding="utf-8"))
    row_of = {name: index for index, row in enumerate(rows) for name in row}
    upward = [
        f"{a} (row {row_of[a] + 1}) imports {b} (row {row_of[b] + 1}): {found[0]}"
        for (a, b), found in sorted(unit_edges().items())
        if row_of[a] >= row_of[b]
    ]
    assert upward == []


def test_the_row_parser_reads_what_the_doc_shows() -> None:
    text = (
        "### Layers\n\n```\nrun/, cli.py  the runner\n               more\nschema/  models\n```\n"
    )
    assert layer_rows(text) == [["run", "cli"], ["schema"]]
