"""Tools the agent can call: Python functions, raw JSON-schema tools, and their registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike._runtime.lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "ToolArgumentError": "praisonlike.tools.arguments",
    "ParsedDocstring": "praisonlike.tools.docstrings",
    "parse_docstring": "praisonlike.tools.docstrings",
    "AnyTool": "praisonlike.tools.python_tool",
    "FunctionTool": "praisonlike.tools.python_tool",
    "as_tool": "praisonlike.tools.python_tool",
    "function_tool": "praisonlike.tools.python_tool",
    "tool": "praisonlike.tools.python_tool",
    "RawTool": "praisonlike.tools.raw_tool",
    "ToolRegistry": "praisonlike.tools.registry",
    "NO_RESULT": "praisonlike.tools.results",
    "format_tool_result": "praisonlike.tools.results",
    "tool_exception_message": "praisonlike.tools.results",
    "unknown_tool_message": "praisonlike.tools.results",
    "RunContext": "praisonlike.tools.run_context",
}

if TYPE_CHECKING:
    from praisonlike.tools.arguments import ToolArgumentError
    from praisonlike.tools.docstrings import ParsedDocstring, parse_docstring
    from praisonlike.tools.python_tool import AnyTool, FunctionTool, as_tool, function_tool, tool
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

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
