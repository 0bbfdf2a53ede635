"""verbose=True, tracing= and on_event= receive every event of a turn as it happens."""

from __future__ import annotations

from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


def add(a: int, b: int) -> int:
    """Add."""
    return a + b


def test_verbose_shows_the_run_and_quiet_prints_nothing(
    server: LocalLLMServer, llm: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    server.extend([ToolCalls([Call("add", {"a": 2, "b": 2})]), Text("four"), Text("quiet")])
    Agent(instructions="x", llm=llm, tools=[add], verbose=True).chat("2+2?")
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert "add" in text and "four" in text and "token" in text.lower()
    Agent(instructions="x", llm=llm).chat("shh")
    quiet = capsys.readouterr()
    assert quiet.out == "" and quiet.err == ""


def test_on_event_sees_every_event_in_order(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    seen: list[str] = []
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 1})]), Text("2")])
    agent = Agent(instructions="x", llm=llm, tools=[add], on_event=lambda e: seen.append(e.type))
    streamed = [e.type for e in agent.stream_events("1+1")]
    assert seen == streamed
    assert seen[0] == "run_started" and seen[-1] == "run_finished"


def test_tracing_gets_spans_from_a_real_turn(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from praisonlike import OTelTracer

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")])
    agent = Agent(name="calc", instructions="x", llm=llm, tools=[add], tracing=OTelTracer(provider))
    agent.chat("1+2")
    names = sorted(span.name for span in exporter.get_finished_spans())
    assert names == ["chat test-model", "chat test-model", "execute_tool add", "invoke_agent calc"]
