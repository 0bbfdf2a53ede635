"""One model call of the tool loop, until it answers: the call and its recovery.

Before the call: steering and the context view (see
:mod:`praisonlike.loop.round_context`), the budget gate, the ``BEFORE_LLM``
hook. After it: accounting, the ``AFTER_LLM`` hook, the budget check (see
:mod:`praisonlike.loop.round_base`). On failure: classify, then compress,
retry with backoff, or fall back to the next model (with their hooks and
events), or raise the typed error. :class:`ModelRounds` is the base of
:class:`praisonlike.loop.tool_loop.ToolLoop`; all of it is generator code that
yields commands and events and never does I/O itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from typing import Any

from praisonlike.errors import HookError, LLMError, PraisonlikeError, RunCancelled, RunTimeout
from praisonlike.events import FallbackEvent, LLMRequest, RetryEvent, StreamReset
from praisonlike.hooks import HookPoint
from praisonlike.loop import recovery
from praisonlike.loop.commands import CallModel, ModelFailed, ModelReply, Sleep
from praisonlike.loop.round_base import HookAnswered, Stop
from praisonlike.loop.round_context import ContextRounds
from praisonlike.loop.stop import deadline_error, past
from praisonlike.models.capabilities import model_features
from praisonlike.models.config import LLMConfig
from praisonlike.models.error_classification import classify_llm_error, to_llm_error
from praisonlike.models.local.sampling import for_text_reply
from praisonlike.result import TerminationReason, ToolMode

__all__ = ["HookAnswered", "ModelRounds", "Stop"]


class ModelRounds(ContextRounds):
    """A model call of the turn (or a side call), retried and recovered until it answers."""

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
            # the turn's model is checked before its request is built (see _send)
            refused = None if model is not None else self._preflight(llm, turn_model=True)
            if refused is not None:
                emergency = (yield from self._recover(refused, state, iteration)) or emergency
                continue
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
            if HookPoint.BEFORE_LLM in self._hook_points:
                send = yield from self._before_llm(send)
            params = dict(spec.call_params) if purpose == "answer" else {}
            if native and not tools_enabled:
                params["tool_choice"] = "none"
            if self._grammar is not None and request is None and not (native and tools_enabled):
                params = self._grammar.apply(llm, params, calls=tools_enabled)
            if request is None and self._text_only(tools_enabled, params):
                params = for_text_reply(llm, params)
            if self._emits:
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
            outcome = yield from self._send(
                CallModel(
                    llm=llm,
                    messages=send,
                    tools=native or None,
                    stream=spec.stream and request is None,
                    iteration=iteration,
                    timeout=self._call_timeout(),
                    params=params,
                    hold_back_calls=self._offered if react_stream else None,
                ),
                turn_model=model is None,
            )
            if isinstance(outcome, ModelReply):
                yield from self._answered(outcome, iteration, purpose)
                self._check_stop()  # a stop that came while the call was waited for
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

    def _text_only(self, tools_enabled: bool, params: dict[str, Any]) -> bool:
        """Whether a round's reply can only be text: no tool offered, no structured answer."""
        spec = self.spec
        offered = tools_enabled and bool(spec.tools)
        return not offered and spec.answer_schema is None and "response_format" not in params

    def _before_llm(self, send: list[dict[str, Any]]) -> Generator[Any, Any, list[dict[str, Any]]]:
        """The ``BEFORE_LLM`` hooks: the messages to send, or the end of the round."""
        before = yield from self._hook(HookPoint.BEFORE_LLM, messages=send, prompt=self.spec.prompt)
        if before.block:
            if before.output is not None:
                raise HookAnswered(before.output)
            raise HookError(
                f"the model call was blocked by a hook: {before.reason or ''}", hook="BEFORE_LLM"
            )
        return send if before.messages is None else before.messages

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
        if self._emits and failed.streamed_text and not isinstance(step, recovery.GiveUp):
            yield StreamReset(run_id=self.spec.run_id, iteration=iteration, reason=kind.kind.value)
        if isinstance(step, recovery.Compress):
            state.context_retries += 1
            return True
        if isinstance(step, recovery.Retry):
            state.retries_on_model += 1
            state.total_retries += 1
            self._retries += 1
            if self._emits:
                yield RetryEvent(
                    run_id=self.spec.run_id,
                    attempt=state.retries_on_model,
                    wait=step.wait,
                    error_kind=kind.kind.value,
                    model=llm.model,
                    message=to_llm_error(error, model=llm.model).message[:500],
                )
            yield from self._hook(
                HookPoint.ON_RETRY,
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
            if self._emits:
                yield FallbackEvent(
                    run_id=self.spec.run_id,
                    from_model=previous,
                    to_model=self._llm.model,
                    reason=kind.kind.value,
                )
            yield from self._hook(
                HookPoint.MODEL_FALLBACK,
                error=error,
                details={
                    "from_model": previous,
                    "to_model": self._llm.model,
                    "reason": kind.kind.value,
                },
            )
            return False
        raise to_llm_error(error, model=self._llm.model, retried=state.total_retries) from error
