"""MCPTools over streamable HTTP, against the weather server run in a subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_support import SERVER_SCRIPT, CallLog

from praisonlike import Agent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls
from praisonlike.tools.mcp import MCPServerError, MCPTools

pytest.importorskip("mcp", reason="needs the mcp package (praisonlike[mcp])")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_listening(port: int, process: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the HTTP MCP server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail("the HTTP MCP server did not start listening within 60 s")


@pytest.fixture(scope="module")
def http_log(tmp_path_factory: pytest.TempPathFactory) -> CallLog:
    return CallLog(tmp_path_factory.mktemp("mcp-http") / "calls.jsonl")


@pytest.fixture(scope="module")
def http_url(http_log: CallLog) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "WEATHER_CALL_LOG": str(http_log.path)}
    process = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT), "--http", str(port)],
        env=env,
        cwd=Path(SERVER_SCRIPT).parent,
    )
    try:
        wait_until_listening(port, process, time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def test_agent_calls_an_mcp_tool_over_http_after_approval(
    server: LocalLLMServer, llm: dict[str, Any], http_url: str, http_log: CallLog
) -> None:
    asked: list[str] = []

    def approve(name: str, arguments: dict[str, Any]) -> bool:
        asked.append(name)
        return True

    with MCPTools(url=http_url, requires_approval=True) as tools:
        assert "get_weather" in [tool.name for tool in tools.as_tools()]
        assert all(tool.requires_approval for tool in tools.as_tools())
        server.extend(
            [ToolCalls([Call("get_weather", {"city": "Quito"}, id="h1")]), Text("Sunny.")]
        )
        agent = Agent(instructions="Weather.", llm=llm, tools=[tools], approval=approve)
        assert agent.chat("Weather in Quito?") == "Sunny."

    message = [m for m in server.requests[1].messages if m["role"] == "tool"][0]
    assert message == {"role": "tool", "tool_call_id": "h1", "content": "Quito: sunny, 21c"}
    assert asked == ["get_weather"]
    assert http_log.entries()[-1]["arguments"] == {"city": "Quito", "unit": "c"}


def test_an_unreachable_url_is_an_mcp_server_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(MCPServerError) as caught:
        MCPTools(url=url, startup_timeout=20).as_tools()
    assert caught.value.server == url
