"""Helpers shared by the MCP tests (imported by name: this folder is on sys.path)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from praisonlike.tools.mcp import MCPTools

SERVER_SCRIPT = Path(__file__).with_name("weather_server.py")


class CallLog:
    """The JSON lines the weather server appends for each tool call."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line]

    def tools(self) -> list[str]:
        return [entry["tool"] for entry in self.entries()]

MakeTools = Callable[..., MCPTools]
