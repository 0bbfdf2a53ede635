"""Fixtures of the MCP tests: the weather server script, its call log, MCPTools on it."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_support import SERVER_SCRIPT, CallLog, MakeTools

from praisonlike.tools.mcp import MCPTools


@pytest.fixture
def call_log(tmp_path: Path) -> CallLog:
    return CallLog(tmp_path / "calls.jsonl")


@pytest.fixture
def make_tools(call_log: CallLog) -> Iterator[MakeTools]:
    """``MCPTools`` on the stdio weather server logging to ``call_log``; closed at teardown."""
    made: list[MCPTools] = []

    def make(**options: Any) -> MCPTools:
        tools = MCPTools(
            [sys.executable, str(SERVER_SCRIPT)],
            env={"WEATHER_CALL_LOG": str(call_log.path)},
            **options,
        )
        made.append(tools)
        return tools

    yield make
    for tools in made:
        tools.close()


@pytest.fixture(scope="module")
def shared_log(tmp_path_factory: pytest.TempPathFactory) -> CallLog:
    return CallLog(tmp_path_factory.mktemp("mcp") / "calls.jsonl")


@pytest.fixture(scope="module")
def weather(shared_log: CallLog) -> Iterator[MCPTools]:
    """One stdio weather server shared by the tests of a module that leave it running."""
    tools = MCPTools(
        shlex.join([sys.executable, str(SERVER_SCRIPT)]),
        env={"WEATHER_CALL_LOG": str(shared_log.path)},
    )
    yield tools
    tools.close()
