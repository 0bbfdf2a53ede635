"""The drivers of the tool loop, and the synchronous one.

A driver takes the loop's generator, performs each command it yields (a model
call, a batch of tool calls, a sleep), passes events through to its caller and
sends the outcome back. That is all a driver does: every decision is the
loop's, so ``chat``, ``achat``, ``iter_stream`` and ``stream_events`` behave
alike by construction. The asyncio driver is in
:mod:`praisonlike.llm.async_driver`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from praisonlike.cancellation import CancelToken, iterate_cancellable
from praisonlike.errors import RunCancelled, RunTimeout
from praisonlike.events import TextDelta
from praisonlike.llm.backend import load_litellm
from praisonlike.llm.model_call import StreamAssembler, completion_kwargs, reply_from_response
from praisonlike.llm.protocol import (
    CallModel,
    InvokeHook,
    ModelFailed,
    ModelReply,
    RunTools,
    Sleep,
    ToolCall,
    ToolOutcome,
)

T = TypeVar("T")
LoopSteps = Generator[Any, Any, T]


class HookSeam(Protocol):
    """How hook commands are performed (see :class:`praisonlike.hooks.HookRunner`)."""

    def run(self, context: Any) -> Any: ...

    async def arun(self, context: Any) -> Any: ...


class ToolRunner(Protocol):
    """The ``execute_tool`` seam: how the loop's tool calls are performed."""

    def run(self, call: ToolCall, *, deadline: float | None) -> ToolOutcome | Exception: ...

    async def arun(self, call: ToolCall, *, deadline: float | None) -> ToolOutcome | Exception: ...

    def parallel_safe(self, calls: tuple[ToolCall, ...]) -> bool: ...


class TextFilter:
    """Holds back streamed text while it may still be a ReAct tool call."""

    def __init__(self, offered: frozenset[str] | None) -> None:
        self._detector: Any = None
        if offered is not None:
            from praisonlike.llm.react import StreamCallDetector

            self._detector = StreamCallDetector(offered)

    def feed(self, text: str) -> str:
        return text if self._detector is None else self._detector.feed(text)

    def finish(self) -> str:
        if self._detector is None:
            return ""
        released, _calls = self._detector.finish()
        return str(released)


def stop_reason(cancel: CancelToken | None, deadline: float | None) -> BaseException | None:
    """The error that ends the run now (cancelled, or past its deadline), if any."""
    if cancel is not None and cancel.cancelled:
        return RunCancelled(cancel.reason or "cancelled")
    if deadline is not None and time.monotonic() >= deadline:
        return RunTimeout("the run passed its max_execution_time deadline")
    return None


class SyncDriver:
    """Performs the loop's commands with blocking calls; usable inside a running event loop.

    Model calls run in the caller's thread, and a cancellation is seen when
    the call returns or at its next chunk. With a cancel token and
    ``interruptible``, each call (and its stream) runs on a daemon thread
    instead, so cancellation abandons it at once. Tools run in the caller's
    thread.
    """

    def __init__(
        self,
        run_id: str,
        tools: ToolRunner,
        hooks: HookSeam,
        *,
        cancel: CancelToken | None = None,
        deadline: float | None = None,
        interruptible: bool = False,
    ) -> None:
        self._run_id = run_id
        self._tools = tools
        self._hooks = hooks
        self._cancel = cancel
        self._deadline = deadline
        self._interruptible = interruptible

    def drive(self, steps: LoopSteps[T]) -> Generator[Any, None, T]:
        reply: Any = None
        while True:
            try:
                item = steps.send(reply)
            except StopIteration as stop:
                return stop.value
            reply = None
            if isinstance(item, CallModel):
                reply = yield from self._call_model(item)
            elif isinstance(item, RunTools):
                reply = self._run_tools(item)
            elif isinstance(item, InvokeHook):
                reply = self._hooks.run(item.context)
            elif isinstance(item, Sleep):
                if self._cancel is not None:
                    self._cancel.wait(item.seconds)
                else:
                    time.sleep(item.seconds)
            else:
                yield item

    def _model_output(self, command: CallModel) -> Generator[Any, None, None]:
        """The response (non-streamed) or its chunks, abandoned at once on cancellation."""

        def produce() -> Generator[Any, None, None]:
            response = load_litellm().completion(**completion_kwargs(command))
            if command.stream:
                yield from response
            else:
                yield response

        if self._cancel is None or not self._interruptible:
            return produce()
        return iterate_cancellable(produce, self._cancel)

    def _call_model(self, command: CallModel) -> Generator[Any, None, ModelReply | ModelFailed]:
        started = time.monotonic()
        streamed = False
        output = self._model_output(command)
        try:
            if not command.stream:
                return reply_from_response(
                    next(output), model=command.llm.model, latency=time.monotonic() - started
                )
            assembler = StreamAssembler(command.llm.model)
            text_filter = TextFilter(command.hold_back_calls)
            for chunk in output:
                stop = stop_reason(self._cancel, self._deadline)
                if stop is not None:
                    return ModelFailed(stop, streamed_text=streamed)
                text = text_filter.feed(assembler.add(chunk))
                if text:
                    streamed = True
                    yield TextDelta(run_id=self._run_id, iteration=command.iteration, text=text)
            tail = text_filter.finish()
            if tail:
                streamed = True
                yield TextDelta(run_id=self._run_id, iteration=command.iteration, text=tail)
            return assembler.reply(time.monotonic() - started, streamed_text=streamed)
        except Exception as exc:  # classified by the loop
            return ModelFailed(exc, streamed_text=streamed)
        finally:
            output.close()

    def _run_tools(self, command: RunTools) -> list[ToolOutcome | BaseException]:
        calls = command.calls
        if len(calls) > 1 and self._tools.parallel_safe(calls):
            with ThreadPoolExecutor(max_workers=min(8, len(calls))) as pool:
                futures = [
                    pool.submit(self._tools.run, c, deadline=command.deadline) for c in calls
                ]
                return [f.result() for f in futures]
        outcomes: list[ToolOutcome | BaseException] = []
        for call in calls:
            stop = stop_reason(self._cancel, self._deadline)
            if stop is not None:
                outcomes.append(stop)
                break
            outcomes.append(self._tools.run(call, deadline=command.deadline))
        return outcomes


def iterate_sync(steps: Generator[Any, None, T], finish: Callable[[T], None]) -> Iterator[Any]:
    """Iterate a driver's events, handing the loop's return value to ``finish``."""
    outcome = yield from steps
    finish(outcome)
