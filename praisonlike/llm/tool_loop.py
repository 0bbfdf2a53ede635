"""The tool loop, written once as a step machine.

``ToolLoop.steps()`` is a generator: it yields events and commands
(:mod:`praisonlike.llm.protocol`) and is sent each command's outcome by a
driver (:mod:`praisonlike.llm.drivers`). It owns every decision of a turn:
context routing before each call, the budget gate, native or ReAct tool calls,
error recovery (compress, retry, fall back), the ``max_iterations`` ending,
answer checks, and the accounting. It returns a :class:`TurnOutcome`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from praisonlike.cancellation import CancelToken
from praisonlike.errors import (
    BudgetExceededError,
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
    RunFinished,
    SteeringEvent,
    StreamReset,
    ToolCallEvent,
    ToolResultEvent,
)
from praisonlike.llm import recovery
from praisonlike.llm.accounting import BudgetVerdict, RunAccounting
from praisonlike.llm.config import ExecutionConfig, LLMConfig
from praisonlike.llm.errors import classify_llm_error, to_llm_error
from praisonlike.llm.protocol import (
    CallModel,
    ModelFailed,
    ModelReply,
    RunTools,
    Sleep,
    ToolCall,
    ToolOutcome,
)
from praisonlike.llm.react import is_whole_answer_a_call, observation_message, parse_text_tool_calls
from praisonlike.result import RunResult, TerminationReason, ToolCallRecord, ToolMode

FINAL_ANSWER_PROMPT = (
    "You have used the maximum number of tool calls for this request. Do not call any "
    "more tools: answer now, as well as you can, from what you already have."
)
NO_ANSWER_TEXT = "(The model gave no answer after reaching the tool-call limit.)"


class ContextSeam(Protocol):
    """What the loop needs of the context manager (see :mod:`praisonlike.context`)."""

    def prepare(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def emergency(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Any: ...

    def count(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> int: ...


@dataclass(frozen=True)
class Accept:
    """The answer passes; ``output`` is what the turn returns (text or a parsed object)."""

    output: Any


@dataclass(frozen=True)
class Revise:
    """The answer fails; ``feedback`` goes back to the model as a user message."""

    feedback: str


#: Called with the answer text and whether this is the last chance; raises to fail the turn.
AnswerCheck = Callable[[str, bool], Accept | Revise]


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
    deadline: float | None = None
    cancel: CancelToken | None = None
    drain_steering: Callable[[], list[str]] | None = None
    answer_check: AnswerCheck | None = None
    answer_retries: int = 0
    call_params: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)


@dataclass
class TurnOutcome:
    """The loop's result: the RunResult, the turn's new messages, and the error if it failed."""

    result: RunResult
    new_messages: list[dict[str, Any]]
    error: BaseException | None = None


class _Stop(Exception):
    def __init__(self, reason: TerminationReason, error: BaseException) -> None:
        super().__init__(str(error))
        self.reason = reason
        self.error = error


class ToolLoop:
    """One turn's step machine. Create one per turn; iterate ``steps()`` once."""

    def __init__(self, spec: TurnSpec) -> None:
        self.spec = spec
        self._messages = spec.new_messages
        self._offered = frozenset(t["function"]["name"] for t in spec.tools if "function" in t)
        self._tool_records: list[ToolCallRecord] = []
        self._model_index = 0
        self._retries = 0
        self._fallbacks: list[str] = []
        self._answer_retries_left = spec.answer_retries

    @property
    def _llm(self) -> LLMConfig:
        return self.spec.models[self._model_index]

    def steps(self) -> Generator[Any, Any, TurnOutcome]:
        iteration = 0
        try:
            while True:
                iteration += 1
                final_round = iteration > self.spec.max_iterations
                if final_round:
                    self._messages.append({"role": "user", "content": FINAL_ANSWER_PROMPT})
                reply = yield from self._model_round(iteration, tools_enabled=not final_round)
                calls = [] if final_round else self._tool_calls_of(reply, iteration)
                if calls:
                    yield from self._tool_round(reply, calls, iteration)
                    continue
                answer = reply.content
                if final_round:
                    answer = answer.strip() or NO_ANSWER_TEXT
                self._messages.append({"role": "assistant", "content": answer})
                verdict = self._check_answer(answer)
                if isinstance(verdict, Revise):
                    self._messages.append({"role": "user", "content": verdict.feedback})
                    continue
                reason = (
                    TerminationReason.MAX_ITERATIONS if final_round else TerminationReason.COMPLETED
                )
                result = self._result(verdict.output, reason, iteration)
                yield RunFinished(run_id=self.spec.run_id, termination_reason=reason, result=result)
                return TurnOutcome(result=result, new_messages=self._messages)
        except _Stop as stop:
            return (yield from self._fail(stop.reason, stop.error, iteration))
        except PraisonlikeError as error:
            return (yield from self._fail(TerminationReason.ERROR, error, iteration))

    # -- one model call, with context, budget and recovery --------------------------

    def _model_round(
        self, iteration: int, *, tools_enabled: bool
    ) -> Generator[Any, Any, ModelReply]:
        spec = self.spec
        state = recovery.RecoveryState()
        emergency = False
        while True:
            self._check_stop()
            yield from self._steer()
            messages = spec.prefix + self._messages
            native_tools = spec.tools if spec.tool_mode is ToolMode.NATIVE else []
            prepared = (spec.context.emergency if emergency else spec.context.prepare)(
                messages, native_tools
            )
            prepared = yield from self._finish_summary(prepared, iteration)
            if prepared.report is not None:
                yield self._compaction_event(prepared.report)
            send = prepared.messages
            verdict = self.spec.accounting.gate_before(
                self._llm.model, spec.context.count(send, native_tools), self._llm.max_tokens
            )
            if verdict is not None:
                yield from self._budget(verdict)
            params = dict(spec.call_params)
            tools = native_tools or None
            if tools and not tools_enabled:
                params["tool_choice"] = "none"
            yield LLMRequest.model_construct(
                run_id=spec.run_id,
                iteration=iteration,
                model=self._llm.model,
                message_count=len(send),
                tool_names=sorted(self._offered) if tools_enabled else [],
                messages=send,
            )
            react_stream = spec.stream and spec.tool_mode is ToolMode.REACT and tools_enabled
            outcome = yield CallModel(
                llm=self._llm,
                messages=send,
                tools=tools,
                stream=spec.stream,
                iteration=iteration,
                timeout=self._call_timeout(),
                params=params,
                hold_back_calls=self._offered if react_stream else None,
            )
            if isinstance(outcome, ModelReply):
                priced = spec.accounting.record(outcome.model, outcome.usage)
                yield LLMResponse(
                    run_id=spec.run_id,
                    iteration=iteration,
                    model=outcome.model,
                    content=outcome.content,
                    tool_call_count=len(outcome.tool_calls),
                    usage=priced,
                    latency=outcome.latency,
                )
                after = spec.accounting.check_after()
                if after is not None:
                    yield from self._budget(after)
                return outcome
            emergency = yield from self._recover(outcome, state, iteration)

    def _recover(
        self, failed: ModelFailed, state: recovery.RecoveryState, iteration: int
    ) -> Generator[Any, Any, bool]:
        """Handle a failed call; return True when the retry must compact first."""
        error = failed.error
        if isinstance(error, RunCancelled):
            raise _Stop(TerminationReason.CANCELLED, error)
        if isinstance(error, RunTimeout) or self._past_deadline():
            raise _Stop(
                TerminationReason.TIMEOUT,
                RunTimeout("the run passed its max_execution_time deadline"),
            )
        if isinstance(error, PraisonlikeError) and not isinstance(error, LLMError):
            raise error
        kind = classify_llm_error(error)
        step = recovery.decide(kind, state, self.spec.execution, model_count=len(self.spec.models))
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
                model=self._llm.model,
                message=kind.message[:500],
            )
            if self._deadline_within(step.wait):
                raise _Stop(
                    TerminationReason.TIMEOUT,
                    RunTimeout("the run's max_execution_time deadline falls within the retry wait"),
                )
            yield Sleep(step.wait)
            self._check_stop()
            return False
        if isinstance(step, recovery.Fallback):
            previous = self._llm.model
            self._model_index = step.to_model_index
            state.model_index = step.to_model_index
            state.retries_on_model = 0
            self._fallbacks.append(self._llm.model)
            yield FallbackEvent(
                run_id=self.spec.run_id,
                from_model=previous,
                to_model=self._llm.model,
                reason=kind.kind.value,
            )
            return False
        raise to_llm_error(error, model=self._llm.model, retried=state.total_retries) from error

    # -- tools ------------------------------------------------------------------------

    def _tool_calls_of(self, reply: ModelReply, iteration: int) -> list[ToolCall]:
        if self.spec.tool_mode is ToolMode.REACT:
            found = parse_text_tool_calls(reply.content, self._offered)
        elif reply.tool_calls:
            return list(reply.tool_calls)
        else:
            found = is_whole_answer_a_call(reply.content, self._offered) if self._offered else []
        return [
            ToolCall(
                id=f"call_{self.spec.run_id[:8]}_{iteration}_{n}",
                name=call.name,
                arguments=json.dumps(call.arguments, ensure_ascii=False),
            )
            for n, call in enumerate(found)
        ]

    def _tool_round(
        self, reply: ModelReply, calls: list[ToolCall], iteration: int
    ) -> Generator[Any, Any, None]:
        react = self.spec.tool_mode is ToolMode.REACT
        if react:
            self._messages.append({"role": "assistant", "content": reply.content})
        else:
            self._messages.append(
                {
                    "role": "assistant",
                    "content": reply.content if reply.tool_calls else "",
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments},
                        }
                        for c in calls
                    ],
                }
            )
        for call in calls:
            yield ToolCallEvent(
                run_id=self.spec.run_id,
                iteration=iteration,
                call_id=call.id,
                name=call.name,
                arguments=_decoded(call.arguments),
            )
        outcomes = yield RunTools(
            calls=tuple(calls), iteration=iteration, deadline=self.spec.deadline
        )
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                reason = (
                    TerminationReason.CANCELLED
                    if isinstance(outcome, RunCancelled)
                    else TerminationReason.TIMEOUT
                )
                raise _Stop(reason, outcome)
            assert isinstance(outcome, ToolOutcome)
            self._record_tool(outcome, iteration, react)
            yield ToolResultEvent(
                run_id=self.spec.run_id,
                iteration=iteration,
                call_id=outcome.call.id,
                name=outcome.call.name,
                result=outcome.result,
                is_error=outcome.is_error,
                latency=outcome.latency,
            )
        self._check_stop()

    def _record_tool(self, outcome: ToolOutcome, iteration: int, react: bool) -> None:
        call = outcome.call
        if react:
            self._messages.append(
                observation_message(call.name, outcome.result, is_error=outcome.is_error)
            )
        else:
            self._messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": outcome.result}
            )
        self._tool_records.append(
            ToolCallRecord(
                id=call.id,
                name=call.name,
                arguments=outcome.arguments,
                result=outcome.result,
                is_error=outcome.is_error,
                latency=outcome.latency,
            )
        )

    # -- helpers -------------------------------------------------------------------

    def _check_answer(self, answer: str) -> Accept | Revise:
        check = self.spec.answer_check
        if check is None:
            return Accept(answer)
        last_chance = self._answer_retries_left <= 0
        verdict = check(answer, last_chance)
        if isinstance(verdict, Revise):
            if last_chance:
                return Accept(answer)
            self._answer_retries_left -= 1
        return verdict

    def _steer(self) -> Generator[Any, Any, None]:
        drain = self.spec.drain_steering
        if drain is None:
            return
        for text in drain():
            self._messages.append({"role": "user", "content": text})
            yield SteeringEvent(run_id=self.spec.run_id, text=text)

    def _finish_summary(self, prepared: Any, iteration: int) -> Generator[Any, Any, Any]:
        request = getattr(prepared, "summary_request", None)
        if not request:
            return prepared
        llm = self._summary_llm()
        outcome = yield CallModel(
            llm=llm,
            messages=request,
            tools=None,
            stream=False,
            iteration=iteration,
            timeout=self._call_timeout(),
        )
        if isinstance(outcome, ModelReply) and outcome.content.strip():
            priced = self.spec.accounting.record(outcome.model, outcome.usage)
            yield LLMResponse(
                run_id=self.spec.run_id,
                iteration=iteration,
                model=outcome.model,
                content=outcome.content,
                usage=priced,
                latency=outcome.latency,
                purpose="summary",
            )
            return prepared.finish(outcome.content)
        error = outcome.error if isinstance(outcome, ModelFailed) else "empty summary"
        yield ErrorEvent(
            run_id=self.spec.run_id,
            error_type="SummaryFailed",
            message=str(error)[:500],
            fatal=False,
        )
        return prepared.fallback(str(error))

    def _summary_llm(self) -> LLMConfig:
        summary_model = getattr(self.spec.context, "summary_model", None)
        if summary_model:
            return self._llm.model_copy(update={"model": summary_model})
        return self._llm

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

    def _budget(self, verdict: BudgetVerdict) -> Generator[Any, Any, None]:
        if verdict.action == "warn":
            yield BudgetWarning(
                run_id=self.spec.run_id,
                spent=verdict.spent,
                limit=verdict.limit,
                message=verdict.message,
            )
            return
        raise _Stop(
            TerminationReason.BUDGET_EXCEEDED,
            BudgetExceededError(verdict.message, spent=verdict.spent, limit=verdict.limit),
        )

    def _call_timeout(self) -> float | None:
        timeout = self.spec.execution.timeout
        if self.spec.deadline is None:
            return timeout
        remaining = max(0.001, self.spec.deadline - time.monotonic())
        return remaining if timeout is None else min(timeout, remaining)

    def _past_deadline(self) -> bool:
        return self.spec.deadline is not None and time.monotonic() >= self.spec.deadline

    def _deadline_within(self, seconds: float) -> bool:
        return self.spec.deadline is not None and time.monotonic() + seconds >= self.spec.deadline

    def _check_stop(self) -> None:
        cancel = self.spec.cancel
        if cancel is not None and cancel.cancelled:
            raise _Stop(TerminationReason.CANCELLED, RunCancelled(cancel.reason or "cancelled"))
        if self._past_deadline():
            raise _Stop(
                TerminationReason.TIMEOUT,
                RunTimeout("the run passed its max_execution_time deadline"),
            )

    def _result(
        self, output: Any, reason: TerminationReason, iteration: int, error: str | None = None
    ) -> RunResult:
        return RunResult(
            run_id=self.spec.run_id,
            output=output,
            termination_reason=reason,
            iterations=iteration,
            tool_calls=list(self._tool_records),
            usage=self.spec.accounting.usage,
            latency=time.monotonic() - self.spec.started,
            model=self._llm.model,
            tool_mode=self.spec.tool_mode,
            retries=self._retries,
            fallbacks=list(self._fallbacks),
            error=error,
        )

    def _fail(
        self, reason: TerminationReason, error: BaseException, iteration: int
    ) -> Generator[Any, Any, TurnOutcome]:
        yield ErrorEvent(
            run_id=self.spec.run_id, error_type=type(error).__name__, message=str(error)[:2000]
        )
        result = self._result("", reason, iteration, error=str(error))
        yield RunFinished(run_id=self.spec.run_id, termination_reason=reason, result=result)
        return TurnOutcome(result=result, new_messages=self._messages, error=error)


def _decoded(arguments: str) -> dict[str, Any] | str:
    try:
        value = json.loads(arguments) if arguments else {}
    except ValueError:
        return arguments
    return value if isinstance(value, dict) else arguments
