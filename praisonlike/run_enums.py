"""The enums of a run: how its tool calls travel and why it ended.

Kept apart from :mod:`praisonlike.result` (pydantic) so that code deciding a
turn's mode does not pay for importing pydantic; both names are re-exported
there.
"""

from __future__ import annotations

from enum import Enum


class TerminationReason(str, Enum):
    """Why a turn ended. Every ``RunResult`` and ``run_finished`` event carries one."""

    COMPLETED = "completed"
    MAX_ITERATIONS = "max_iterations"
    BUDGET_EXCEEDED = "budget_exceeded"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    ERROR = "error"
    GUARDRAIL_BLOCKED = "guardrail_blocked"
    LENGTH = "length"
    """The model stopped at its output-token limit (``max_tokens``); the answer is cut short."""


class ToolMode(str, Enum):
    """How tool calls travel: OpenAI ``tool_calls`` or JSON text (ReAct)."""

    NATIVE = "native"
    REACT = "react"
