"""The tool loop, written once as a step machine.

``ToolLoop.steps()`` is a generator: it yields events and commands
(:mod:`praisonlike.loop.commands`) and is sent each command's outcome by a
driver (:mod:`praisonlike.loop.drivers`). It owns every decision of a turn:
model rounds (see :mod:`praisonlike.loop.model_round`), when a round's native or
ReAct tool calls run (running them: :mod:`praisonlike.loop.tool_rounds`), the
``max_iterations`` ending, answer checks (structured output,
guardrails, reflection), the turn hooks, and the result. A ReAct reply that
tries to call an offered tool and fails (a schema echo, unreadable arguments,
broken JSON) is answered with a correction and counts as a tool round; after
:data:`~praisonlike.react.call_faults.MAX_CALL_CORRECTIONS` corrections the next
round is the final one, and a final answer that is still a call becomes
``NO_ANSWER_TEXT``. A ReAct call from nowhere is refused once
(:mod:`praisonlike.loop.invented_calls`). A reply cut at ``max_tokens`` ends the
turn as ``TerminationReason.LENGTH``. It returns a :class:`TurnOutcome`.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from praisonlike.errors import PraisonlikeError, RunCancelled, RunTimeout
from praisonlike.events import (
    TOOL_CALL_FAULT,
    ErrorEvent,
    RunFinished,
    TextDelta,
)
from praisonlike.hooks import HookPoint
from praisonlike.loop.answer_checks import Accept, Revise, run_check
from praisonlike.loop.commands import ModelReply
from praisonlike.loop.invented_calls import InventedCalls
from praisonlike.loop.model_round import HookAnswered, Stop
from praisonlike.loop.tool_rounds import ToolRounds
from praisonlike.loop.turn_spec import TurnOutcome
from praisonlike.react.call_faults import (
    MAX_CALL_CORRECTIONS,
    CallFault,
    correction_message,
    find_call_fault,
)
from praisonlike.result import RunResult, TerminationReason, ToolMode

FINAL_ANSWER_PROMPT = (
    "You have used the maximum number of tool calls for this request. Do not call any "
    "more tools: answer now, as well as you can, from what you already have."
)
NO_ANSWER_TEXT = "(The model gave no answer after reaching the tool-call limit.)"


class ToolLoop(ToolRounds):
    """One turn's step machine. Create one per turn; iterate ``steps()`` once."""

    def steps(self) -> Generator[Any, Any, TurnOutcome]:
        """The turn, round after round, until an answer, the iteration limit or an error.

        One generator frame for the whole turn (rounds are not a frame of their
        own): every event and command climbs as few frames as possible to the
        driver.
        """
        try:
            if HookPoint.BEFORE_AGENT in self._hook_points:
                yield from self._hook(HookPoint.BEFORE_AGENT, prompt=self.spec.prompt)
            if self.spec.preset_answer is not None:
                return (
                    yield from self._answer_unasked(
                        self.spec.preset_answer, TerminationReason.GUARDRAIL_BLOCKED
                    )
                )
            tool_rounds = 0
            revisions = 0
            corrections = 0
            invented = InventedCalls(
                self.spec.prefix, self._messages, react=self.spec.tool_mode is ToolMode.REACT
            )
            tools_ended = False
            while True:
                self._iteration += 1
                out_of_rounds = not tools_ended and tool_rounds >= self.spec.max_iterations
                final_round = out_of_rounds or tools_ended
                refused = invented.pending  # the model answers a refusal: no tools offered
                text_only = final_round or refused
                if out_of_rounds:
                    self._messages.append({"role": "user", "content": FINAL_ANSWER_PROMPT})
                try:
                    reply = yield from self._model_round(
                        self._iteration, tools_enabled=not text_only
                    )
                except HookAnswered as answered:
                    self._messages.append({"role": "assistant", "content": answered.output})
                    return (
                        yield from self._answer_unasked(
                            answered.output, TerminationReason.COMPLETED
                        )
                    )
                calls = [] if final_round else self._tool_calls_of(reply)
                if refused:
                    calls = invented.kept(calls)
                elif refusal := invented.refuse(calls):
                    tool_rounds += 1
                    yield from self._correct(
                        reply, refusal, "a call with values from nowhere was not run"
                    )
                    continue
                if calls:
                    tool_rounds += 1
                    tools_ended = yield from self._tool_round(reply, calls)
                    continue
                fault = None if text_only else self._call_fault(reply)
                if fault is not None:
                    corrections += 1
                    tool_rounds += 1
                    if corrections >= MAX_CALL_CORRECTIONS:
                        tool_rounds = max(tool_rounds, self.spec.max_iterations)
                    yield from self._correct(
                        reply,
                        correction_message(fault, self.spec.tools),
                        f"{fault.kind} for tool {fault.tool}; asked the model to call it again",
                    )
                    continue
                answer = reply.content
                if text_only:
                    attempt = self._tool_calls_of(reply) or self._call_fault(reply)
                    answer = NO_ANSWER_TEXT if attempt or not answer.strip() else answer.strip()
                self._messages.append({"role": "assistant", "content": answer})
                verdict: Accept | Revise = Accept(answer)
                if (
                    self.spec.answer_check is not None
                    and revisions < self.spec.execution.max_revisions
                ):
                    verdict = yield from run_check(self.spec.answer_check, answer, self._ask)
                if isinstance(verdict, Revise):
                    revisions += 1
                    self._messages.append({"role": "user", "content": verdict.feedback})
                    continue
                reason = TerminationReason.COMPLETED
                if reply.finish_reason == "length":
                    reason = TerminationReason.LENGTH
                elif out_of_rounds:
                    reason = TerminationReason.MAX_ITERATIONS
                return (yield from self._finish(verdict.output, reason))
        except Stop as stop:
            return (yield from self._fail(stop.reason, stop.error))
        except RunCancelled as cancelled:  # stopped waiting for user code
            return (yield from self._fail(TerminationReason.CANCELLED, cancelled))
        except RunTimeout as timeout:  # stopped waiting for user code
            return (yield from self._fail(TerminationReason.TIMEOUT, timeout))
        except PraisonlikeError as error:
            return (yield from self._fail(TerminationReason.ERROR, error))

    def _call_fault(self, reply: ModelReply) -> CallFault | None:
        """A ReAct reply trying to call an offered tool and failing (unless cut at max_tokens)."""
        if self.spec.tool_mode is not ToolMode.REACT or reply.finish_reason == "length":
            return None
        return find_call_fault(reply.content, self._offered)

    def _correct(
        self, reply: ModelReply, observation: dict[str, str], note: str
    ) -> Generator[Any, Any, None]:
        self._messages.append({"role": "assistant", "content": reply.content})
        self._messages.append(observation)
        if self._emits:
            yield ErrorEvent(
                run_id=self.spec.run_id,
                error_type=TOOL_CALL_FAULT,
                message=note,
                fatal=False,
            )

    def _ask(
        self, messages: list[dict[str, Any]], purpose: str, model: str | None = None
    ) -> Generator[Any, Any, ModelReply]:
        """A side call for an answer check (judge, reflection), accounted like any other."""
        return (
            yield from self._model_round(
                self._iteration, request=messages, purpose=purpose, model=model
            )
        )

    # -- the end -----------------------------------------------------------------------

    def _result(
        self, output: Any, reason: TerminationReason, error: str | None = None
    ) -> RunResult:
        return RunResult(
            run_id=self.spec.run_id,
            output=output,
            termination_reason=reason,
            iterations=self._iteration,
            tool_calls=list(self._tool_records),
            usage=self.spec.accounting.usage,
            latency=time.monotonic() - self.spec.started,
            model=self._llm.model,
            tool_mode=self.spec.tool_mode,
            retries=self._retries,
            fallbacks=list(self._fallbacks),
            error=error,
            skill=self.spec.skill,
        )

    def _answer_unasked(
        self, output: str, reason: TerminationReason
    ) -> Generator[Any, Any, TurnOutcome]:
        """An answer no model gave (a preset response, a hook's), shown as one ``text_delta``.

        Also when the turn does not stream: no ``llm_response`` carries this text.
        """
        if output and self._emits:
            yield TextDelta(run_id=self.spec.run_id, iteration=self._iteration, text=output)
        return (yield from self._finish(output, reason))

    def _finish(self, output: Any, reason: TerminationReason) -> Generator[Any, Any, TurnOutcome]:
        if reason is TerminationReason.GUARDRAIL_BLOCKED:
            self._messages.append({"role": "assistant", "content": output})
        result = self._result(output, reason)
        if HookPoint.AFTER_AGENT in self._hook_points:
            yield from self._hook(HookPoint.AFTER_AGENT, prompt=self.spec.prompt, response=result)
        if self._emits:
            yield RunFinished(run_id=self.spec.run_id, termination_reason=reason, result=result)
        return TurnOutcome(result=result, new_messages=self._messages)

    def _fail(
        self, reason: TerminationReason, error: BaseException
    ) -> Generator[Any, Any, TurnOutcome]:
        if self._emits:
            yield ErrorEvent(
                run_id=self.spec.run_id, error_type=type(error).__name__, message=str(error)[:2000]
            )
        try:
            yield from self._hook(HookPoint.ON_ERROR, prompt=self.spec.prompt, error=error)
        except PraisonlikeError as hook_error:
            if self._emits:
                yield ErrorEvent(
                    run_id=self.spec.run_id,
                    error_type=type(hook_error).__name__,
                    message=str(hook_error)[:2000],
                    fatal=False,
                )
        result = self._result("", reason, error=str(error))
        if self._emits:
            yield RunFinished(run_id=self.spec.run_id, termination_reason=reason, result=result)
        return TurnOutcome(result=result, new_messages=self._messages, error=error)
