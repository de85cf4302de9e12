"""The project file: found upwards, agenteval.toml before pyproject.toml, unreadable files located."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.config.project import find_project_file, read_project_file
from agenteval.errors import ConfigError


def test_found_from_a_subdirectory_and_a_bare_pyproject_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.agenteval]\nmetrics = "m/"\n')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')
    deep = inner / "a" / "b"
    deep.mkdir(parents=True)
    found = find_project_file(deep)
    assert found is not None
    assert found.path == tmp_path / "pyproject.toml"
    assert found.directory == tmp_path
    assert dict(found.table) == {"metrics": "m/"}
    assert found.origin("metrics") == f"{tmp_path / 'pyproject.toml'}: tool.agenteval.metrics"


def test_agenteval_toml_wins_in_its_directory_top_level_or_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.agenteval]\nmetrics = "py/"\n')
    (tmp_path / "agenteval.toml").write_text('metrics = "top/"\n')
    found = find_project_file(tmp_path)
    assert found is not None and found.path.name == "agenteval.toml"
    assert found.table["metrics"] == "top/" and found.where("metrics") == "metrics"
    (tmp_path / "agenteval.toml").write_text('[tool.agenteval]\nmetrics = "tab/"\n')
    found = find_project_file(tmp_path)
    assert found is not None and found.table["metrics"] == "tab/"
    assert found.where("metrics") == "tool.agenteval.metrics"


def test_a_pyproject_table_beside_agenteval_toml_is_a_warning_naming_both(
    tmp_path: Path,
) -> None:
    # agenteval.toml wins, and the [tool.agenteval] beside it was ignored without a word.
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.agenteval]\nmetrics = "py/"\n')
    (tmp_path / "agenteval.toml").write_text('metrics = "top/"\n')
    found = find_project_file(tmp_path / "sub")
    assert found is not None and found.table["metrics"] == "top/"
    assert [str(w) for w in found.warnings()] == [
        f"{pyproject}: tool.agenteval: not read: {tmp_path / 'agenteval.toml'} beside it "
        "gives the settings (move the settings into agenteval.toml, or delete one of the two)"
    ]
    pyproject.write_text('[project]\nname = "demo"\n')  # no settings there: nothing to say
    found = find_project_file(tmp_path)
    assert found is not None and found.warnings() == []


def test_no_project_file(tmp_path: Path) -> None:
    assert find_project_file(tmp_path) is None


def test_bad_toml_and_a_table_that_is_not_one_are_located(tmp_path: Path) -> None:
    bad = tmp_path / "pyproject.toml"
    bad.write_text("[tool.agenteval\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: cannot read the project settings"):
        read_project_file(bad)
    bad.write_text('[tool]\nagenteval = "x"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml: tool.agenteval: must be a table"):
        read_project_file(bad)


def test_top_level_keys_beside_the_table_in_agenteval_toml_are_errors(tmp_path: Path) -> None:
    """``concurrency = 7`` above ``[tool.agenteval]`` was silently unused (16 was run)."""
    path = tmp_path / "agenteval.toml"
    path.write_text('concurrency = 7\n[tool.agenteval]\nmetrics = "m/"\n')
    with pytest.raises(ConfigError) as caught:
        read_project_file(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: concurrency: a top-level key beside [tool.agenteval], which the settings "
        "are read from (move it into [tool.agenteval], or drop the table header)"
    ]
    # A pyproject.toml's other top-level tables are other tools' business.
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n[tool.agenteval]\nmetrics = "m/"\n')
    found = read_project_file(pyproject)
    assert found is not None and dict(found.table) == {"metrics": "m/"}


def test_a_byte_order_mark_is_named(tmp_path: Path) -> None:
    """tomllib's words were "Invalid statement (at line 1, column 1)"."""
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"\xef\xbb\xbf[tool.agenteval]\nconcurrency = 2\n")
    with pytest.raises(ConfigError) as caught:
        read_project_file(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: starts with a byte order mark (U+FEFF), which TOML readers refuse "
        "(save it as UTF-8 without a BOM)"
    ]


def test_a_byte_that_is_no_utf8_is_located(tmp_path: Path) -> None:
    """Was the codec's "cannot read the project settings: 'utf-8' codec can't decode byte 0xff
    in position 29: invalid start byte"."""
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b'[tool.agenteval]\nmetrics = "m\xff/"\n')
    with pytest.raises(ConfigError) as caught:
        read_project_file(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: not UTF-8 text: byte 0xff at line 2 column 13 (invalid start byte) "
        "(save it as UTF-8)"
    ]
    path.write_bytes("[tool.agenteval]\n".encode("utf-16"))
    with pytest.raises(ConfigError) as caught:
        read_project_file(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8 "
        "(save it as UTF-8)"
    ]
