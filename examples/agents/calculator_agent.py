#!/usr/bin/env python3
"""A deterministic example agent speaking agenteval's cmd: protocol (JSON lines on stdin/stdout).

Run it with `agenteval run --agent cmd:examples/agents/calculator_agent.py ...`. It understands
"calc OP A B" (tool `calculator`) and "weather in CITY" (tool `get_weather`); anything else gets
a help text. With $EXAMPLE_AGENT_LOG set it appends one JSON line per turn saying what it did.
"""
import json, os, re, sys

OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}
TOOLS = {"calculator": lambda a: {**a, "result": OPS[a["operation"]](a["a"], a["b"])},
         "get_weather": lambda a: {"city": a["city"], "condition": "sunny", "tempC": 21}}

def send(**msg):
    print(json.dumps(msg), flush=True)

def call(turn, name, args, mocked, log):
    call_id = f"call_{turn}_{len(log['tools']) + 1}"
    send(type="tool_call", id=call_id, name=name, arguments=args)
    if name in mocked:  # agenteval answers; the real tool must not run
        result = json.loads(sys.stdin.readline())["result"]
    else:
        result = TOOLS[name](args)
        send(type="tool_result", id=call_id, result=result)
    log["tools"].append({"id": call_id, "name": name, "arguments": args, "result": result, "mocked": name in mocked})
    return result

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "user_turn":
        continue
    text, mocked = msg["message"]["content"], set(msg["mockedTools"])
    log = {"sessionId": msg["sessionId"], "turn": msg["turn"], "user": text, "tools": []}
    if m := re.fullmatch(r"calc (add|sub|mul) (-?\d+) (-?\d+)", text.strip()):
        args = {"a": int(m[2]), "b": int(m[3]), "operation": m[1]}
        answer = f"calc result: {call(msg['turn'], 'calculator', args, mocked, log)['result']}"
    elif m := re.fullmatch(r"weather in (\w[\w ]*)", text.strip(), re.I):
        send(type="message", content=f"Looking up the weather in {m[1]}.")
        w = call(msg["turn"], "get_weather", {"city": m[1]}, mocked, log)
        answer = f"{w['city']}: {w['condition']}, {w['tempC']} °C"
    else:
        answer = "I can calculate (calc add 1 2) or look up the weather (weather in Paris)."
    # A model-backed agent puts its model call's tokens and model here (tool_call_count, token_usage
    # and the agent's cost read them); this one has no model and reports its words as tokens of a
    # made-up "example:calculator" model, priced in examples/prices/calculator-agent.prices.json.
    usage = {"inputTokens": len(text.split()), "outputTokens": len(answer.split()), "model": "example:calculator"}
    send(type="final", content=answer, usage=usage)
    if os.environ.get("EXAMPLE_AGENT_LOG"):
        with open(os.environ["EXAMPLE_AGENT_LOG"], "a") as f:
            f.write(json.dumps({**log, "final": answer}) + "\n")
