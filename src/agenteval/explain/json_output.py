"""The ``--json`` rendering of an explanation: the typed record as one JSON document.

Tested in tests/cli/test_explain.py.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from agenteval.explain.model import Explanation
from agenteval.report.json_keys import camel

SCHEMA_VERSION = 1


def _plain(obj: Any) -> Any:
    """Dataclasses as objects with camelCase keys; the steps' own values left as recorded."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {camel(f.name): _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, list | tuple):
        return [_plain(item) for item in obj]
    return obj


def explanation_json(explanation: Explanation) -> dict[str, Any]:
    """The explanation as JSON-ready data (steps with their kind, turn and values)."""
    data: dict[str, Any] = _plain(explanation)
    data["warnings"] = [str(warning) for warning in explanation.warnings]
    data["schemaVersion"] = SCHEMA_VERSION
    data["exitCode"] = explanation.exit_code()
    return data


def dumps(explanation: Explanation) -> str:
    """The explanation as indented JSON (non-JSON values as text)."""
    return json.dumps(explanation_json(explanation), indent=2, ensure_ascii=True, default=str)
