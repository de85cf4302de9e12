"""Record agent turns as real OpenTelemetry SDK spans and export them as OTLP files.

The Python SDK has no OTLP-JSON file exporter, so files are written the way the OTLP
exporters encode spans: ``opentelemetry-exporter-otlp-proto-common``'s ``encode_spans`` turns
the SDK's finished ``ReadableSpan``s into an ``ExportTraceServiceRequest``; protobuf files are
that message serialised, JSON files its ``google.protobuf.json_format`` rendering (one
document per line, as the collector's file exporter writes).  json_format writes bytes as
base64, while the OTLP JSON encoding writes trace and span ids as hex; ``hex_ids`` (the
default) re-encodes them so the file reads like a collector's.

Four span dialects: ``semconv`` (OpenTelemetry GenAI conventions, parts messages), ``adk``
(Google ADK: ``invocation`` → ``invoke_agent`` → ``call_llm`` with ``gcp.vertex.agent.*``),
``trpc`` (trpc-agent-go: its own message JSON, choices on the output side) and ``events``
(the older per-message span events).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Tracer

from agenteval.schema.evalset import Invocation

OP = "gen_ai.operation.name"


class PerTraceIds(IdGenerator):
    """Span ids numbered from 1 in every trace, as some exporters number them (trace ids: 1, 2 …)."""

    def __init__(self) -> None:
        self.trace = 0
        self.span = 0

    def generate_trace_id(self) -> int:
        self.trace += 1
        self.span = 0
        return self.trace

    def generate_span_id(self) -> int:
        self.span += 1
        return self.span


class Recorder:
    """A tracer provider whose finished spans are kept in memory for export."""

    def __init__(
        self, service: str = "travel-agent", id_generator: IdGenerator | None = None
    ) -> None:
        self.memory = InMemorySpanExporter()
        self.provider = TracerProvider(
            resource=Resource.create({"service.name": service}), id_generator=id_generator
        )
        self.provider.add_span_processor(SimpleSpanProcessor(self.memory))
        self.tracer: Tracer = self.provider.get_tracer("agent-under-test")

    def spans(self) -> Sequence[ReadableSpan]:
        """Every finished span so far."""
        return self.memory.get_finished_spans()

    def write_json(self, path: Path, *, per_trace_lines: bool = True, hex_ids: bool = True) -> Path:
        """OTLP JSON: one ``{"resourceSpans": …}`` document per line (per trace), or one document."""
        spans = list(self.spans())
        groups: list[list[ReadableSpan]] = []
        if per_trace_lines:
            by_trace: dict[int, list[ReadableSpan]] = {}
            for span in spans:
                assert span.context is not None
                by_trace.setdefault(span.context.trace_id, []).append(span)
            groups = list(by_trace.values())
        else:
            groups = [spans]
        documents = [json_format.MessageToDict(encode_spans(g)) for g in groups]
        if hex_ids:
            for document in documents:
                for resource in document.get("resourceSpans", []):
                    for scope in resource.get("scopeSpans", []):
                        for span in scope.get("spans", []):
                            for key in ("traceId", "spanId", "parentSpanId"):
                                if key in span:
                                    span[key] = base64.b64decode(span[key]).hex()
        lines = [json.dumps(d, ensure_ascii=False) for d in documents]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def write_protobuf(self, path: Path) -> Path:
        """OTLP protobuf: one serialised ``ExportTraceServiceRequest``."""
        path.write_bytes(encode_spans(list(self.spans())).SerializeToString())
        return path


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _texts(turn: Invocation) -> tuple[str, str]:
    user = turn.user_content.content if turn.user_content else ""
    final = turn.final_response.content if turn.final_response else ""
    return user, final


def record_semconv(tracer: Tracer, session: str, turns: Sequence[Invocation]) -> None:
    """GenAI semantic conventions: ``invoke_agent`` → ``chat`` / ``execute_tool`` spans."""
    for turn in turns:
        user, final = _texts(turn)
        user_msgs = _j([{"role": "user", "parts": [{"type": "text", "content": user}]}])
        out_msgs = _j(
            [
                {
                    "role": "assistant",
                    "parts": [{"type": "text", "content": final}],
                    "finish_reason": "stop",
                }
            ]
        )
        with tracer.start_as_current_span(
            "invoke_agent travel_agent",
            attributes={
                OP: "invoke_agent",
                "gen_ai.agent.name": "travel_agent",
                "gen_ai.conversation.id": session,
                "gen_ai.input.messages": user_msgs,
            },
        ) as root:
            calls = [
                {"type": "tool_call", "id": t.id, "name": t.name, "arguments": t.arguments}
                for t in turn.tools or []
            ]
            with tracer.start_as_current_span(
                "chat gpt-4o",
                attributes={
                    OP: "chat",
                    "gen_ai.input.messages": user_msgs,
                    "gen_ai.output.messages": _j([{"role": "assistant", "parts": calls}]),
                },
            ):
                pass
            for tool in turn.tools or []:
                with tracer.start_as_current_span(
                    f"execute_tool {tool.name}",
                    attributes={
                        OP: "execute_tool",
                        "gen_ai.tool.name": tool.name,
                        "gen_ai.tool.call.id": tool.id,
                        "gen_ai.tool.call.arguments": _j(tool.arguments),
                        "gen_ai.tool.call.result": _j(tool.result),
                    },
                ):
                    pass
            with tracer.start_as_current_span(
                "chat gpt-4o", attributes={OP: "chat", "gen_ai.output.messages": out_msgs}
            ):
                pass
            root.set_attribute("gen_ai.output.messages", out_msgs)


def record_adk(tracer: Tracer, session: str, turns: Sequence[Invocation]) -> None:
    """Google ADK's legacy span layout with ``gcp.vertex.agent.*`` attributes."""
    for index, turn in enumerate(turns):
        user, final = _texts(turn)
        invocation_id = f"e-{session}-{index}"
        common = {
            "gen_ai.system": "gcp.vertex.agent",
            "gcp.vertex.agent.invocation_id": invocation_id,
            "gcp.vertex.agent.session_id": session,
        }
        request = _j(
            {
                "model": "gemini-2.5-flash",
                "config": {},
                "contents": [{"role": "user", "parts": [{"text": user}]}],
            }
        )
        with (
            tracer.start_as_current_span("invocation"),
            tracer.start_as_current_span(
                "invoke_agent weather_agent",
                attributes={OP: "invoke_agent", "gen_ai.conversation.id": session},
            ),
        ):
            calls = [
                {"function_call": {"id": t.id, "name": t.name, "args": t.arguments}}
                for t in turn.tools or []
            ]
            with tracer.start_as_current_span(
                "call_llm",
                attributes={
                    **common,
                    "gcp.vertex.agent.llm_request": request,
                    "gcp.vertex.agent.llm_response": _j(
                        {"content": {"role": "model", "parts": calls}}
                    ),
                },
            ):
                for tool in turn.tools or []:
                    with tracer.start_as_current_span(
                        f"execute_tool {tool.name}",
                        attributes={
                            OP: "execute_tool",
                            "gen_ai.tool.name": tool.name,
                            "gen_ai.tool.call.id": tool.id,
                            "gcp.vertex.agent.tool_call_args": _j(tool.arguments),
                            "gcp.vertex.agent.tool_response": _j(tool.result),
                            "gcp.vertex.agent.llm_request": "{}",
                            "gcp.vertex.agent.llm_response": "{}",
                        },
                    ):
                        pass
            with tracer.start_as_current_span(
                "call_llm",
                attributes={
                    **common,
                    "gcp.vertex.agent.llm_request": request,
                    "gcp.vertex.agent.llm_response": _j(
                        {"content": {"role": "model", "parts": [{"text": final}]}}
                    ),
                },
            ):
                pass


def record_trpc(tracer: Tracer, session: str, turns: Sequence[Invocation]) -> None:
    """trpc-agent-go's spans: its own message JSON in ``gen_ai.input/output.messages``."""
    for index, turn in enumerate(turns):
        user, final = _texts(turn)
        with tracer.start_as_current_span(
            "invoke_agent assistant",
            attributes={
                OP: "invoke_agent",
                "gen_ai.system": "trpc.go.agent",
                "trpc.go.agent.invocation_id": f"inv-{index}",
                "gen_ai.conversation.id": session,
                "trpc.go.agent.runner.user_id": "user-7",
                "gen_ai.input.messages": _j([{"role": "user", "content": user}]),
                "gen_ai.output.messages": _j(
                    [{"index": 0, "message": {"role": "assistant", "content": final}}]
                ),
            },
        ):
            with tracer.start_as_current_span(
                "chat deepseek",
                attributes={
                    OP: "chat",
                    "gen_ai.input.messages": _j([{"role": "user", "content": user}]),
                },
            ):
                pass
            for tool in turn.tools or []:
                with tracer.start_as_current_span(
                    f"execute_tool {tool.name}",
                    attributes={
                        OP: "execute_tool",
                        "gen_ai.tool.name": tool.name,
                        "gen_ai.tool.call.id": tool.id,
                        "gen_ai.tool.call.arguments": _j(tool.arguments),
                        "gen_ai.tool.call.result": _j(tool.result),
                    },
                ):
                    pass


def record_trpc_tool_keys(tracer: Tracer, session: str, turns: Sequence[Invocation]) -> None:
    """trpc-agent-go's earlier telemetry: ``call_llm`` spans, and tool spans whose call id,
    arguments and response are its own ``trpc.go.agent.tool_id`` / ``tool_call_args`` /
    ``tool_response`` (``gen_ai.tool.call.*`` came later)."""
    for index, turn in enumerate(turns):
        user, final = _texts(turn)
        with tracer.start_as_current_span(
            "invoke_agent assistant",
            attributes={
                OP: "invoke_agent",
                "gen_ai.system": "trpc.go.agent",
                "trpc.go.agent.invocation_id": f"inv-{index}",
                "gen_ai.conversation.id": session,
                "gen_ai.input.messages": _j({"messages": [{"role": "user", "content": user}]}),
                "gen_ai.output.messages": _j({"role": "assistant", "content": final}),
            },
        ):
            with tracer.start_as_current_span(
                "call_llm",
                attributes={
                    OP: "call_llm",
                    "trpc.go.agent.session_id": session,
                    "trpc.go.agent.llm_request": _j(
                        {"messages": [{"role": "user", "content": user}]}
                    ),
                },
            ):
                pass
            for tool in turn.tools or []:
                with tracer.start_as_current_span(
                    f"execute_tool {tool.name}",
                    attributes={
                        OP: "execute_tool",
                        "gen_ai.tool.name": tool.name,
                        "trpc.go.agent.tool_id": tool.id,
                        "trpc.go.agent.tool_call_args": _j(tool.arguments),
                        "trpc.go.agent.tool_response": _j(tool.result),
                        "trpc.go.agent.llm_request": "{}",
                        "trpc.go.agent.llm_response": "{}",
                    },
                ):
                    pass


def record_events(tracer: Tracer, session: str, turns: Sequence[Invocation]) -> None:
    """The older conventions: messages as ``gen_ai.user.message`` / ``gen_ai.choice`` span events."""
    for turn in turns:
        user, final = _texts(turn)
        with tracer.start_as_current_span(
            "invoke_agent bot", attributes={OP: "invoke_agent", "gen_ai.conversation.id": session}
        ):
            with tracer.start_as_current_span("chat m", attributes={OP: "chat"}) as chat:
                chat.add_event("gen_ai.user.message", {"content": user})
            for tool in turn.tools or []:
                with tracer.start_as_current_span(
                    f"execute_tool {tool.name}",
                    attributes={
                        OP: "execute_tool",
                        "gen_ai.tool.call.arguments": _j(tool.arguments),
                        "gen_ai.tool.call.result": _j(tool.result),
                    },
                ):
                    pass
            with tracer.start_as_current_span("chat m", attributes={OP: "chat"}) as chat:
                chat.add_event(
                    "gen_ai.choice", {"message": _j({"role": "assistant", "content": final})}
                )


DIALECTS = {
    "semconv": record_semconv,
    "adk": record_adk,
    "trpc": record_trpc,
    "trpc_tool_keys": record_trpc_tool_keys,
    "events": record_events,
}


def write_example(traces: Path, out: Path) -> None:
    """The README's OTLP example: a traces JSONL file's turns as GenAI spans, one line per trace."""
    recorder = Recorder()
    for line in traces.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            turns = [Invocation.model_validate(t) for t in record["actualConversation"]]
            record_semconv(recorder.tracer, record["evalId"], turns)
    recorder.write_json(out)


if __name__ == "__main__":
    import sys

    write_example(Path(sys.argv[1]), Path(sys.argv[2]))
