"""praisonlike: a single-agent LLM SDK.

``import praisonlike`` is light: names are imported on first access, and
LiteLLM is imported only when a model is first called (or by :func:`warmup`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike.lazy_exports import lazy_exports

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Agent": "praisonlike.agent.agent",
    "LLMConfig": "praisonlike.llm.config",
    "ExecutionConfig": "praisonlike.llm.config",
    "ContextConfig": "praisonlike.context.config",
    "CancelToken": "praisonlike.cancellation",
    "RunResult": "praisonlike.result",
    "TerminationReason": "praisonlike.result",
    "ToolCallRecord": "praisonlike.result",
    "ToolMode": "praisonlike.result",
    "Usage": "praisonlike.llm.usage",
    "UsageTracker": "praisonlike.llm.usage",
    "RunContext": "praisonlike.tools.run_context",
    "FunctionTool": "praisonlike.tools.python_tool",
    "tool": "praisonlike.tools.python_tool",
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
    from praisonlike.context.config import ContextConfig
    from praisonlike.hooks import HookContext, HookEvent, HookResult
    from praisonlike.llm.backend import warmup
    from praisonlike.llm.config import ExecutionConfig, LLMConfig
    from praisonlike.llm.usage import Usage, UsageTracker
    from praisonlike.result import RunResult, TerminationReason, ToolCallRecord, ToolMode
    from praisonlike.tools.python_tool import FunctionTool, tool
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
