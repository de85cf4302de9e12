#!/usr/bin/env python3
"""A cmd: agent for the fault tests: the user text says which fault to commit."""

import json
import os
import sys
import time

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "user_turn":
        continue
    text = msg["message"]["content"]
    if text == "crash":
        print("boom: the disk is on fire\x1b[31m", file=sys.stderr, flush=True)
        sys.exit(3)
    if text == "hang":
        time.sleep(60)
    if text.startswith("slow "):
        time.sleep(1.0)  # long enough that a Ctrl-C lands mid-run even on a loaded box
    if text == "garbage":
        print("this is not json", flush=True)
        continue
    if text == "fail":
        print(json.dumps({"type": "error", "message": "model quota exceeded"}), flush=True)
        continue
    print(json.dumps({"type": "final", "content": f"echo: {text}"}), flush=True)
    if os.environ.get("FAULT_AGENT_LOG"):
        with open(os.environ["FAULT_AGENT_LOG"], "a") as log:
            log.write(text + "\n")
