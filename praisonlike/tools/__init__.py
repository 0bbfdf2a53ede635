"""Tools the agent can call: Python functions, raw JSON-schema tools, and their registry."""

from praisonlike.tools.arguments import ToolArgumentError
from praisonlike.tools.docstrings import ParsedDocstring, parse_docstring
from praisonlike.tools.function_tool import AnyTool, FunctionTool, as_tool, function_tool, tool
from praisonlike.tools.raw_tool import RawTool
from praisonlike.tools.registry import ToolRegistry
from praisonlike.tools.results import (
    NO_RESULT,
    format_tool_result,
    tool_exception_message,
    unknown_tool_message,
)
from praisonlike.tools.run_context import RunContext

__all__ = [
    "NO_RESULT",
    "AnyTool",
    "FunctionTool",
    "ParsedDocstring",
    "RawTool",
    "RunContext",
    "ToolArgumentError",
    "ToolRegistry",
    "as_tool",
    "format_tool_result",
    "function_tool",
    "parse_docstring",
    "tool",
    "tool_exception_message",
    "unknown_tool_message",
]
