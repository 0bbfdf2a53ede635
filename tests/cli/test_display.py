"""The live display, fed with the events of real turns against LocalLLMServer."""

from __future__ import annotations

import io
import time
from typing import Any

import pytest
from rich.console import Console

from praisonlike import Agent, ExecutionConfig
from praisonlike.display import LiveDisplay, fold, format_arguments, format_cost
from praisonlike.errors import AuthenticationError
from praisonlike.events import CompactionEvent, LLMRequest, RunStarted, TextDelta
from praisonlike.testing import Call, DropConnection, Fault, LocalLLMServer, Text, ToolCalls

PRICES = {"test-model": {"input": 1.0, "output": 2.0}}


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: sunny, 26c"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def report(topic: str) -> str:
    """A long report."""
    return "\n".join(f"{topic} line {n}" for n in range(1, 21))


def terminal() -> Console:
    return Console(record=True, width=100, force_terminal=True, file=io.StringIO())


def plain() -> Console:
    return Console(file=io.StringIO(), width=100)


def plain_text(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def make_agent(llm: dict[str, Any], **kwargs: Any) -> Agent:
    kwargs.setdefault("tools", [get_weather, add])
    kwargs.setdefault("model_prices", PRICES)
    kwargs.setdefault("execution", ExecutionConfig(retry_base=0.01, max_retries=2))
    return Agent(instructions="You are a helpful assistant", llm=llm, **kwargs)


def run(agent: Agent, display: LiveDisplay, prompt: str = "go", **kwargs: Any) -> None:
    for event in agent.stream_events(prompt, **kwargs):
        display(event)


def two_rounds() -> list[Any]:
    return [
        ToolCalls([Call("get_weather", {"city": "Paris"}, id="w1")]),
        ToolCalls([Call("add", {"a": 2, "b": 3}, id="a1")]),
        Text("Paris is sunny and 2+3=5."),
    ]


def test_terminal_rendering_of_a_two_round_tool_turn(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(two_rounds())
    agent = make_agent(llm)
    console = terminal()
    run(agent, LiveDisplay(console))
    text = console.export_text(clear=False)
    assert "waiting for openai/test-model" in text
    assert "waiting for openai/test-model (round 3)" in text
    assert '→ get_weather(city="Paris")' in text
    assert "← get_weather (" in text and "Paris: sunny, 26c" in text
    assert "→ add(a=2, b=3)" in text
    assert "← add (" in text
    assert "Paris is sunny and 2+3=5.\n" in text
    result = agent.last_result
    assert result is not None and result.cost is not None
    usage = result.usage
    summary = text.splitlines()[-1]
    assert summary.startswith("✓ completed · 3 rounds · 2 tool calls · ")
    assert (
        f"{usage.total_tokens} tokens ({usage.prompt_tokens} in, {usage.completion_tokens} out)"
        in summary
    )
    assert f"cost {format_cost(result.cost)}" in summary
    assert summary.endswith(f"{result.latency:.2f}s")
    order = [text.index(s) for s in ("get_weather(", "← get_weather", "add(a=2", "Paris is sunny")]
    assert order == sorted(order)
    assert "\x1b[" in console.export_text(styles=True)


def test_plain_text_for_a_console_that_is_not_a_terminal(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(two_rounds())
    console = plain()
    run(make_agent(llm), LiveDisplay(console))
    text = plain_text(console)
    assert "\x1b" not in text
    assert "waiting for" not in text
    lines = text.splitlines()
    assert lines[0] == '-> get_weather(city="Paris")'
    assert lines[1].startswith("<- get_weather (") and lines[1].endswith("): Paris: sunny, 26c")
    assert lines[2] == "-> add(a=2, b=3)"
    assert lines[4] == "Paris is sunny and 2+3=5."
    assert lines[5].startswith("completed | 3 rounds | 2 tool calls | ")
    assert len(lines) == 6


def test_long_tool_results_are_folded(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("report", {"topic": "sales"})]), Text("Summarised.")])
    console = plain()
    run(make_agent(llm, tools=[report]), LiveDisplay(console))
    lines = plain_text(console).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("<- report"))
    assert lines[start].endswith("): sales line 1")
    assert lines[start + 1 : start + 5] == [
        "    sales line 2",
        "    sales line 3",
        "    sales line 4",
        "    … 16 more lines",
    ]
    assert "sales line 5" not in plain_text(console)


def test_fold_and_argument_formatting() -> None:
    assert fold("one\ntwo") == ["one", "two"]
    assert fold("x" * 500, line_chars=50) == ["x" * 49 + "…"]
    assert fold("a\nb\nc\nd\ne\nf", max_lines=2) == ["a", "b", "… 4 more lines"]
    assert format_arguments({"q": "two words", "n": [1, 2]}) == 'q="two words", n=[1, 2]'
    assert format_arguments('{"broken": ') == '{"broken":'
    assert len(format_arguments({"q": "y" * 1000})) == 200


def test_non_streamed_answer_is_shown_once(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.add(Text("A complete answer."))
    console = plain()
    run(make_agent(llm), LiveDisplay(console), stream=False)
    lines = plain_text(console).splitlines()
    assert lines[0] == "A complete answer."
    assert plain_text(console).count("A complete answer.") == 1


def test_retry_is_shown(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([Fault.rate_limit(retry_after=0), Text("ok now")])
    console = plain()
    run(make_agent(llm), LiveDisplay(console))
    lines = plain_text(console).splitlines()
    assert lines[0].startswith("retry 1 in ")
    assert "after rate_limit on openai/test-model: " in lines[0]
    assert lines[1] == "ok now"


def test_fallback_is_shown(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([Fault.model_not_found(), Text("from the fallback")])
    console = plain()
    agent = make_agent(llm, fallback_models=["openai/other-model"])
    run(agent, LiveDisplay(console))
    text = plain_text(console)
    assert "falling back from openai/test-model to openai/other-model: " in text
    assert "from the fallback\n" in text


def test_stream_reset_is_shown(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([DropConnection(after_chunks=2, then_content="partial text"), Text("whole")])
    console = plain()
    run(make_agent(llm), LiveDisplay(console))
    text = plain_text(console)
    reset = text.index("stream reset (")
    assert "the text above is void, the round restarts" in text
    assert text.index("part") < reset < text.index("whole")
    assert text[:reset].endswith("\n")


def test_budget_warning_is_shown(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend(
        [ToolCalls([Call("add", {"a": 1, "b": 1})]), Text("two"), ToolCalls([Call("add", {})])]
    )
    agent = make_agent(
        llm, execution=ExecutionConfig(max_budget=0.00001, on_budget_exceeded="warn")
    )
    console = plain()
    run(agent, LiveDisplay(console))
    assert "budget warning: $" in plain_text(console)
    assert " of $0.00001 spent: " in plain_text(console)


def test_fatal_error_is_shown_once_then_summary(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.add(Fault.authentication())
    console = plain()
    display = LiveDisplay(console)
    with pytest.raises(AuthenticationError):
        run(make_agent(llm), display)
    lines = plain_text(console).splitlines()
    assert lines[0].startswith("! error AuthenticationError: Credentials rejected")
    assert lines[1].startswith("! error | no model call answered | ")
    assert len(lines) == 2
    assert plain_text(console).count("Credentials rejected") == 1


def test_fatal_error_left_to_the_caller(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([ToolCalls([Call("get_weather", {"city": "Oslo"})]), Fault.authentication()])
    console = plain()
    with pytest.raises(AuthenticationError):
        run(make_agent(llm), LiveDisplay(console, show_errors=False))
    lines = plain_text(console).splitlines()
    assert lines[0] == '-> get_weather(city="Oslo")'
    assert lines[1].startswith("<- get_weather (")
    assert lines[2].startswith("! error | 2 rounds | 1 tool call | ")
    assert len(lines) == 3


def test_compaction_and_unknown_events(server: LocalLLMServer) -> None:
    console = plain()
    display = LiveDisplay(console)
    display(RunStarted(run_id="r", model="m", prompt="p"))
    display(
        CompactionEvent(
            run_id="r",
            route="compact",
            strategy="summarize",
            tokens_before=9000,
            tokens_after=3000,
            messages_dropped=6,
            tool_outputs_truncated=2,
        )
    )
    display(
        CompactionEvent(
            run_id="r",
            route="compact",
            strategy=None,
            tokens_before=9000,
            tokens_after=9000,
            messages_dropped=0,
            failed="summary model down",
        )
    )
    display(object())
    assert plain_text(console).splitlines() == [
        "context compacted (compact, summarize): 9000 -> 3000 tokens, 6 messages dropped, "
        "2 tool output(s) truncated",
        "context compaction failed (compact): summary model down",
    ]


def test_display_is_reused_across_turns(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.extend([Text("first"), Text("second")])
    agent = make_agent(llm)
    console = plain()
    display = LiveDisplay(console)
    run(agent, display, "one")
    run(agent, display, "two")
    lines = plain_text(console).splitlines()
    assert [lines[0], lines[2]] == ["first", "second"]
    assert lines[1].startswith("completed | 1 round | ")
    assert lines[3].startswith("completed | 1 round | ")


def test_close_stops_a_running_spinner() -> None:
    console = terminal()
    display = LiveDisplay(console)
    display(LLMRequest(run_id="r", iteration=1, model="m", message_count=1))
    time.sleep(0.3)
    assert "waiting for m" in console.export_text()
    display.close()
    console.export_text()
    time.sleep(0.3)
    assert console.export_text() == ""
    display.close()


def test_format_cost() -> None:
    assert format_cost(None) == "unknown"
    assert format_cost(0.000095) == "$0.000095"
    assert format_cost(1.5) == "$1.50"
    assert format_cost(0.0) == "$0"
    assert format_cost(0.02, complete=False) == ">= $0.02 (partly unknown)"


# -- tool calls written as text ------------------------------------------------------

CALL_TEXT = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


def text_call_agent(llm: dict[str, Any], *, native: bool) -> Agent:
    return make_agent({**llm, "features": {"native_tool_calls": native}})


@pytest.mark.parametrize("native", [False, True], ids=["react", "native"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_a_call_written_as_text_is_shown_only_as_the_call(
    server: LocalLLMServer, llm: dict[str, Any], native: bool, stream: bool
) -> None:
    server.extend([Text(CALL_TEXT), Text("It is sunny in Paris.")])
    console = plain()
    agent = text_call_agent(llm, native=native)
    display = LiveDisplay(console)
    deltas: list[str] = []
    for event in agent.stream_events("weather in Paris?", stream=stream):
        display(event)
        if isinstance(event, TextDelta):
            deltas.append(event.text)
    lines = plain_text(console).splitlines()
    assert lines[0] == '-> get_weather(city="Paris")'
    assert lines[1].startswith("<- get_weather (") and lines[1].endswith("Paris: sunny, 26c")
    assert lines[2] == "It is sunny in Paris."
    assert lines[3].startswith("completed | 2 rounds | 1 tool call | ")
    assert len(lines) == 4
    assert "".join(deltas) == ("It is sunny in Paris." if stream else "")


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_prose_around_a_react_call_is_shown_without_the_call(
    server: LocalLLMServer, llm: dict[str, Any], stream: bool
) -> None:
    server.extend([Text(f"Let me look that up.\n```json\n{CALL_TEXT}\n```"), Text("Sunny.")])
    console = plain()
    run(text_call_agent(llm, native=False), LiveDisplay(console), "Paris?", stream=stream)
    text = plain_text(console)
    assert '"arguments"' not in text and "```" not in text
    lines = text.splitlines()
    assert lines[0] == "Let me look that up."
    assert lines[1] == '-> get_weather(city="Paris")'
    assert lines[3] == "Sunny."


ECHOED = (
    '{"name": "get_weather", "description": "Current weather.", '
    '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}'
)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize(
    ("attempt", "note"),
    [
        (ECHOED, "schema_echo for tool get_weather"),
        ('{"name": "add", "arguments": {"a": 1, "b": 2}}', "values from nowhere was not run"),
    ],
    ids=["echoed-schema", "values-from-nowhere"],
)
def test_a_text_call_that_is_not_run_is_not_shown_as_text(
    server: LocalLLMServer, llm: dict[str, Any], stream: bool, attempt: str, note: str
) -> None:
    server.extend([Text(attempt), Text("Here is a joke.")])
    console = plain()
    run(text_call_agent(llm, native=False), LiveDisplay(console), "A joke?", stream=stream)
    lines = plain_text(console).splitlines()
    assert lines[0].startswith("! recovered from ToolCallFault: ") and note in lines[0]
    assert lines[1] == "Here is a joke."
    assert lines[2].startswith("completed | 2 rounds | ")
    assert len(lines) == 3


def test_a_native_answer_shaped_like_json_is_still_shown(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    answer = '{"city": "Paris", "weather": "sunny"}'
    server.add(Text(answer))
    console = plain()
    agent = text_call_agent(llm, native=True)
    deltas: list[str] = []
    display = LiveDisplay(console)
    for event in agent.stream_events("weather as JSON?"):
        display(event)
        if isinstance(event, TextDelta):
            deltas.append(event.text)
    assert "".join(deltas) == answer
    assert plain_text(console).splitlines()[0] == answer


def test_text_beside_native_tool_calls_is_shown_before_them(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    server.extend(
        [
            ToolCalls([Call("get_weather", {"city": "Oslo"})], content="Checking Oslo."),
            Text("Sunny in Oslo."),
        ]
    )
    console = plain()
    run(make_agent(llm), LiveDisplay(console), stream=False)
    lines = plain_text(console).splitlines()
    assert lines[:2] == ["Checking Oslo.", '-> get_weather(city="Oslo")']
    assert lines[3] == "Sunny in Oslo."
