"""Tools served by an MCP (Model Context Protocol) server: ``Agent(tools=[MCPTools(...)])``.

Needs the optional ``mcp`` package (``pip install 'praisonlike[mcp]'``); it is
imported when a server is first started, not when this module is.
"""

from praisonlike.tools.mcp.connection import MCPServerError
from praisonlike.tools.mcp.content import block_text, result_text
from praisonlike.tools.mcp.server_spec import HttpServer, ServerSpec, StdioServer
from praisonlike.tools.mcp.toolset import MCPTools

__all__ = [
    "HttpServer",
    "MCPServerError",
    "MCPTools",
    "ServerSpec",
    "StdioServer",
    "block_text",
    "result_text",
]
