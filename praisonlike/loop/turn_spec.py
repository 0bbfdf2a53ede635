"""What the tool loop is given and what it gives back.

:class:`TurnSpec` is everything one turn needs, built by the agent and
carried by its :class:`~praisonlike.loop.run.Run`;
:class:`TurnOutcome` is the loop's result. The seams (context, hooks) are
small protocols so the loop can be driven without an Agent; answer checks
are in :mod:`praisonlike.loop.answer_checks`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from praisonlike._runtime.cancellation import CancelToken
from praisonlike.loop.accounting import RunAccounting
from praisonlike.models.config import ExecutionConfig, LLMConfig

if TYPE_CHECKING:
    from praisonlike.loop.answer_checks import AnswerCheck
    from praisonlike.result import RunResult
    from praisonlike.run_enums import ToolMode


class ContextSeam(Protocol):
    """What the loop needs of the context manager (see :mod:`praisonlike.context`)."""

    summary_model: str | LLMConfig | None

    def route(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def prepare(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def emergency(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def count(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> int: ...

    @property
    def window(self) -> int:
        """The model's input budget in tokens (its context window minus the reserve)."""
        ...


class HookSeam(Protocol):
    """The turn's hooks (see :class:`praisonlike.hooks.HookRunner`)."""

    @property
    def points(self) -> AbstractSet[Any]:
        """The events with hooks, as one live set (the loop reads it before building a
        hook call, and skips the others at no cost)."""
        ...

    def has(self, event: Any) -> bool:
        """Whether ``event`` has hooks."""
        ...

    def steps(self, context: Any) -> Generator[Any, None, Any]:
        """Run the hooks of ``context.event``; returns their merged HookResult."""
        ...


@dataclass
class TurnSpec:
    """Everything one turn needs; built by the agent, consumed by the loop.

    ``emit_events=False`` when nobody sees the turn's events (no observer, and
    the caller does not read them): the loop then builds none and yields only
    commands; the turn's outcome is the same.
    """

    run_id: str
    models: Sequence[LLMConfig]
    prefix: list[dict[str, Any]]
    new_messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_mode: ToolMode
    stream: bool
    max_iterations: int
    execution: ExecutionConfig
    accounting: RunAccounting
    context: ContextSeam
    hooks: HookSeam | None = None
    prompt: str = ""
    deadline: float | None = None
    cancel: CancelToken | None = None
    drain_steering: Callable[[], list[str]] | None = None
    answer_check: AnswerCheck | None = None
    preset_answer: str | None = None
    skill: str | None = None
    call_params: dict[str, Any] = field(default_factory=dict)
    answer_schema: dict[str, Any] | None = None
    """The JSON schema a structured answer must match (``None``: a text answer)."""
    started: float = field(default_factory=time.monotonic)
    emit_events: bool = True


@dataclass
class TurnOutcome:
    """The loop's result: the RunResult, the turn's new messages, and the error if it failed."""

    result: RunResult
    new_messages: list[dict[str, Any]]
    error: BaseException | None = None
