"""The defaults a user can change, each defined once; the CLI, ``api.Options`` and the judge read them.

Only constants live here (no imports), so any module may read them without
pulling in the judge's HTTP stack.
"""

from __future__ import annotations

# Judge calls in flight at once, across all cases, metrics and samples (--concurrency).
JUDGE_CONCURRENCY = 16
# Retries of one judge call after connection errors, timeouts, 408/409/429/5xx (--judge-retries).
JUDGE_RETRIES = 4
# Seconds before one judge call attempt times out (--judge-timeout).
JUDGE_TIMEOUT_SECONDS = 60.0
# Exponential backoff between retries: the first wait, doubling up to the cap (OpenAI SDKs).
JUDGE_BACKOFF_BASE_SECONDS = 0.5
JUDGE_BACKOFF_MAX_SECONDS = 8.0
# A server's Retry-After hint is followed up to this many seconds.
JUDGE_RETRY_AFTER_MAX_SECONDS = 60.0
# The largest judge reply body read, in bytes (--judge-max-reply-bytes); a bigger one is a
# judge error for that turn.
JUDGE_MAX_REPLY_BYTES = 8 * 1024 * 1024
# The SQLite cache of judge replies (--cache), and the variable that moves it.
JUDGE_CACHE_PATH = ".agenteval/cache.sqlite"
JUDGE_CACHE_ENV = "AGENTEVAL_CACHE"
# Which span attribute an OTLP --traces session is matched to a case's evalId by (--traces-match).
TRACES_MATCH = "session"
# What a driven agent may send (--agent): the longest reply line (cmd:) or event (agui:)
# (--agent-max-event-bytes), everything it sends during one turn (--agent-max-turn-bytes),
# and the intermediate responses one turn keeps (the rest are counted, "… N more").
AGENT_MAX_EVENT_BYTES = 16 * 1024 * 1024
AGENT_MAX_TURN_BYTES = 64 * 1024 * 1024
AGENT_MAX_MESSAGES = 1000
