"""The parts of MCP support that need no server: arguments, result text, the registry hook."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from praisonlike.errors import ConfigurationError
from praisonlike.tools import RawTool, ToolRegistry
from praisonlike.tools.mcp import HttpServer, MCPTools, StdioServer
from praisonlike.tools.mcp.server_spec import server_spec
from praisonlike.tools.registry import ToolProvider
from praisonlike.tools.results import NO_RESULT


def spec(command: Any = None, **options: Any) -> Any:
    options.setdefault("url", None)
    options.setdefault("env", None)
    options.setdefault("cwd", None)
    return server_spec(command, **options)


def test_a_command_string_is_split_like_a_shell() -> None:
    parsed = spec("python 'my server.py' --flag", env={"A": 1}, cwd="/srv")
    assert parsed == StdioServer(("python", "my server.py", "--flag"), {"A": "1"}, "/srv")
    assert parsed.label == "python 'my server.py' --flag"
    assert spec(["node", "server.js"]).command == ("node", "server.js")


def test_a_url_names_an_http_server() -> None:
    assert spec(url="http://127.0.0.1:8000/mcp") == HttpServer("http://127.0.0.1:8000/mcp")


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"command": "python s.py", "url": "http://h/mcp"},
        {"command": ""},
        {"command": []},
        {"command": ["python", ""]},
        {"url": "ws://h/mcp"},
        {"url": "http://h/mcp", "env": {"A": "1"}},
        {"url": "http://h/mcp", "cwd": "/tmp"},
    ],
)
def test_unusable_server_arguments_are_configuration_errors(arguments: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        MCPTools(**arguments)


@pytest.mark.parametrize(
    "options",
    [{"timeout": 0}, {"startup_timeout": 0}, {"startup_timeout": -1}, {"requires_approval": "x"}],
)
def test_bad_options_are_configuration_errors(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        MCPTools("python s.py", **options)


def test_mcp_tools_is_a_tool_provider_and_builds_lazily() -> None:
    tools = MCPTools("/definitely/not/a/server")
    assert isinstance(tools, ToolProvider)
    assert repr(tools) == "MCPTools('/definitely/not/a/server')"
    assert tools.server == "/definitely/not/a/server"
    tools.close()


class Provider:
    def __init__(self, *tools: Any, fail: int = 0) -> None:
        self.tools = list(tools)
        self.calls = 0
        self.fail = fail

    def as_tools(self) -> list[Any]:
        self.calls += 1
        if self.calls <= self.fail:
            raise RuntimeError("server down")
        return self.tools


def ping() -> str:
    """Ping."""
    return "pong"


def echo(text: str) -> str:
    """Echo."""
    return text


def test_registry_expands_a_provider_on_first_lookup_only() -> None:
    provider = Provider(ping, {"name": "raw", "parameters": {"type": "object"}})
    registry = ToolRegistry([echo, provider])
    assert provider.calls == 0
    assert registry.names == ["echo", "ping", "raw"]
    assert isinstance(registry.get("raw"), RawTool)
    assert len(registry) == 3 and "ping" in registry
    assert [s["function"]["name"] for s in registry.schemas()] == ["echo", "ping", "raw"]
    assert provider.calls == 1
    assert registry.providers == [provider]


def test_a_failing_provider_is_retried_at_the_next_lookup() -> None:
    provider = Provider(ping, fail=1)
    registry = ToolRegistry([provider])
    with pytest.raises(RuntimeError, match="server down"):
        registry.schemas()
    assert registry.names == ["ping"]
    assert provider.calls == 2


def test_provider_tools_join_subsets_and_extended_registries() -> None:
    provider = Provider(ping, echo)
    registry = ToolRegistry([provider])
    assert registry.subset(["echo"]).names == ["echo"]
    bigger = ToolRegistry([Provider(ping)]).with_tools([echo])
    assert bigger.names == ["echo", "ping"]
    with pytest.raises(ConfigurationError, match="'ping'"):
        ToolRegistry([ping, Provider(ping)]).schemas()


def test_a_provider_class_is_not_a_provider() -> None:
    with pytest.raises(TypeError):
        ToolRegistry([Provider])


class TestResultText:
    """How call results become the text of a tool message."""

    @pytest.fixture(autouse=True)
    def _types(self) -> None:
        self.types = pytest.importorskip("mcp_types")

    def result(self, *blocks: Any, structured: Any = None) -> Any:
        return self.types.CallToolResult(content=list(blocks), structured_content=structured)

    def test_text_blocks_are_joined_by_newlines(self) -> None:
        from praisonlike.tools.mcp import result_text

        text = self.types.TextContent
        assert result_text(self.result(text(text="a"), text(text="b"))) == "a\nb"

    def test_binary_content_becomes_a_placeholder(self) -> None:
        from praisonlike.tools.mcp import result_text

        data = base64.b64encode(b"x" * 100).decode()
        image = self.types.ImageContent(data=data, mime_type="image/jpeg")
        audio = self.types.AudioContent(data=data, mime_type="audio/wav")
        blob = self.types.EmbeddedResource(
            resource=self.types.BlobResourceContents(uri="file:///a.bin", blob=data)
        )
        assert result_text(self.result(image, audio, blob)).splitlines() == [
            "[image: image/jpeg, 100 bytes]",
            "[audio: audio/wav, 100 bytes]",
            "[resource: file:///a.bin, unknown type, 100 bytes]",
        ]

    def test_resources_give_their_text_or_a_link(self) -> None:
        from praisonlike.tools.mcp import result_text

        embedded = self.types.EmbeddedResource(
            resource=self.types.TextResourceContents(uri="file:///n.txt", text="notes")
        )
        link = self.types.ResourceLink(name="report", uri="file:///r.pdf")
        assert result_text(self.result(embedded, link)) == (
            "notes\n[resource link: report, file:///r.pdf]"
        )

    def test_structured_content_is_json_when_there_are_no_blocks(self) -> None:
        from praisonlike.tools.mcp import result_text

        assert result_text(self.result(structured={"t": 21, "city": "Zürich"})) == (
            '{"t": 21, "city": "Zürich"}'
        )
        assert result_text(self.result()) == NO_RESULT
