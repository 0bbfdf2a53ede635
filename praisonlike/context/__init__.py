"""Context budgeting: count tokens, route each request, compact when needed.

The pure core the agent's loop calls before every model request::

    manager = ContextManager("gpt-4o-mini", ContextConfig())
    prepared = manager.prepare(messages, tools)
    if prepared.summary_request is not None:      # strategy "summarise"
        prepared = prepared.finish(call_summary_model(prepared.summary_request))
    send(prepared.messages)

See ``docs/context.md`` for the routing rules and the invariants.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike._runtime.lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "STRATEGIES": "praisonlike.context.config",
    "ContextConfig": "praisonlike.context.config",
    "StrategyName": "praisonlike.context.config",
    "check_invariants": "praisonlike.context.invariants",
    "Budgets": "praisonlike.context.manager",
    "ContextManager": "praisonlike.context.manager",
    "CompactionReport": "praisonlike.context.prepared",
    "Prepared": "praisonlike.context.prepared",
    "Route": "praisonlike.context.router",
    "choose_route": "praisonlike.context.router",
    "PLACEHOLDER": "praisonlike.context.strategies",
    "drop_oldest_tools": "praisonlike.context.strategies",
    "insurance_cut": "praisonlike.context.strategies",
    "sliding_window": "praisonlike.context.strategies",
    "truncate": "praisonlike.context.strategies",
    "SUMMARY_ACK": "praisonlike.context.summary",
    "SUMMARY_PREFIX": "praisonlike.context.summary",
    "apply_summary": "praisonlike.context.summary",
    "build_summary_request": "praisonlike.context.summary",
    "plan_summary": "praisonlike.context.summary",
    "summarise": "praisonlike.context.summary",
    "CounterStats": "praisonlike.context.tokens",
    "TokenCounter": "praisonlike.context.tokens",
    "encoding_for_model": "praisonlike.context.tokens",
    "truncate_tool_output": "praisonlike.context.truncation",
    "Conversation": "praisonlike.context.turns",
    "split_turns": "praisonlike.context.turns",
    "DEFAULT_CONTEXT_WINDOW": "praisonlike.context.window",
    "ContextWindowUnknownWarning": "praisonlike.context.window",
    "context_window": "praisonlike.context.window",
}

if TYPE_CHECKING:
    from praisonlike.context.config import STRATEGIES, ContextConfig, StrategyName
    from praisonlike.context.invariants import check_invariants
    from praisonlike.context.manager import Budgets, ContextManager
    from praisonlike.context.prepared import CompactionReport, Prepared
    from praisonlike.context.router import Route, choose_route
    from praisonlike.context.strategies import (
        PLACEHOLDER,
        drop_oldest_tools,
        insurance_cut,
        sliding_window,
        truncate,
    )
    from praisonlike.context.summary import (
        SUMMARY_ACK,
        SUMMARY_PREFIX,
        apply_summary,
        build_summary_request,
        plan_summary,
        summarise,
    )
    from praisonlike.context.tokens import CounterStats, TokenCounter, encoding_for_model
    from praisonlike.context.truncation import truncate_tool_output
    from praisonlike.context.turns import Conversation, split_turns
    from praisonlike.context.window import (
        DEFAULT_CONTEXT_WINDOW,
        ContextWindowUnknownWarning,
        context_window,
    )

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "PLACEHOLDER",
    "STRATEGIES",
    "SUMMARY_ACK",
    "SUMMARY_PREFIX",
    "Budgets",
    "CompactionReport",
    "ContextConfig",
    "ContextManager",
    "ContextWindowUnknownWarning",
    "Conversation",
    "CounterStats",
    "Prepared",
    "Route",
    "StrategyName",
    "TokenCounter",
    "apply_summary",
    "build_summary_request",
    "check_invariants",
    "choose_route",
    "context_window",
    "drop_oldest_tools",
    "encoding_for_model",
    "insurance_cut",
    "plan_summary",
    "sliding_window",
    "split_turns",
    "summarise",
    "truncate",
    "truncate_tool_output",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
