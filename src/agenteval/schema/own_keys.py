"""Keys agenteval itself defines beside trpc-agent-go's, with their JSON Schema.

The JSON Schemas (:mod:`.json_schema`) make them fields; the unknown-key check
(``inputs/unknown_keys.py``) accepts them.  They live apart from the schemas so that
a run, which checks keys but never prints a schema, does not build the models of
the files it never reads (prices, labels, the ``--json`` run document): ~41 M
instructions of a ~1.6 G start-up (valgrind, ``import agenteval.schema.json_schema``
on top of the eval set, metric and result models).

Tested in tests/schema/test_own_keys.py.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agenteval.schema.evalset import EvalSet
from agenteval.schema.metric import Criterion

AGENTEVAL_KEYS: dict[type[BaseModel], dict[str, dict[str, Any]]] = {
    # The final_response_gate evaluator's settings (checked by that evaluator).
    Criterion: {"gate": {"type": "object"}, "positionCheck": {"type": "boolean"}},
    # The line that gives editors this schema.
    EvalSet: {"$schema": {"type": "string"}},
}

__all__ = ["AGENTEVAL_KEYS"]
