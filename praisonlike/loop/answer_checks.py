"""Answer checks: judging a turn's final answer before it is returned.

A check accepts the answer (possibly replacing it with a parsed object) or
sends feedback for another round. Structured output, guardrails and
self-reflection are checks; the tool loop runs them in a chain.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from praisonlike.loop.commands import ModelReply


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
Ask = Callable[..., Generator[Any, Any, "ModelReply"]]

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
