"""agenteval: score recorded AI-agent traces with deterministic comparers and LLM judges."""

__version__ = "0.1.0"
