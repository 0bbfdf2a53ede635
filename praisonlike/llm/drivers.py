"""The two drivers of the tool loop: one performs its I/O synchronously, one with asyncio.

A driver takes the loop's generator, performs each command it yields (a model
call, a batch of tool calls, a sleep), passes events through to its caller and
sends the outcome back. That is all a driver does: every decision is the
loop's, so ``chat``, ``achat``, ``iter_stream`` and ``stream_events`` behave
alike by construction.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator
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


class _TextFilter:
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


def _still_cancelling(task: asyncio.Task[Any]) -> bool:
    """Withdraw this driver's cancel request; True if the task was also cancelled from outside.

    Only Python 3.11+ counts cancel requests; before, the driver's is the only one seen.
    """
    uncancel = getattr(task, "uncancel", None)
    return uncancel is not None and uncancel() > 0


def _discard(awaitable: Any) -> None:
    """Drop an awaitable that will never be awaited, without a "never awaited" warning."""
    if asyncio.iscoroutine(awaitable):
        awaitable.close()
    elif isinstance(awaitable, asyncio.Future):
        awaitable.cancel()


class _CallsInFlight:
    """How many async model calls of this process are waiting on their response."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    def any(self) -> bool:
        return self._count > 0

    def __enter__(self) -> None:
        with self._lock:
            self._count += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._count -= 1


_calls_in_flight = _CallsInFlight()


def _stopped(cancel: CancelToken | None, deadline: float | None) -> BaseException | None:
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
            text_filter = _TextFilter(command.hold_back_calls)
            for chunk in output:
                stop = _stopped(self._cancel, self._deadline)
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
            stop = _stopped(self._cancel, self._deadline)
            if stop is not None:
                outcomes.append(stop)
                break
            outcomes.append(self._tools.run(call, deadline=command.deadline))
        return outcomes


class AsyncDriver:
    """Performs the loop's commands with asyncio; sync tools run in worker threads."""

    def __init__(
        self,
        run_id: str,
        tools: ToolRunner,
        hooks: HookSeam,
        *,
        cancel: CancelToken | None = None,
        deadline: float | None = None,
    ) -> None:
        self._run_id = run_id
        self._tools = tools
        self._hooks = hooks
        self._cancel = cancel
        self._deadline = deadline

    async def drive(
        self, steps: LoopSteps[Any], finish: Callable[[Any], None]
    ) -> AsyncIterator[Any]:
        """Yield the loop's events; hand its return value to ``finish``."""
        reply: Any = None
        while True:
            try:
                item = steps.send(reply)
            except StopIteration as stop:
                finish(stop.value)
                return
            reply = None
            if isinstance(item, CallModel):
                holder: list[ModelReply | ModelFailed] = []
                async for event in self._call_model(item, holder):
                    yield event
                reply = holder[0]
            elif isinstance(item, RunTools):
                reply = await self._run_tools(item)
            elif isinstance(item, InvokeHook):
                reply = await self._hooks.arun(item.context)
            elif isinstance(item, Sleep):
                await self._sleep(item.seconds)
            else:
                yield item

    async def _until_cancelled(self, awaitable: Any) -> Any:
        """Await ``awaitable`` in this task; on cancellation, stop it and raise RunCancelled.

        The token's callback (from any thread) cancels the current task while
        it waits here, so the awaitable is stopped at its current ``await``
        without a task or a loop iteration of its own.
        """
        cancel = self._cancel
        if cancel is None:
            return await awaitable
        if cancel.cancelled:
            _discard(awaitable)
            raise RunCancelled(cancel.reason or "cancelled")
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None, "the async driver runs inside an asyncio task"
        waiting = True
        interrupted = False

        def interrupt() -> None:
            nonlocal interrupted
            if waiting and not interrupted:
                interrupted = True
                task.cancel()

        def wake() -> None:
            loop.call_soon_threadsafe(interrupt)

        remove = cancel.on_cancel(wake)
        try:
            result = await awaitable
        except (Exception, asyncio.CancelledError) as exc:
            if not interrupted or _still_cancelling(task):
                raise
            # stopped by the token: whatever the awaitable raised on the way out
            cause = None if isinstance(exc, asyncio.CancelledError) else exc
            raise RunCancelled(cancel.reason or "cancelled") from cause
        finally:
            waiting = False
            remove()
        if interrupted and not _still_cancelling(task):  # the awaitable swallowed the cancel
            raise RunCancelled(cancel.reason or "cancelled")
        return result

    async def _call_model(
        self, command: CallModel, holder: list[ModelReply | ModelFailed]
    ) -> AsyncIterator[TextDelta]:
        started = time.monotonic()
        streamed = False
        try:
            litellm = load_litellm()
            if _calls_in_flight.any():
                # Let calls that have finished release their pooled connections
                # before this one takes a slot: with many turns in flight the
                # pool saturates, and waiting for a slot costs more than this
                # yield (benchmarks/concurrency.py: 0.89 -> 1.03 of plain
                # LiteLLM). A lone call skips it: the yield would run LiteLLM's
                # logging of the previous call ahead of this request.
                await asyncio.sleep(0)
            with _calls_in_flight:
                response = await self._until_cancelled(
                    litellm.acompletion(**completion_kwargs(command))
                )
                if not command.stream:
                    holder.append(
                        reply_from_response(
                            response, model=command.llm.model, latency=time.monotonic() - started
                        )
                    )
                    return
                assembler = StreamAssembler(command.llm.model)
                text_filter = _TextFilter(command.hold_back_calls)
                chunks = response.__aiter__()
                while True:
                    try:
                        chunk = await self._until_cancelled(chunks.__anext__())
                    except StopAsyncIteration:
                        break
                    stop = _stopped(self._cancel, self._deadline)
                    if stop is not None:
                        holder.append(ModelFailed(stop, streamed_text=streamed))
                        return
                    text = text_filter.feed(assembler.add(chunk))
                    if text:
                        streamed = True
                        yield TextDelta(
                            run_id=self._run_id, iteration=command.iteration, text=text
                        )
            tail = text_filter.finish()
            if tail:
                streamed = True
                yield TextDelta(run_id=self._run_id, iteration=command.iteration, text=tail)
            holder.append(assembler.reply(time.monotonic() - started, streamed_text=streamed))
        except Exception as exc:  # classified by the loop
            holder.append(ModelFailed(exc, streamed_text=streamed))

    async def _run_tools(self, command: RunTools) -> list[ToolOutcome | BaseException]:
        calls = command.calls
        if len(calls) > 1 and self._tools.parallel_safe(calls):
            batch = asyncio.gather(*(self._tools.arun(c, deadline=command.deadline) for c in calls))
            try:
                return list(await self._until_cancelled(batch))
            except RunCancelled as exc:
                return [exc]
        outcomes: list[ToolOutcome | BaseException] = []
        for call in calls:
            stop = _stopped(self._cancel, self._deadline)
            if stop is not None:
                outcomes.append(stop)
                break
            try:
                outcomes.append(
                    await self._until_cancelled(self._tools.arun(call, deadline=command.deadline))
                )
            except RunCancelled as exc:
                outcomes.append(exc)
                break
        return outcomes

    async def _sleep(self, seconds: float) -> None:
        try:
            await self._until_cancelled(asyncio.sleep(seconds))
        except RunCancelled:
            return


def iterate_sync(steps: Generator[Any, None, T], finish: Callable[[T], None]) -> Iterator[Any]:
    """Iterate a driver's events, handing the loop's return value to ``finish``."""
    outcome = yield from steps
    finish(outcome)
