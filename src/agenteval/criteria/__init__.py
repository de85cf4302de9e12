"""Pure comparers used by the deterministic evaluators (formats.md §3, §5)."""
