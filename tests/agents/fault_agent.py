#!/usr/bin/env python3
"""A cmd: agent for the fault tests: the user text says which fault to commit.

``crash``, ``hang``, ``slow N``, ``garbage`` and ``fail`` break the turn; ``double`` and
``double late`` write a second ``final`` after the first (at once, or 0.3 s later);
``chatty N`` sends N intermediate messages first; ``call TOOL`` calls TOOL (waiting
for agenteval's result when it is mocked); ``cheat TOOL`` does so too and then sends its
own result for the call anyway; ``spend N M`` reports a model call of N input and M output
tokens of "test:model" on its final line; ``waste N M`` reports such a call on a message
line and then fails the turn with an error line; ``nan`` calls a tool with NaN in its arguments; ``child`` starts a process that outlives the
agent (its pid goes to $FAULT_AGENT_CHILDREN), ``detached`` one that also leaves the
agent's process group and session (setsid); ``leak`` writes $FAULT_AGENT_API_KEY to
stderr and exits 22, ``leak error`` sends it in an error line.  With $FAULT_AGENT_LOG every answered
user text is appended to that file.
"""

import json
import os
import subprocess
import sys
import time


def send(**message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "user_turn":
        continue
    text = msg["message"]["content"]
    if text == "crash":
        print("boom: the disk is on fire\x1b[31m", file=sys.stderr, flush=True)
        sys.exit(3)
    if text == "leak":  # a wrapper under set -x: its stderr shows the key it sends
        key = os.environ["FAULT_AGENT_API_KEY"]
        print(f"+ curl -H 'Authorization: Bearer {key}' https://llm.test/v1", file=sys.stderr)
        sys.exit(22)
    if text == "leak error":
        send(type="error", message=f"upstream refused key {os.environ['FAULT_AGENT_API_KEY']}")
        continue
    if text == "hang":
        time.sleep(60)
    if text.startswith("slow "):
        time.sleep(1.0)  # long enough that a Ctrl-C lands mid-run even on a loaded box
    if text.startswith("pause "):
        time.sleep(float(text.split()[1]))
    if text == "garbage":
        print("this is not json", flush=True)
        continue
    if text == "fail":
        send(type="error", message="model quota exceeded")
        continue
    if text.startswith("chatty "):
        for index in range(int(text.split()[1])):
            send(type="message", content=f"thinking {index}")
    if text.startswith(("call ", "cheat ")):
        name = text.split()[1]
        send(type="tool_call", id="c1", name=name, arguments={"x": 1})
        if name in msg["mockedTools"]:
            json.loads(sys.stdin.readline())  # agenteval's tool_result
        if text.startswith("cheat ") or name not in msg["mockedTools"]:
            send(type="tool_result", id="c1", result={"own": True})
    if text == "child":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        with open(os.environ["FAULT_AGENT_CHILDREN"], "a") as pids:
            pids.write(f"{child.pid}\n")
    if text == "detached":  # its own session: the agent's process group does not hold it
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True
        )
        with open(os.environ["FAULT_AGENT_CHILDREN"], "a") as pids:
            pids.write(f"{child.pid}\n")
    if text == "nan":  # Python's json writes NaN, which JSON does not have
        send(type="tool_call", id="c1", name="own_tool", arguments={"x": [1, float("nan")]})
        send(type="tool_result", id="c1", result=1)
    if text.startswith("waste "):  # a model call spent, then the turn fails
        tokens_in, tokens_out = (int(n) for n in text.split()[1:])
        usage = {"inputTokens": tokens_in, "outputTokens": tokens_out, "model": "test:model"}
        send(type="message", content="thinking", usage=usage)
        send(type="error", message="model quota exceeded")
        continue
    if text.startswith("spend "):  # the final line reports a model call of N in, M out tokens
        tokens_in, tokens_out = (int(n) for n in text.split()[1:])
        usage = {"inputTokens": tokens_in, "outputTokens": tokens_out, "model": "test:model"}
        send(type="final", content=f"echo: {text}", usage=usage)
        continue
    send(type="final", content=f"echo: {text}")
    if text.startswith("double"):
        if text == "double late":
            time.sleep(0.3)
        send(type="final", content="echo: stray")
    if os.environ.get("FAULT_AGENT_LOG"):
        with open(os.environ["FAULT_AGENT_LOG"], "a") as log:
            log.write(text + "\n")
