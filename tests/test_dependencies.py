"""pyproject.toml declares exactly what the code imports.

Every module ``src/`` imports comes from a runtime dependency, and every module ``tests/`` and
``bench/`` import comes from a runtime or ``test`` dependency; every declared dependency is
imported where it is declared for, except the few in ``USED_OTHERWISE``. Modules map to their
distributions through ``importlib.metadata.packages_distributions()`` (a namespace package such
as ``google`` or ``opentelemetry`` is narrowed by the files each distribution installs). A
dependency that is only installed because another one needs it does not count as declared.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# Declared, needed, and never imported by name: each says what uses it instead.
USED_OTHERWISE = {
    "test": {
        "ruff": "a command-line tool (make lint)",
        "mypy": "a command-line tool (make typecheck)",
        "types-protobuf": "type stubs mypy reads for importers/otlp_file.py",
        "pytest-xdist": "a pytest plugin (-n auto, make test)",
        "mkdocs": "a command-line tool (make docs; tests/test_manual.py runs it)",
    },
}


def normalized(name: str) -> str:
    """A distribution name in PEP 503 form (``Google_RE2`` -> ``google-re2``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(requirements: Iterable[str]) -> set[str]:
    """The distribution names of requirement strings (extras, versions and markers dropped)."""
    names = set()
    for requirement in requirements:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert match, requirement
        names.add(normalized(match.group(1)))
    return names


RUNTIME = declared(PYPROJECT["project"]["dependencies"])
TEST = declared(PYPROJECT["project"]["optional-dependencies"]["test"])
# The pytest plugin is loaded by pytest only: it may import the `pytest` extra.
PYTEST_PLUGIN = "src/agenteval/integrations/pytest_plugin.py"
PYTEST_EXTRA = declared(PYPROJECT["project"]["optional-dependencies"]["pytest"])


def imported_modules(folders: Iterable[Path]) -> dict[str, set[str]]:
    """Absolute imports of every Python file under ``folders``: dotted module -> importing files."""
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    found.setdefault(module, set()).add(path.relative_to(ROOT).as_posix())
    return found


def local_roots() -> list[Path]:
    """Where the repository's own modules are found: src, the root, bench and pytest's pythonpath."""
    pythonpath = PYPROJECT["tool"]["pytest"]["ini_options"]["pythonpath"]
    return [ROOT / "src", ROOT, ROOT / "bench", *(ROOT / entry for entry in pythonpath)]


def is_local(top: str) -> bool:
    """Whether a top-level module name is one of the repository's own modules."""
    return any((root / f"{top}.py").is_file() or (root / top).is_dir() for root in local_roots())


@cache
def top_level_providers() -> dict[str, list[str]]:
    """Top-level module name -> the distributions installing it (one scan of the environment)."""
    return importlib.metadata.packages_distributions()


@cache
def installed_files() -> dict[str, list[str]]:
    """The files each installed distribution put on the path, by normalized name."""
    return {
        normalized(dist.metadata["Name"]): [str(f) for f in dist.files or []]
        for dist in importlib.metadata.distributions()
    }


def distribution_of(module: str) -> str | None:
    """The one installed distribution providing a dotted module, or None if none does."""
    parts = module.split(".")
    candidates = sorted({normalized(d) for d in top_level_providers().get(parts[0], [])})
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    for depth in range(len(parts), 0, -1):
        prefix = "/".join(parts[:depth])
        providing = [
            name
            for name in candidates
            if any(
                f.startswith(prefix + "/") or f.startswith(prefix + ".")
                for f in installed_files()[name]
            )
        ]
        if providing:
            assert len(providing) == 1, (module, providing)
            return providing[0]
    return None


def third_party(imports: dict[str, set[str]]) -> dict[str, set[str]]:
    """Distribution -> importing files, for the imports that are neither stdlib nor local."""
    used: dict[str, set[str]] = {}
    for module, files in imports.items():
        top = module.split(".")[0]
        if top in sys.stdlib_module_names or is_local(top):
            continue
        dist = distribution_of(module) or f"<no installed distribution provides {module}>"
        used.setdefault(dist, set()).update(files)
    return used


# Computed by the first test that asks, not at import: parsing every file took a third of
# the suite's collection (each xdist worker collects, so twice; ~5 s on a slow day).
@cache
def uses_in_src() -> dict[str, set[str]]:
    """Distribution -> files of ``src/`` importing it."""
    return third_party(imported_modules([ROOT / "src"]))


@cache
def uses_in_tests() -> dict[str, set[str]]:
    """Distribution -> files of ``tests/`` and ``bench/`` importing it."""
    return third_party(imported_modules([ROOT / "tests", ROOT / "bench"]))


def test_src_imports_only_runtime_dependencies() -> None:
    undeclared = {
        dist: sorted(files)
        for dist, files in uses_in_src().items()
        if dist not in RUNTIME
        and not (dist in PYTEST_EXTRA and all(f.endswith(PYTEST_PLUGIN) for f in files))
    }
    assert undeclared == {}


def test_tests_and_bench_import_only_declared_dependencies() -> None:
    undeclared = {
        dist: sorted(files) for dist, files in uses_in_tests().items() if dist not in RUNTIME | TEST
    }
    assert undeclared == {}


def test_every_runtime_dependency_is_imported_by_src() -> None:
    assert sorted(RUNTIME - uses_in_src().keys() - USED_OTHERWISE.get("runtime", {}).keys()) == []


def test_every_test_dependency_is_imported_by_tests_or_bench() -> None:
    assert sorted(TEST - uses_in_tests().keys() - USED_OTHERWISE["test"].keys()) == []


def test_no_dependency_is_declared_twice() -> None:
    assert sorted(RUNTIME & TEST) == []


def test_what_is_used_otherwise_is_declared_and_not_imported() -> None:
    # An allow-list entry that became an import (or left pyproject) must leave the list.
    for extra, entries in USED_OTHERWISE.items():
        names = RUNTIME if extra == "runtime" else TEST
        uses = uses_in_src() if extra == "runtime" else uses_in_tests()
        assert sorted(set(entries) - names) == []
        assert sorted(set(entries) & uses.keys()) == []


def test_a_namespace_package_maps_to_the_distribution_that_installs_it() -> None:
    assert distribution_of("google.protobuf.message") == "protobuf"
    assert distribution_of("opentelemetry.proto.trace.v1.trace_pb2") == "opentelemetry-proto"
    assert distribution_of("opentelemetry.sdk.trace") == "opentelemetry-sdk"
    assert distribution_of("re2") == "google-re2"
    assert distribution_of("no_such_module_anywhere") is None
