"""MCPTools on a real stdio MCP server, called by an Agent against LocalLLMServer."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from mcp_support import CallLog, MakeTools

from praisonlike import Agent
from praisonlike.models.config import ExecutionConfig
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls
from praisonlike.tools import RawTool
from praisonlike.tools.mcp import MCPServerError, MCPTools

pytest.importorskip("mcp", reason="needs the mcp package (praisonlike[mcp])")


def make_agent(llm: dict[str, Any], tools: list[Any], **kwargs: Any) -> Agent:
    return Agent(instructions="You report the weather.", llm=llm, tools=tools, **kwargs)


def tool_messages(request: Any) -> list[dict[str, Any]]:
    return [m for m in request.messages if m["role"] == "tool"]


def test_tools_are_listed_with_the_servers_schemas(weather: MCPTools) -> None:
    tools = {tool.name: tool for tool in weather.as_tools()}
    assert sorted(tools) == [
        "alerts_active",
        "crash",
        "forecast",
        "get_weather",
        "radar",
        "slow",
        "station_report",
    ]
    assert all(isinstance(tool, RawTool) for tool in tools.values())
    assert tools["get_weather"].openai_schema() == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "title": "get_weatherArguments",
                "properties": {
                    "city": {"title": "City", "type": "string"},
                    "unit": {"default": "c", "title": "Unit", "type": "string"},
                },
                "required": ["city"],
            },
        },
    }
    assert tools["forecast"].parameters["properties"]["days"]["type"] == "integer"
    assert all(tool.is_async and not tool.requires_approval for tool in tools.values())
    assert weather.as_tools()[0] is weather.as_tools()[0]


@pytest.mark.parametrize("entry", ["chat", "achat"])
async def test_agent_calls_an_mcp_tool(
    server: LocalLLMServer,
    llm: dict[str, Any],
    weather: MCPTools,
    shared_log: CallLog,
    entry: str,
) -> None:
    server.extend(
        [ToolCalls([Call("get_weather", {"city": "Oslo", "unit": "f"}, id="w1")]), Text("Sunny.")]
    )
    agent = make_agent(llm, [weather])
    if entry == "chat":
        answer = agent.chat("Weather in Oslo?")
    else:
        answer = await agent.achat("Weather in Oslo?")

    assert answer == "Sunny."
    offered = {tool["function"]["name"] for tool in server.requests[0].tools}
    assert {"get_weather", "forecast", "alerts_active"} <= offered
    assert tool_messages(server.requests[1]) == [
        {"role": "tool", "tool_call_id": "w1", "content": "Oslo: sunny, 21f"}
    ]
    assert shared_log.entries()[-1]["arguments"] == {"city": "Oslo", "unit": "f"}
    record = agent.last_result.tool_calls[0]  # type: ignore[union-attr]
    assert (record.name, record.is_error) == ("get_weather", False)


def test_structured_image_and_renamed_tools_come_back_as_text(
    server: LocalLLMServer, llm: dict[str, Any], weather: MCPTools, shared_log: CallLog
) -> None:
    server.extend(
        [
            ToolCalls(
                [
                    Call("forecast", {"city": "Rome", "days": 3}, id="f"),
                    Call("radar", {}, id="r"),
                    Call("alerts_active", {"region": "north"}, id="a"),
                ]
            ),
            Text("done"),
        ]
    )
    make_agent(llm, [weather]).chat("Forecast, radar and alerts?")

    contents = {m["tool_call_id"]: m["content"] for m in tool_messages(server.requests[1])}
    assert contents["f"].replace(" ", "").replace("\n", "") == (
        '{"city":"Rome","highs":[20,21,22]}'
    )
    assert contents["r"] == "[image: image/png, 32 bytes]"
    assert contents["a"] == "no alerts in north"
    assert shared_log.tools()[-3:] == ["forecast", "radar", "alerts.active"]


def test_a_tool_error_of_the_server_is_an_error_tool_message(
    server: LocalLLMServer, llm: dict[str, Any], weather: MCPTools
) -> None:
    server.extend([ToolCalls([Call("station_report", {"station": "s1"})]), Text("Offline.")])
    agent = make_agent(llm, [weather])
    assert agent.chat("Station s1?") == "Offline."

    (message,) = tool_messages(server.requests[1])
    assert message["content"].startswith("Error: tool 'station_report' raised ToolError")
    assert "station s1 is offline" in message["content"]
    assert agent.last_result.tool_calls[0].is_error  # type: ignore[union-attr]


async def test_a_timed_out_call_is_cancelled_and_the_session_stays_usable(
    server: LocalLLMServer, llm: dict[str, Any], weather: MCPTools
) -> None:
    server.extend(
        [
            ToolCalls(
                [
                    Call("slow", {"seconds": 60}, id="s"),
                    Call("get_weather", {"city": "Bern"}, id="w"),
                ]
            ),
            Text("Partly."),
        ]
    )
    agent = make_agent(llm, [weather], execution=ExecutionConfig(tool_timeout=0.5))
    assert await agent.achat("Slow and weather?") == "Partly."

    contents = {m["tool_call_id"]: m["content"] for m in tool_messages(server.requests[1])}
    assert contents["s"] == "Error: tool 'slow' timed out after 0.5s"
    assert contents["w"] == "Bern: sunny, 21c"


def test_invalid_arguments_are_refused_before_the_server_is_called(
    server: LocalLLMServer, llm: dict[str, Any], weather: MCPTools, shared_log: CallLog
) -> None:
    before = len(shared_log.entries())
    server.extend([ToolCalls([Call("forecast", {"city": "Rome", "days": "many"})]), Text("ok")])
    make_agent(llm, [weather]).chat("Forecast?")

    (message,) = tool_messages(server.requests[1])
    assert message["content"].startswith("Error")
    assert "days" in message["content"]
    assert len(shared_log.entries()) == before


def test_a_dead_server_gives_a_tool_error_and_the_next_call_restarts_it(
    server: LocalLLMServer, llm: dict[str, Any], make_tools: MakeTools, call_log: CallLog
) -> None:
    tools = make_tools()
    agent = make_agent(llm, [tools])
    server.extend(
        [
            ToolCalls([Call("crash", {}, id="c")]),
            ToolCalls([Call("get_weather", {"city": "Lima"}, id="w")]),
            Text("Recovered."),
        ]
    )
    assert agent.chat("Crash, then weather") == "Recovered."

    crash_message = tool_messages(server.requests[1])[0]["content"]
    assert crash_message.startswith("Error: tool 'crash' raised MCPServerError")
    assert "lost the connection" in crash_message
    assert tool_messages(server.requests[2])[1]["content"] == "Lima: sunny, 21c"
    crashed, answered = call_log.entries()
    assert (crashed["tool"], answered["tool"]) == ("crash", "get_weather")
    assert crashed["pid"] != answered["pid"]


def test_denied_approval_never_reaches_the_server(
    server: LocalLLMServer, llm: dict[str, Any], make_tools: MakeTools, call_log: CallLog
) -> None:
    tools = make_tools(requires_approval={"get_weather"})
    asked: list[tuple[str, dict[str, Any]]] = []

    def approver(name: str, arguments: dict[str, Any]) -> bool:
        asked.append((name, arguments))
        return False

    server.extend(
        [
            ToolCalls(
                [
                    Call("get_weather", {"city": "Oslo"}, id="w"),
                    Call("forecast", {"city": "Oslo", "days": 1}, id="f"),
                ]
            ),
            Text("Only the forecast."),
        ]
    )
    agent = make_agent(llm, [tools], approval=approver)
    assert agent.chat("Weather and forecast?") == "Only the forecast."

    contents = {m["tool_call_id"]: m["content"] for m in tool_messages(server.requests[1])}
    assert "denied by the approver" in contents["w"]
    assert '"highs"' in contents["f"]
    assert asked == [("get_weather", {"city": "Oslo"})]
    assert call_log.tools() == ["forecast"]
    flags = {tool.name: tool.requires_approval for tool in tools.as_tools()}
    assert flags["get_weather"] and not flags["forecast"]


def test_agent_construction_starts_nothing_and_a_bad_command_fails_the_turn(
    llm: dict[str, Any], tmp_path: Any
) -> None:
    missing = tmp_path / "no-such-server"
    agent = make_agent(llm, [MCPTools(str(missing), startup_timeout=20)])
    with pytest.raises(MCPServerError, match="cannot start MCP server") as caught:
        agent.chat("hi")
    assert caught.value.server == str(missing)


def test_close_stops_the_server_and_a_later_call_starts_it_again(
    weather: MCPTools, shared_log: CallLog
) -> None:
    weather_tool = next(tool for tool in weather.as_tools() if tool.name == "get_weather")
    assert isinstance(weather_tool, RawTool)
    assert weather_tool.handler is not None

    assert asyncio.run(weather_tool.handler(city="Kyiv")) == "Kyiv: sunny, 21c"
    first_pid = shared_log.entries()[-1]["pid"]
    weather.close()
    with pytest.raises(ProcessLookupError):
        os.kill(first_pid, 0)
    weather.close()

    assert asyncio.run(weather_tool.handler(city="Kyiv")) == "Kyiv: sunny, 21c"
    assert shared_log.entries()[-1]["pid"] != first_pid
