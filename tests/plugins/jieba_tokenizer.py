"""Test plugin: a ``jieba`` ROUGE tokenizer for Chinese text (formats.md §3.11)."""

from __future__ import annotations

import logging

import jieba

from agenteval.plugins import register_tokenizer

jieba.setLogLevel(logging.WARNING)


@register_tokenizer("jieba")
def jieba_tokens(text: str) -> list[str]:
    """Segment with jieba's accurate mode (HMM on), strip each piece, drop empty ones."""
    return [piece.strip() for piece in jieba.cut(text, HMM=True) if piece.strip()]
