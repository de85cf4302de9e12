"""Building blocks of the ``llm_judge_template`` evaluator (llm-evaluators.md §5.8, §6).

- :mod:`.placeholders`: ``{{name}}`` / ``{{name?}}`` parsing and rendering;
- :mod:`.jsonpath`: the restricted JSONPath of ``source.path``;
- :mod:`.bindings`: ``variableBindings`` → values → the rendered judge prompt;
- :mod:`.trace`: reading ``executionTrace`` steps (Go's case-insensitive decoding);
- Go's JSON encoding for template sources is :mod:`agenteval.schema.gojson`.

Its up-front checks live in :mod:`agenteval.evaluators.checks.judge_template`.
"""

from agenteval.evaluators.llm.template.bindings import (
    Binding,
    Source,
    TemplateError,
    build_prompt,
    read_bindings,
    resolve_source,
    resolve_values,
)
from agenteval.evaluators.llm.template.jsonpath import CompiledPath, PathError, compile_path
from agenteval.evaluators.llm.template.placeholders import (
    UnresolvedPlaceholders,
    placeholders,
    render,
)

__all__ = [
    "Binding",
    "CompiledPath",
    "PathError",
    "Source",
    "TemplateError",
    "UnresolvedPlaceholders",
    "build_prompt",
    "compile_path",
    "placeholders",
    "read_bindings",
    "render",
    "resolve_source",
    "resolve_values",
]
