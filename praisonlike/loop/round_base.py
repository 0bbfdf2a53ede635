"""What every step of a model round needs: the run, its hooks, its budget and stop checks.

:class:`RoundBase` is the root of the tool loop's step machine
(:class:`~praisonlike.loop.round_context.ContextRounds` ->
:class:`~praisonlike.loop.model_round.ModelRounds` ->
:class:`~praisonlike.loop.tool_rounds.ToolRounds` ->
:class:`~praisonlike.loop.tool_loop.ToolLoop`): the turn's spec, the model in
use, running the hooks of an event, recording a reply (accounting, the
``llm_response`` event, the ``AFTER_LLM`` hook, the budget check), and the
two exceptions that end a turn early (:class:`Stop`, :class:`HookAnswered`).
Generator code only: it yields commands and events and never does I/O.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Generator
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from praisonlike.context.messages import snapshot
from praisonlike.errors import BudgetExceededError, RunCancelled
from praisonlike.events import BudgetWarning, LLMResponse
from praisonlike.hooks import NO_CHANGES, HookContext, HookPoint, HookResult
from praisonlike.loop.accounting import BudgetVerdict
from praisonlike.loop.commands import CallModel, ModelFailed, ModelReply
from praisonlike.loop.stop import stop_error
from praisonlike.loop.turn_spec import TurnSpec
from praisonlike.models.config import LLMConfig
from praisonlike.models.preflight import check_call
from praisonlike.react.grammar import TurnGrammar
from praisonlike.result import TerminationReason, ToolMode

if TYPE_CHECKING:
    from praisonlike.loop.run import Run

Steps = Generator[Any, Any, Any]


class Stop(Exception):
    """Ends the turn with ``reason``; ``error`` is what the caller gets raised."""

    def __init__(self, reason: TerminationReason, error: BaseException) -> None:
        super().__init__(str(error))
        self.reason = reason
        self.error = error


class HookAnswered(Exception):
    """A ``BEFORE_LLM`` hook blocked the call and supplied the answer."""

    def __init__(self, output: str) -> None:
        super().__init__(output)
        self.output = output


class RoundBase:
    """The state every round step reads: the spec, the owner, the model in use, the counters."""

    spec: TurnSpec
    _messages: list[dict[str, Any]]
    _offered: frozenset[str]

    def __init__(self, run: Run) -> None:
        spec = run.spec
        self.spec = spec
        self._owner = run.owner
        self._model_index = 0
        self._checked_models: set[int] = set()
        """The models (indexes into ``spec.models``) whose pre-flight passed this turn."""
        self._retries = 0
        self._fallbacks: list[str] = []
        self._emits = spec.emit_events
        self._hook_points: AbstractSet[HookPoint] = (
            frozenset() if spec.hooks is None else spec.hooks.points
        )
        """The points with hooks, read before building a hook call (live: a hook
        registered during the turn runs from its next point on)."""
        react = spec.tool_mode is ToolMode.REACT and bool(spec.tools)
        self._grammar = (
            TurnGrammar(spec.tools if react else [], spec.answer_schema)
            if react or spec.answer_schema is not None
            else None
        )

    @property
    def _llm(self) -> LLMConfig:
        return self.spec.models[self._model_index]

    def _preflight(self, llm: LLMConfig, *, turn_model: bool) -> ModelFailed | None:
        """The pre-flight check (:func:`~praisonlike.models.preflight.check_call`) of a
        request to ``llm``: None when it may be sent, else the failure to recover from
        (a fallback, or the typed error). A model of the turn (``turn_model``: the one
        at ``spec.models[_model_index]``) is checked at its first call of the turn,
        any other model at each call."""
        if turn_model and self._model_index in self._checked_models:
            return None
        try:
            check_call(llm)
        except Exception as exc:  # classified like a failed call
            return ModelFailed(exc)
        if turn_model:
            self._checked_models.add(self._model_index)
        return None

    def _send(
        self, command: CallModel, *, turn_model: bool
    ) -> Generator[Any, Any, ModelReply | ModelFailed]:
        """Yield ``command`` to the driver once its model passes the pre-flight (see
        :meth:`_preflight`); its outcome. Every model call of the step machine goes
        through here: nothing refused is ever sent."""
        refused = self._preflight(command.llm, turn_model=turn_model)
        if refused is not None:
            return refused
        outcome: ModelReply | ModelFailed = yield command
        return outcome

    def _hook(self, event: HookPoint, **fields: Any) -> Generator[Any, Any, HookResult]:
        """Run the hooks of ``event``; they see a copy of ``messages``, never the history.

        When ``messages`` is given and no hook returned its own list, the
        result's ``messages`` is that copy, with whatever edits hooks made in place.
        """
        hooks = self.spec.hooks
        if hooks is None or not hooks.has(event):
            return NO_CHANGES
        messages = fields.get("messages")
        if messages is not None:
            fields["messages"] = snapshot(messages)
        context = HookContext(
            event=event,
            run_id=self.spec.run_id,
            agent=self._owner,
            model=self._llm.model,
            **fields,
        )
        result: HookResult = yield from hooks.steps(context)
        if messages is not None and result.messages is None:
            result = dataclasses.replace(result, messages=fields["messages"])
        return result

    def _answered(self, reply: ModelReply, iteration: int, purpose: str) -> Steps:
        spec = self.spec
        cost = spec.accounting.record(reply.model, reply.usage)
        if self._emits:
            yield LLMResponse(
                run_id=spec.run_id,
                iteration=iteration,
                model=reply.model,
                content=reply.content,
                tool_call_count=len(reply.tool_calls),
                usage=reply.usage.with_cost(cost),
                latency=reply.latency,
                purpose=purpose,
            )
        if HookPoint.AFTER_LLM in self._hook_points:
            yield from self._hook(HookPoint.AFTER_LLM, response=reply)
        after = spec.accounting.check_after()
        if after is not None:
            yield from self._budget(after)

    def _budget(self, verdict: BudgetVerdict) -> Steps:
        if verdict.action == "warn":
            if self._emits:
                yield BudgetWarning(
                    run_id=self.spec.run_id,
                    spent=verdict.spent,
                    limit=verdict.limit,
                    message=verdict.message,
                )
            return
        raise Stop(
            TerminationReason.BUDGET_EXCEEDED,
            BudgetExceededError(verdict.message, spent=verdict.spent, limit=verdict.limit),
        )

    def _call_timeout(self) -> float | None:
        timeout = self.spec.execution.timeout
        if self.spec.deadline is None:
            return timeout
        remaining = max(0.001, self.spec.deadline - time.monotonic())
        return remaining if timeout is None else min(timeout, remaining)

    def _deadline_within(self, seconds: float) -> bool:
        return self.spec.deadline is not None and time.monotonic() + seconds >= self.spec.deadline

    def _check_stop(self) -> None:
        error = stop_error(self.spec.cancel, self.spec.deadline)
        if error is not None:
            reason = (
                TerminationReason.CANCELLED
                if isinstance(error, RunCancelled)
                else TerminationReason.TIMEOUT
            )
            raise Stop(reason, error)
