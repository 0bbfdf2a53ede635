"""One model call of the tool loop, with everything around it.

Before the call: steering messages, context routing (and the compaction hooks),
the budget gate, the ``BEFORE_LLM`` hook. After it: accounting, the
``AFTER_LLM`` hook, the budget check. On failure: classify, then compress,
retry with backoff, or fall back to the next model (with their hooks and
events), or raise the typed error. :class:`ModelRounds` is the base of
:class:`praisonlike.llm.tool_loop.ToolLoop`; all of it is generator code that
yields commands and events and never does I/O itself.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from praisonlike.context.messages import snapshot
from praisonlike.errors import (
    BudgetExceededError,
    HookError,
    LLMError,
    PraisonlikeError,
    RunCancelled,
    RunTimeout,
)
from praisonlike.events import (
    BudgetWarning,
    CompactionEvent,
    ErrorEvent,
    FallbackEvent,
    LLMRequest,
    LLMResponse,
    RetryEvent,
    SteeringEvent,
    StreamReset,
)
from praisonlike.hooks import NO_CHANGES, HookContext, HookEvent, HookResult
from praisonlike.llm import recovery
from praisonlike.llm.accounting import BudgetVerdict
from praisonlike.llm.capabilities import model_features
from praisonlike.llm.config import LLMConfig
from praisonlike.llm.errors import classify_llm_error, to_llm_error
from praisonlike.llm.protocol import CallModel, ModelFailed, ModelReply, Sleep
from praisonlike.llm.providers import related_config
from praisonlike.llm.stop import deadline_error, past, stop_error
from praisonlike.llm.tool_grammar import TurnGrammar
from praisonlike.llm.turn_spec import TurnSpec
from praisonlike.result import TerminationReason, ToolMode

if TYPE_CHECKING:
    from praisonlike.llm.run import Run

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


class ModelRounds:
    spec: TurnSpec
    _messages: list[dict[str, Any]]
    _offered: frozenset[str]

    def __init__(self, run: Run) -> None:
        spec = run.spec
        self.spec = spec
        self._owner = run.owner
        self._model_index = 0
        self._retries = 0
        self._fallbacks: list[str] = []
        react = spec.tool_mode is ToolMode.REACT and bool(spec.tools)
        self._grammar = TurnGrammar(spec.tools) if react else None

    @property
    def _llm(self) -> LLMConfig:
        return self.spec.models[self._model_index]

    # -- hooks ------------------------------------------------------------------------

    def _hook(self, event: HookEvent, **fields: Any) -> Generator[Any, Any, HookResult]:
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

    # -- one model call ---------------------------------------------------------------

    def _model_round(
        self,
        iteration: int,
        *,
        tools_enabled: bool = True,
        request: list[dict[str, Any]] | None = None,
        purpose: str = "answer",
        model: str | LLMConfig | None = None,
    ) -> Generator[Any, Any, ModelReply]:
        """Call the model until it answers. ``request`` (a side call such as a
        judge) is sent as given, without steering, tools or compaction, to
        ``model`` if given (a configuration, or a model name on this model's settings)."""
        spec = self.spec
        state = recovery.RecoveryState(model_index=self._model_index)
        emergency = False
        native = spec.tools if spec.tool_mode is ToolMode.NATIVE and request is None else []
        while True:
            self._check_stop()
            llm = model if isinstance(model, LLMConfig) else self._llm
            if isinstance(model, str):
                llm = dataclasses.replace(llm, model=model)
            if request is None:
                yield from self._steer()
                self._check_stop()
                send = yield from self._context_view(native, emergency, iteration)
            else:
                send = request
            verdict = None
            if spec.accounting.has_limits:
                verdict = spec.accounting.gate_before(
                    llm.model, spec.context.count(send, native), llm.max_tokens
                )
            if verdict is not None:
                yield from self._budget(verdict)
            before = yield from self._hook(HookEvent.BEFORE_LLM, messages=send, prompt=spec.prompt)
            if before.block:
                if before.output is not None:
                    raise HookAnswered(before.output)
                raise HookError(
                    f"the model call was blocked by a hook: {before.reason or ''}",
                    hook="BEFORE_LLM",
                )
            if before.messages is not None:
                send = before.messages
            params = dict(spec.call_params) if purpose == "answer" else {}
            if native and not tools_enabled:
                params["tool_choice"] = "none"
            if self._grammar is not None and tools_enabled and request is None:
                params = self._grammar.apply(llm, params)
            yield LLMRequest(
                run_id=spec.run_id,
                iteration=iteration,
                model=llm.model,
                message_count=len(send),
                tool_names=sorted(self._offered) if native and tools_enabled else [],
                purpose=purpose,
                messages=send,
            )
            react_stream = (
                spec.stream
                and spec.tool_mode is ToolMode.REACT
                and tools_enabled
                and request is None
            )
            outcome = yield CallModel(
                llm=llm,
                messages=send,
                tools=native or None,
                stream=spec.stream and request is None,
                iteration=iteration,
                timeout=self._call_timeout(),
                params=params,
                hold_back_calls=self._offered if react_stream else None,
            )
            if isinstance(outcome, ModelReply):
                yield from self._answered(outcome, iteration, purpose)
                return outcome
            if outcome.cut_short is not None:
                spec.accounting.record_cut_short(
                    llm.model,
                    outcome.cut_short,
                    messages=send,
                    tools=native,
                    count=spec.context.count,
                )
            emergency = (yield from self._recover(outcome, state, iteration)) or emergency

    def _context_view(
        self, native: list[dict[str, Any]], emergency: bool, iteration: int
    ) -> Generator[Any, Any, list[dict[str, Any]]]:
        spec = self.spec
        messages = spec.prefix + self._messages
        if (
            spec.hooks is not None
            and spec.hooks.has(HookEvent.BEFORE_COMPACTION)
            and (
                emergency
                or str(getattr(spec.context.route(messages, native), "value", "fits")) != "fits"
            )
        ):
            yield from self._hook(HookEvent.BEFORE_COMPACTION, messages=messages)
        prepare = spec.context.emergency if emergency else spec.context.prepare
        prepared = yield from self._finish_summary(prepare(messages, native), iteration)
        if prepared.report is not None:
            event = self._compaction_event(prepared.report)
            yield event
            yield from self._hook(
                HookEvent.AFTER_COMPACTION, messages=prepared.messages, details=event.model_dump()
            )
        return list(prepared.messages)

    def _answered(self, reply: ModelReply, iteration: int, purpose: str) -> Steps:
        spec = self.spec
        priced = spec.accounting.record(reply.model, reply.usage)
        yield LLMResponse(
            run_id=spec.run_id,
            iteration=iteration,
            model=reply.model,
            content=reply.content,
            tool_call_count=len(reply.tool_calls),
            usage=priced,
            latency=reply.latency,
            purpose=purpose,
        )
        yield from self._hook(HookEvent.AFTER_LLM, response=reply)
        after = spec.accounting.check_after()
        if after is not None:
            yield from self._budget(after)

    def _recover(
        self, failed: ModelFailed, state: recovery.RecoveryState, iteration: int
    ) -> Generator[Any, Any, bool]:
        """Handle a failed call; return True when the retry must compact first."""
        error = failed.error
        if isinstance(error, RunCancelled):
            raise Stop(TerminationReason.CANCELLED, error)
        if isinstance(error, RunTimeout) or past(self.spec.deadline):
            raise Stop(TerminationReason.TIMEOUT, deadline_error())
        if isinstance(error, PraisonlikeError) and not isinstance(error, LLMError):
            raise error
        kind = classify_llm_error(error)
        llm = self._llm
        step = recovery.decide(
            kind,
            state,
            self.spec.execution,
            model_count=len(self.spec.models),
            retry_timeouts=not model_features(llm.model, llm.features).local_server,
        )
        if failed.streamed_text and not isinstance(step, recovery.GiveUp):
            yield StreamReset(run_id=self.spec.run_id, iteration=iteration, reason=kind.kind.value)
        if isinstance(step, recovery.Compress):
            state.context_retries += 1
            return True
        if isinstance(step, recovery.Retry):
            state.retries_on_model += 1
            state.total_retries += 1
            self._retries += 1
            yield RetryEvent(
                run_id=self.spec.run_id,
                attempt=state.retries_on_model,
                wait=step.wait,
                error_kind=kind.kind.value,
                model=llm.model,
                message=to_llm_error(error, model=llm.model).message[:500],
            )
            yield from self._hook(
                HookEvent.ON_RETRY,
                error=error,
                details={
                    "attempt": state.retries_on_model,
                    "wait": step.wait,
                    "error_kind": kind.kind.value,
                },
            )
            if self._deadline_within(step.wait):
                raise Stop(
                    TerminationReason.TIMEOUT,
                    RunTimeout("the run's max_execution_time deadline falls within the retry wait"),
                )
            yield Sleep(step.wait)
            self._check_stop()
            return False
        if isinstance(step, recovery.Fallback):
            previous = self._llm.model
            self._model_index = state.model_index = step.to_model_index
            state.retries_on_model = 0
            self._fallbacks.append(self._llm.model)
            yield FallbackEvent(
                run_id=self.spec.run_id,
                from_model=previous,
                to_model=self._llm.model,
                reason=kind.kind.value,
            )
            yield from self._hook(
                HookEvent.MODEL_FALLBACK,
                error=error,
                details={
                    "from_model": previous,
                    "to_model": self._llm.model,
                    "reason": kind.kind.value,
                },
            )
            return False
        raise to_llm_error(error, model=self._llm.model, retried=state.total_retries) from error

    # -- around the call ---------------------------------------------------------------

    def _steer(self) -> Steps:
        drain = self.spec.drain_steering
        if drain is None:
            return
        for text in drain():
            self._messages.append({"role": "user", "content": text})
            yield SteeringEvent(run_id=self.spec.run_id, text=text)

    def _finish_summary(self, prepared: Any, iteration: int) -> Steps:
        request = getattr(prepared, "summary_request", None)
        if not request:
            return prepared
        llm = self._llm
        summary = self.spec.context.summary_model
        if summary:
            llm = summary if isinstance(summary, LLMConfig) else related_config(llm, summary)
        outcome = yield CallModel(
            llm=llm,
            messages=request,
            tools=None,
            stream=False,
            iteration=iteration,
            timeout=self._call_timeout(),
        )
        if isinstance(outcome, ModelReply) and outcome.content.strip():
            yield from self._answered(outcome, iteration, "summary")
            return prepared.finish(outcome.content)
        error = outcome.error if isinstance(outcome, ModelFailed) else "empty summary"
        yield ErrorEvent(
            run_id=self.spec.run_id,
            error_type="SummaryFailed",
            message=str(error)[:500],
            fatal=False,
        )
        return prepared.fallback(str(error))

    def _compaction_event(self, report: Any) -> CompactionEvent:
        return CompactionEvent(
            run_id=self.spec.run_id,
            route=str(getattr(report.route, "value", report.route)),
            strategy=report.strategy,
            tokens_before=report.tokens_before,
            tokens_after=report.tokens_after,
            messages_dropped=report.messages_dropped,
            tool_outputs_truncated=report.tool_outputs_truncated,
            failed=report.failed,
        )

    def _budget(self, verdict: BudgetVerdict) -> Steps:
        if verdict.action == "warn":
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
