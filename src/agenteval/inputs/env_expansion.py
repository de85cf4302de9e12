"""``${ENV}`` expansion of values read from files (judge-model fields), with Go ``os.ExpandEnv`` semantics.

formats.md §3.12 / llm-evaluators.md §3.2: ``$NAME`` and ``${NAME}`` are
replaced (unset means ``""``), single-character shell specials (``$1``,
``$*``, ``$#``, ...) are looked up too, ``${}`` vanishes, an unterminated
``${`` loses just those two characters, and a ``$`` that cannot start a name
stays as it is.  Python's ``os.path.expandvars`` differs on most of these.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agenteval.schema.metric import JudgeModel

# JSON keys of the judgeModel fields that are expanded; nothing else is.
JUDGE_ENV_FIELDS: tuple[str, ...] = ("providerName", "modelName", "variant", "baseURL", "apiKey")

_SPECIALS = frozenset("*#$@!?-0123456789")


def _is_name_char(char: str) -> bool:
    # ASCII only, as Go scans bytes: a non-ASCII letter ends the name.
    return char == "_" or ("0" <= char <= "9") or ("a" <= char <= "z") or ("A" <= char <= "Z")


def _name_after_dollar(text: str, start: int) -> tuple[str, int]:
    """The variable name at ``text[start:]`` and how many characters it spans.

    A span with an empty name means "drop these characters"; an empty span
    means the ``$`` is literal.
    """
    first = text[start]
    if first == "{":
        if start + 2 < len(text) and text[start + 1] in _SPECIALS and text[start + 2] == "}":
            return text[start + 1], 3
        close = text.find("}", start + 1)
        if close == -1:
            return "", 1
        if close == start + 1:
            return "", 2
        return text[start + 1 : close], close - start + 1
    if first in _SPECIALS:
        return first, 1
    end = start
    while end < len(text) and _is_name_char(text[end]):
        end += 1
    return text[start:end], end - start


def expand_env(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Expand ``$NAME`` / ``${NAME}`` in ``text`` exactly as Go's ``os.ExpandEnv`` does."""
    return expand_env_spans(text, environ)[0]


def expand_env_spans(
    text: str, environ: Mapping[str, str] | None = None
) -> tuple[str, list[tuple[int, int]]]:
    """:func:`expand_env`, and where in the result each non-empty substituted value lies.

    The spans (start, end) tell which parts of a base URL came from the environment
    (``judge.url_secrets`` keeps a key put into its path or query out of every file).
    """
    env = os.environ if environ is None else environ
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    size = 0
    copied = 0
    index = 0
    while index < len(text):
        if text[index] == "$" and index + 1 < len(text):
            out.append(text[copied:index])
            size += index - copied
            name, span = _name_after_dollar(text, index + 1)
            if name:
                value = env.get(name, "")
                out.append(value)
                if value:
                    spans.append((size, size + len(value)))
                size += len(value)
            elif span == 0:
                out.append("$")
                size += 1
            index += span
            copied = index + 1
        index += 1
    out.append(text[copied:])
    return "".join(out), spans


def expand_judge_model(model: JudgeModel, environ: Mapping[str, str] | None = None) -> JudgeModel:
    """A copy of ``model`` with its five expandable fields expanded (llm-evaluators.md §3.2)."""
    return model.model_copy(
        update={
            "provider_name": expand_env(model.provider_name, environ),
            "model_name": expand_env(model.model_name, environ),
            "variant": expand_env(model.variant, environ),
            "base_url": expand_env(model.base_url, environ),
            "api_key": expand_env(model.api_key, environ),
        }
    )
