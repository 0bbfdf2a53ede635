"""What a turn returns: :class:`RunResult` and its parts."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from praisonlike.models.usage import Usage
from praisonlike.run_enums import TerminationReason, ToolMode


class ToolCallRecord(BaseModel):
    """One tool call of a turn, with its outcome."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: dict[str, Any] | str
    result: str
    is_error: bool = False
    latency: float = 0.0


class RunResult(BaseModel):
    """The outcome of one turn.

    ``output`` is the final answer text (or, with structured output, the
    validated object). ``usage`` sums every LLM call of the turn, tool rounds
    and recovery calls included.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_id: str
    output: Any
    termination_reason: TerminationReason
    iterations: int = 0
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    latency: float = 0.0
    model: str | None = None
    tool_mode: ToolMode = ToolMode.NATIVE
    skill: str | None = None
    retries: int = 0
    fallbacks: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def text(self) -> str:
        """The answer as text: JSON for structured output (``output_pydantic`` or
        ``output_json``)."""
        if isinstance(self.output, str):
            return self.output
        if isinstance(self.output, BaseModel):
            return self.output.model_dump_json()
        return json.dumps(self.output, ensure_ascii=False, default=str)

    @property
    def cost(self) -> float | None:
        return self.usage.cost


__all__ = ["RunResult", "TerminationReason", "ToolCallRecord", "ToolMode"]
