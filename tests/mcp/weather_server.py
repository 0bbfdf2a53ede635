"""A real MCP server for the tests, built with the MCP SDK's own server class.

    python weather_server.py               serve over stdio
    python weather_server.py --http PORT   serve streamable HTTP on 127.0.0.1:PORT/mcp

With ``WEATHER_CALL_LOG`` set, every tool call appends one JSON line
``{"tool", "arguments", "pid"}`` to that file before doing anything else, so a
test can tell whether (and by which process) a tool ran.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

PNG_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(24))

server = MCPServer("weather", log_level="WARNING")


def record(tool: str, **arguments: Any) -> None:
    path = os.environ.get("WEATHER_CALL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": tool, "arguments": arguments, "pid": os.getpid()}) + "\n")


@server.tool()
def get_weather(city: str, unit: str = "c") -> str:
    """Current weather for a city."""
    record("get_weather", city=city, unit=unit)
    return f"{city}: sunny, 21{unit}"


@server.tool()
def forecast(city: str, days: int) -> dict[str, Any]:
    """Daily highs for the next days."""
    record("forecast", city=city, days=days)
    return {"city": city, "highs": [20 + day for day in range(days)]}


@server.tool()
def station_report(station: str) -> str:
    """Report of a weather station; every station is offline."""
    record("station_report", station=station)
    raise ToolError(f"station {station} is offline")


@server.tool()
def radar() -> Image:
    """The radar picture."""
    record("radar")
    return Image(data=PNG_BYTES, format="png")


@server.tool(name="alerts.active")
def active_alerts(region: str) -> str:
    """Active alerts of a region (a dotted name, which model providers refuse)."""
    record("alerts.active", region=region)
    return f"no alerts in {region}"


@server.tool()
async def slow(seconds: float) -> str:
    """Answers after a delay."""
    record("slow", seconds=seconds)
    await anyio.sleep(seconds)
    return "finally"


@server.tool()
def crash() -> str:
    """Kills the server process mid-call."""
    record("crash")
    sys.stdout.flush()
    os._exit(3)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
