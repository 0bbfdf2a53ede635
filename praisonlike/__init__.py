"""praisonlike: a single-agent LLM SDK.

``import praisonlike`` is light: names are imported on first access, and
LiteLLM is imported only when a model is first called (or by :func:`warmup`).
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import TYPE_CHECKING, Any

logging.getLogger("praisonlike").addHandler(logging.NullHandler())

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Agent": "praisonlike.agent.agent",
    "LLMConfig": "praisonlike.llm.config",
    "ExecutionConfig": "praisonlike.llm.config",
    "ContextConfig": "praisonlike.context",
    "CancelToken": "praisonlike.cancellation",
    "RunResult": "praisonlike.result",
    "TerminationReason": "praisonlike.result",
    "ToolCallRecord": "praisonlike.result",
    "ToolMode": "praisonlike.result",
    "Usage": "praisonlike.llm.usage",
    "UsageTracker": "praisonlike.llm.usage",
    "RunContext": "praisonlike.tools.run_context",
    "FunctionTool": "praisonlike.tools.function_tool",
    "tool": "praisonlike.tools.function_tool",
    "warmup": "praisonlike.llm.backend",
    "HookEvent": "praisonlike.hooks",
    "HookContext": "praisonlike.hooks",
    "HookResult": "praisonlike.hooks",
    "GuardrailConfig": "praisonlike.agent.guardrails",
    "GuardrailResult": "praisonlike.agent.guardrails",
    "MemoryConfig": "praisonlike.agent.memory",
    "OTelTracer": "praisonlike.tracing",
}

if TYPE_CHECKING:
    from praisonlike.agent.agent import Agent
    from praisonlike.agent.guardrails import GuardrailConfig, GuardrailResult
    from praisonlike.agent.memory import MemoryConfig
    from praisonlike.cancellation import CancelToken
    from praisonlike.context import ContextConfig
    from praisonlike.hooks import HookContext, HookEvent, HookResult
    from praisonlike.llm.backend import warmup
    from praisonlike.llm.config import ExecutionConfig, LLMConfig
    from praisonlike.llm.usage import Usage, UsageTracker
    from praisonlike.result import RunResult, TerminationReason, ToolCallRecord, ToolMode
    from praisonlike.tools.function_tool import FunctionTool, tool
    from praisonlike.tools.run_context import RunContext
    from praisonlike.tracing import OTelTracer

__all__ = [
    "Agent",
    "GuardrailConfig",
    "GuardrailResult",
    "HookContext",
    "HookEvent",
    "HookResult",
    "MemoryConfig",
    "OTelTracer",
    "CancelToken",
    "ContextConfig",
    "ExecutionConfig",
    "FunctionTool",
    "LLMConfig",
    "RunContext",
    "RunResult",
    "TerminationReason",
    "ToolCallRecord",
    "ToolMode",
    "Usage",
    "UsageTracker",
    "tool",
    "warmup",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'praisonlike' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
