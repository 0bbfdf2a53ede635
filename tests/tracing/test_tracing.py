"""OTelTracer on real agent runs against LocalLLMServer, exported to the in-memory exporter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Generator, Iterable, Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from praisonlike import Agent, ExecutionConfig
from praisonlike.errors import AuthenticationError, ConfigurationError
from praisonlike.events import (
    Event,
    RetryEvent,
    RunFinished,
    RunStarted,
    SteeringEvent,
    ToolCallEvent,
)
from praisonlike.result import TerminationReason
from praisonlike.testing import Call, Fault, LocalLLMServer, ReportedUsage, Text, ToolCalls
from praisonlike.tracing import OTelTracer
from praisonlike.tracing.semconv import split_model

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

PRICES = {"test-model": {"input": 1.0, "output": 2.0}}
SECRET = "zebra-7319"


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: sunny"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def two_rounds(answer: str = "Paris is sunny and 2+3=5.") -> list[Any]:
    usage = ReportedUsage(prompt_tokens=11, completion_tokens=7)
    return [
        ToolCalls([Call("get_weather", {"city": "Paris"}, id="w1")], usage=usage),
        ToolCalls([Call("add", {"a": 2, "b": 3}, id="a1")], usage=usage),
        Text(answer, usage=usage),
    ]


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider
    provider.shutdown()


def make_agent(llm: dict[str, Any], **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [get_weather, add])
    kwargs.setdefault("model_prices", PRICES)
    return Agent(instructions="You are a helpful assistant", llm=llm, **kwargs)


def feed(tracer: OTelTracer, events: Iterable[Event]) -> list[Event]:
    seen = []
    for event in events:
        tracer(event)
        seen.append(event)
    return seen


def spans_named(exporter: InMemorySpanExporter, prefix: str) -> list[ReadableSpan]:
    spans = [s for s in exporter.get_finished_spans() if s.name.startswith(prefix)]
    return sorted(spans, key=lambda s: s.start_time or 0)


def only_run_span(exporter: InMemorySpanExporter) -> ReadableSpan:
    (span,) = spans_named(exporter, "invoke_agent")
    return span


def parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def all_values(span: ReadableSpan) -> list[str]:
    values = [str(v) for v in (span.attributes or {}).values()]
    values += [str(v) for e in span.events for v in (e.attributes or {}).values()]
    values.append(span.status.description or "")
    return values


def test_two_round_tool_turn_span_tree(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.extend(two_rounds())
    tracer = OTelTracer(provider)
    agent = make_agent(llm, name="helper")
    feed(tracer, agent.stream_events("Weather in Paris, and 2+3?"))

    spans = exporter.get_finished_spans()
    assert len(spans) == 6
    run = only_run_span(exporter)
    chats = spans_named(exporter, "chat ")
    tools = spans_named(exporter, "execute_tool ")
    assert run.name == "invoke_agent helper"
    assert run.kind is SpanKind.INTERNAL
    assert run.parent is None
    assert [s.name for s in chats] == ["chat test-model"] * 3
    assert [s.name for s in tools] == ["execute_tool get_weather", "execute_tool add"]
    assert {s.context.trace_id for s in spans} == {run.context.trace_id}
    assert {parent_id(s) for s in chats + tools} == {run.context.span_id}
    assert all(s.kind is SpanKind.CLIENT for s in chats)
    assert all(s.kind is SpanKind.INTERNAL for s in tools)

    run_attrs = run.attributes or {}
    assert run_attrs["gen_ai.operation.name"] == "invoke_agent"
    assert run_attrs["gen_ai.agent.name"] == "helper"
    assert run_attrs["gen_ai.provider.name"] == "openai"
    assert run_attrs["gen_ai.request.model"] == "test-model"
    assert run_attrs["gen_ai.response.model"] == "test-model"
    assert run_attrs["praisonlike.termination_reason"] == "completed"
    assert run_attrs["praisonlike.run_id"] == agent.last_result.run_id  # type: ignore[union-attr]
    assert run_attrs["gen_ai.usage.input_tokens"] == 33
    assert run_attrs["gen_ai.usage.output_tokens"] == 21
    assert run_attrs["praisonlike.cost_usd"] == pytest.approx(3 * 25e-6)
    assert run.status.status_code is StatusCode.UNSET

    for iteration, chat in enumerate(chats, start=1):
        attrs = chat.attributes or {}
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.provider.name"] == "openai"
        assert attrs["gen_ai.request.model"] == "test-model"
        assert attrs["gen_ai.response.model"] == "test-model"
        assert attrs["gen_ai.usage.input_tokens"] == 11
        assert attrs["gen_ai.usage.output_tokens"] == 7
        assert attrs["praisonlike.cost_usd"] == pytest.approx(25e-6)
        assert attrs["praisonlike.iteration"] == iteration
        assert chat.status.status_code is StatusCode.UNSET

    weather, adder = tools
    assert (weather.attributes or {})["gen_ai.operation.name"] == "execute_tool"
    assert (weather.attributes or {})["gen_ai.tool.name"] == "get_weather"
    assert (weather.attributes or {})["gen_ai.tool.call.id"] == "w1"
    assert (adder.attributes or {})["gen_ai.tool.call.id"] == "a1"

    assert run.start_time is not None and run.end_time is not None
    for child in chats + tools:
        assert child.start_time is not None and child.end_time is not None
        assert run.start_time <= child.start_time <= child.end_time <= run.end_time
    assert chats[0].end_time <= weather.start_time  # type: ignore[operator]
    assert weather.end_time <= chats[1].start_time  # type: ignore[operator]
    assert tracer.open_runs == frozenset()


def test_run_span_is_a_child_of_the_current_span(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.add(Text("hi"))
    tracer = OTelTracer(provider)
    with provider.get_tracer("app").start_as_current_span("handle request") as outer:
        feed(tracer, make_agent(llm).stream_events("hello"))
    run = only_run_span(exporter)
    assert run.name == "invoke_agent"
    assert "gen_ai.agent.name" not in (run.attributes or {})
    assert parent_id(run) == outer.get_span_context().span_id


def test_agent_name_argument_wins(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.add(Text("hi"))
    feed(OTelTracer(provider, agent_name="support"), make_agent(llm, name="x").stream_events("hi"))
    run = only_run_span(exporter)
    assert run.name == "invoke_agent support"
    assert (run.attributes or {})["gen_ai.agent.name"] == "support"


def test_retried_call_is_a_failed_chat_span_and_a_retry_event(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.extend([Fault.server_error(), Text("recovered")])
    agent = make_agent(llm, execution=ExecutionConfig(max_retries=2, retry_base=0.01))
    events = feed(OTelTracer(provider), agent.stream_events("hi"))
    (retry,) = [e for e in events if isinstance(e, RetryEvent)]

    failed, ok = spans_named(exporter, "chat ")
    assert failed.status.status_code is StatusCode.ERROR
    assert (failed.attributes or {})["error.type"] == retry.error_kind
    assert "gen_ai.usage.input_tokens" not in (failed.attributes or {})
    assert ok.status.status_code is StatusCode.UNSET
    output_tokens = (ok.attributes or {})["gen_ai.usage.output_tokens"]
    assert isinstance(output_tokens, int) and output_tokens > 0
    assert failed.end_time <= ok.start_time  # type: ignore[operator]

    run = only_run_span(exporter)
    assert run.status.status_code is StatusCode.UNSET
    assert (run.attributes or {})["praisonlike.retries"] == 1
    (event,) = [e for e in run.events if e.name == "praisonlike.retry"]
    attrs = event.attributes or {}
    assert attrs["praisonlike.retry.attempt"] == 1
    assert attrs["error.type"] == retry.error_kind
    assert attrs["gen_ai.request.model"] == "test-model"
    assert failed.end_time <= event.timestamp <= ok.start_time  # type: ignore[operator]


def test_fallback_is_a_failed_chat_span_and_a_fallback_event(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.extend([Fault.model_not_found(), Text("from the other model")])
    agent = make_agent(llm, fallback_models=["openai/other"])
    feed(OTelTracer(provider), agent.stream_events("hi"))

    first, second = spans_named(exporter, "chat ")
    assert first.name == "chat test-model"
    assert first.status.status_code is StatusCode.ERROR
    assert (first.attributes or {})["error.type"] == "model_not_found"
    assert second.name == "chat other"
    assert (second.attributes or {})["gen_ai.response.model"] == "other"
    assert second.status.status_code is StatusCode.UNSET

    run = only_run_span(exporter)
    assert (run.attributes or {})["gen_ai.response.model"] == "other"
    assert (run.attributes or {})["praisonlike.termination_reason"] == "completed"
    (event,) = [e for e in run.events if e.name == "praisonlike.fallback"]
    assert dict(event.attributes or {}) == {
        "praisonlike.fallback.from_model": "openai/test-model",
        "praisonlike.fallback.to_model": "openai/other",
        "error.type": "model_not_found",
    }


def test_failed_run_records_the_error_and_ends_every_span(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.add(Fault.authentication())
    tracer = OTelTracer(provider)
    seen: list[Event] = []
    with pytest.raises(AuthenticationError):
        for event in make_agent(llm).stream_events("hi"):
            tracer(event)
            seen.append(event)
    assert isinstance(seen[-1], RunFinished)

    run = only_run_span(exporter)
    (chat,) = spans_named(exporter, "chat ")
    attrs = run.attributes or {}
    assert run.status.status_code is StatusCode.ERROR
    assert attrs["error.type"] == "AuthenticationError"
    assert attrs["praisonlike.termination_reason"] == TerminationReason.ERROR.value
    (exception,) = [e for e in run.events if e.name == "exception"]
    assert (exception.attributes or {})["exception.type"] == "AuthenticationError"
    assert (exception.attributes or {})["exception.message"]
    assert chat.status.status_code is StatusCode.ERROR
    assert (chat.attributes or {})["error.type"] == "AuthenticationError"
    assert [e.name for e in chat.events] == ["exception"]
    assert chat.end_time <= run.end_time  # type: ignore[operator]
    assert tracer.open_runs == frozenset()


def test_content_is_captured_only_when_asked(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.extend(two_rounds(answer=f"Answer {SECRET}"))
    feed(OTelTracer(provider), make_agent(llm).stream_events(f"Question {SECRET}"))
    spans = exporter.get_finished_spans()
    assert len(spans) == 6
    content_keys = {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    }
    for span in spans:
        assert not content_keys & set(span.attributes or {})
        values = all_values(span)
        assert not any(SECRET in v or "Paris: sunny" in v or '"city"' in v for v in values)

    exporter.clear()
    server.extend(two_rounds(answer=f"Answer {SECRET}"))
    tracer = OTelTracer(provider, capture_content=True)
    feed(tracer, make_agent(llm).stream_events(f"Question {SECRET}"))
    run = only_run_span(exporter)
    run_attrs = run.attributes or {}
    assert json.loads(str(run_attrs["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": f"Question {SECRET}"}]}
    ]
    assert json.loads(str(run_attrs["gen_ai.output.messages"])) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": f"Answer {SECRET}"}],
            "finish_reason": "stop",
        }
    ]
    chats = spans_named(exporter, "chat ")
    first_output = json.loads(str((chats[0].attributes or {})["gen_ai.output.messages"]))
    assert first_output[0]["finish_reason"] == "tool_call"
    last_output = json.loads(str((chats[-1].attributes or {})["gen_ai.output.messages"]))
    assert last_output[0]["parts"] == [{"type": "text", "content": f"Answer {SECRET}"}]
    weather, adder = spans_named(exporter, "execute_tool ")
    assert json.loads(str((weather.attributes or {})["gen_ai.tool.call.arguments"])) == {
        "city": "Paris"
    }
    assert (weather.attributes or {})["gen_ai.tool.call.result"] == "Paris: sunny"
    assert (adder.attributes or {})["gen_ai.tool.call.result"] == "5"


def test_tool_error_marks_the_tool_span(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    def broken(x: int) -> str:
        """Always fails."""
        raise ValueError(f"cannot handle {SECRET}")

    server.extend([ToolCalls([Call("broken", {"x": 1}, id="b1")]), Text("sorry")])
    feed(OTelTracer(provider), make_agent(llm, tools=[broken]).stream_events("go"))
    (tool,) = spans_named(exporter, "execute_tool ")
    assert tool.status.status_code is StatusCode.ERROR
    assert (tool.attributes or {})["error.type"] == "tool_error"
    assert not any(SECRET in value for value in all_values(tool))
    assert only_run_span(exporter).status.status_code is StatusCode.UNSET


def test_close_ends_the_spans_of_an_abandoned_run(
    server: LocalLLMServer, llm: dict[str, Any], exporter: InMemorySpanExporter, provider: Any
) -> None:
    server.extend(two_rounds())
    tracer = OTelTracer(provider)
    stream = make_agent(llm).stream_events("Weather?")
    for event in stream:
        tracer(event)
        if isinstance(event, ToolCallEvent):
            break
    assert isinstance(stream, Generator)
    stream.close()
    assert len(tracer.open_runs) == 1
    assert exporter.get_finished_spans()[0].name == "chat test-model"
    assert len(exporter.get_finished_spans()) == 1

    tracer.close()
    tracer.close()
    assert tracer.open_runs == frozenset()
    run = only_run_span(exporter)
    (tool,) = spans_named(exporter, "execute_tool ")
    for span in (run, tool):
        assert span.status.status_code is StatusCode.ERROR
        assert (span.attributes or {})["error.type"] == "abandoned"
    assert len(exporter.get_finished_spans()) == 3


def test_close_of_one_run_leaves_the_others_open(
    exporter: InMemorySpanExporter, provider: Any
) -> None:
    tracer = OTelTracer(provider)
    tracer(RunStarted(run_id="r1", model="openai/test-model", prompt="a"))
    tracer(RunStarted(run_id="r2", model="openai/test-model", prompt="b"))
    tracer.close("r1")
    assert tracer.open_runs == frozenset({"r2"})
    tracer(RunFinished(run_id="r1", termination_reason=TerminationReason.COMPLETED))
    (closed,) = exporter.get_finished_spans()
    assert (closed.attributes or {})["praisonlike.run_id"] == "r1"
    assert "praisonlike.termination_reason" not in (closed.attributes or {})
    tracer(RunFinished(run_id="r2", termination_reason=TerminationReason.COMPLETED))
    assert tracer.open_runs == frozenset()
    assert len(exporter.get_finished_spans()) == 2


def test_other_run_events_become_span_events_without_content(
    exporter: InMemorySpanExporter, provider: Any
) -> None:
    for capture in (False, True):
        exporter.clear()
        tracer = OTelTracer(provider, capture_content=capture)
        tracer(RunStarted(run_id="r", model="openai/test-model", prompt="p"))
        tracer(SteeringEvent(run_id="r", text=SECRET))
        tracer(RunFinished(run_id="r", termination_reason=TerminationReason.COMPLETED))
        (event,) = only_run_span(exporter).events
        assert event.name == "praisonlike.steering"
        text = (event.attributes or {}).get("praisonlike.steering.text")
        assert text == (SECRET if capture else None)


def test_interleaved_runs_keep_their_own_spans(
    exporter: InMemorySpanExporter, provider: Any
) -> None:
    tracer = OTelTracer(provider)
    with LocalLLMServer(two_rounds()) as first, LocalLLMServer(two_rounds()) as second:
        streams = [
            make_agent(first.llm_config(), name="one").stream_events("a"),
            make_agent(second.llm_config(), name="two").stream_events("b"),
        ]
        live = list(streams)
        while live:
            for stream in list(live):
                event = next(stream, None)
                if event is None:
                    live.remove(stream)
                else:
                    tracer(event)
    assert_separate_runs(exporter, ["one", "two"])
    assert tracer.open_runs == frozenset()


def test_concurrent_runs_from_threads(exporter: InMemorySpanExporter, provider: Any) -> None:
    tracer = OTelTracer(provider)
    names = [f"agent{n}" for n in range(4)]
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            with LocalLLMServer(two_rounds()) as server:
                feed(tracer, make_agent(server.llm_config(), name=name).stream_events("go"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert_separate_runs(exporter, names)


def assert_separate_runs(exporter: InMemorySpanExporter, names: list[str]) -> None:
    spans = exporter.get_finished_spans()
    runs = {s.name.removeprefix("invoke_agent "): s for s in spans if s.name.startswith("invoke_")}
    assert sorted(runs) == sorted(names)
    assert len({r.context.trace_id for r in runs.values()}) == len(names)
    for run in runs.values():
        children = [s for s in spans if parent_id(s) == run.context.span_id]
        assert sorted(s.name for s in children) == sorted(
            ["chat test-model"] * 3 + ["execute_tool get_weather", "execute_tool add"]
        )
        assert {s.context.trace_id for s in children} == {run.context.trace_id}
    assert len(spans) == 6 * len(names)


def test_missing_opentelemetry_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    with pytest.raises(ConfigurationError, match="praisonlike\\[otel\\]"):
        OTelTracer()


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai/test-model", ("openai", "test-model")),
        ("gpt-4o", ("openai", "gpt-4o")),
        ("gemini/gemini-1.5-pro", ("gcp.gemini", "gemini-1.5-pro")),
        ("openrouter/anthropic/claude-3", ("openrouter", "anthropic/claude-3")),
        ("mystery-model", ("_OTHER", "mystery-model")),
        ("anthropic/claude-3-5-sonnet", ("anthropic", "claude-3-5-sonnet")),
        ("local", ("_OTHER", "local")),
        ("local/qwen2.5-coder", ("local", "qwen2.5-coder")),
        ("ollama/llama3", ("ollama", "llama3")),
    ],
)
def test_provider_and_model_names(model: str, expected: tuple[str, str]) -> None:
    assert split_model(model) == expected


NO_OTEL_SCRIPT = """
import sys
import praisonlike.tracing
from praisonlike import Agent
from praisonlike.testing import LocalLLMServer, Text

with LocalLLMServer([Text("hi")]) as server:
    agent = Agent(instructions="Greet.", llm=server.llm_config())
    assert agent.chat("hello") == "hi"
print(sorted(name for name in sys.modules if name.startswith("opentelemetry")))
"""


def test_opentelemetry_is_not_imported_unless_tracing_is_used() -> None:
    env = dict(os.environ, PRAISONLIKE_ALLOW_MODEL_REQUESTS="0")
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", NO_OTEL_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
