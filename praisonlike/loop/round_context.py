"""The context side of a model round: steering, compaction (and its hooks), the summary.

Before each call of the conversation (not side calls), the pending steering
messages join the turn, then the context manager fits the request into the
model's window: its compaction hooks run when it must compact, and a
summarising strategy gets its summary from a model call yielded here,
accounted like any call (a failed summary falls back to the strategy's
fallback, with a non-fatal ``SummaryFailed`` error event; one stopped by
cancellation or the deadline counts its tokens and ends the turn).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from praisonlike.context.summary import loops_on_a_phrase
from praisonlike.errors import ContextWindowExceededError
from praisonlike.events import CompactionEvent, ErrorEvent, SteeringEvent
from praisonlike.hooks import HookPoint
from praisonlike.loop.commands import CallModel, ModelFailed, ModelReply
from praisonlike.loop.round_base import RoundBase, Steps, Stop
from praisonlike.models.config import LLMConfig
from praisonlike.models.providers import related_config
from praisonlike.run_enums import TerminationReason


class ContextRounds(RoundBase):
    """The steps that build what a conversation call sends."""

    def _steer(self) -> Steps:
        drain = self.spec.drain_steering
        if drain is None:
            return
        for text in drain():
            self._messages.append({"role": "user", "content": text})
            if self._emits:
                yield SteeringEvent(run_id=self.spec.run_id, text=text)

    def _context_view(
        self, native: list[dict[str, Any]], emergency: bool, iteration: int
    ) -> Generator[Any, Any, list[dict[str, Any]]]:
        spec = self.spec
        messages = spec.prefix + self._messages
        if (
            spec.hooks is not None
            and spec.hooks.has(HookPoint.BEFORE_COMPACTION)
            and (
                emergency
                or str(getattr(spec.context.route(messages, native), "value", "fits")) != "fits"
            )
        ):
            yield from self._hook(HookPoint.BEFORE_COMPACTION, messages=messages)
        prepare = spec.context.emergency if emergency else spec.context.prepare
        prepared = prepare(messages, native)
        if prepared.report is None:  # it fit: a fresh list, nothing to report
            fitted: list[dict[str, Any]] = prepared.messages
            return fitted
        if prepared.summary_request:
            prepared = yield from self._finish_summary(prepared, iteration)
        self._check_prompt_kept(prepared.messages, prepared.report)
        event = self._compaction_event(prepared.report)
        if self._emits:
            yield event
        yield from self._hook(
            HookPoint.AFTER_COMPACTION, messages=prepared.messages, details=event.model_dump()
        )
        return list(prepared.messages)

    def _check_prompt_kept(self, messages: list[dict[str, Any]], report: Any) -> None:
        """End the turn rather than send the user's prompt cut: it alone (with the system
        prompt and tools) does not fit the model's context budget."""
        prompt = self.spec.new_messages[0] if self.spec.new_messages else None
        if prompt is None or any(message is prompt for message in messages):
            return
        tokens = self.spec.context.count([prompt], [])
        raise Stop(
            TerminationReason.ERROR,
            ContextWindowExceededError(
                f"the prompt is too long for {self._llm.model}: it is {tokens} tokens, and the "
                f"request ({report.tokens_before} tokens) fits the model's "
                f"{self.spec.context.window}-token input budget only with the prompt cut; "
                "shorten it or split it over several turns, or use a model with a larger "
                "context window (ContextConfig(max_context_tokens=...) when praisonlike "
                "does not know this model's window)",
                model=self._llm.model,
            ),
        )

    def _finish_summary(self, prepared: Any, iteration: int) -> Steps:
        request = prepared.summary_request
        llm = self._llm
        summary = self.spec.context.summary_model
        if summary:
            llm = summary if isinstance(summary, LLMConfig) else related_config(llm, summary)
        outcome = yield from self._send(
            CallModel(
                llm=llm,
                messages=request,
                tools=None,
                stream=False,
                iteration=iteration,
                timeout=self._call_timeout(),
            ),
            turn_model=False,
        )
        if isinstance(outcome, ModelReply) and outcome.content.strip():
            yield from self._answered(outcome, iteration, "summary")
            if not loops_on_a_phrase(outcome.content):
                return prepared.finish(outcome.content)
            outcome = ModelFailed(ValueError("the summary model repeated itself"))
        if isinstance(outcome, ModelFailed) and outcome.cut_short is not None:
            # stopped after it was sent: its tokens count, and the stop ends the turn
            self.spec.accounting.record_cut_short(
                llm.model,
                outcome.cut_short,
                messages=request,
                tools=[],
                count=self.spec.context.count,
            )
            self._check_stop()
        error = outcome.error if isinstance(outcome, ModelFailed) else "empty summary"
        if self._emits:
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
