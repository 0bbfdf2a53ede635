"""What the tool loop is given and what it gives back.

:class:`TurnSpec` is everything one turn needs, built by the agent;
:class:`TurnOutcome` is the loop's result. The seams (context, hooks, answer
checks) are small protocols so the loop can be driven without an Agent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from praisonlike.cancellation import CancelToken
from praisonlike.llm.accounting import RunAccounting
from praisonlike.llm.config import ExecutionConfig, LLMConfig
from praisonlike.llm.protocol import ModelReply
from praisonlike.result import RunResult, ToolMode


class ContextSeam(Protocol):
    """What the loop needs of the context manager (see :mod:`praisonlike.context`)."""

    summary_model: str | None

    def route(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def prepare(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def emergency(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def count(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> int: ...


class HookSeam(Protocol):
    """Which hook events have hooks (the loop skips the others at no cost)."""

    def has(self, event: Any) -> bool: ...


@dataclass(frozen=True)
class Accept:
    """The answer passes; ``output`` is what the turn returns (text or a parsed object)."""

    output: Any


@dataclass(frozen=True)
class Revise:
    """The answer fails; ``feedback`` goes back to the model as a user message."""

    feedback: str


#: Makes one model call outside the conversation: ``(messages, purpose, model=None)``.
#: It is a generator to ``yield from`` inside a check; accounting, events, retries
#: and fallbacks apply to it as to any call of the turn.
Ask = Callable[..., Generator[Any, Any, ModelReply]]

#: Judges an answer: ``check(answer, ask)`` returns Accept or Revise, or a generator
#: giving one (``yield from`` it) when the check needs model calls through ``ask``.
#: A check raises (a typed error) to fail the turn when its retries are spent.
AnswerCheck = Callable[[str, Ask], "Accept | Revise | Generator[Any, Any, Accept | Revise]"]


def run_check(check: AnswerCheck, answer: str, ask: Ask) -> Generator[Any, Any, Accept | Revise]:
    """Run one check, whether it answers at once or needs model calls."""
    verdict = check(answer, ask)
    if isinstance(verdict, Accept | Revise):
        return verdict
    return (yield from verdict)


def chain_checks(checks: Sequence[AnswerCheck]) -> AnswerCheck | None:
    """One check running ``checks`` in order; the first Revise wins."""
    if not checks:
        return None

    def check(answer: str, ask: Ask) -> Generator[Any, Any, Accept | Revise]:
        output: Any = answer
        for stage in checks:
            verdict = yield from run_check(stage, answer, ask)
            if isinstance(verdict, Revise):
                return verdict
            if verdict.output is not answer:
                output = verdict.output
        return Accept(output)

    return check


@dataclass
class TurnSpec:
    """Everything one turn needs; built by the agent, consumed by the loop."""

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
    agent: Any = None
    prompt: str = ""
    deadline: float | None = None
    cancel: CancelToken | None = None
    drain_steering: Callable[[], list[str]] | None = None
    answer_check: AnswerCheck | None = None
    max_revisions: int = 10
    preset_answer: str | None = None
    call_params: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)


@dataclass
class TurnOutcome:
    """The loop's result: the RunResult, the turn's new messages, and the error if it failed."""

    result: RunResult
    new_messages: list[dict[str, Any]]
    error: BaseException | None = None
