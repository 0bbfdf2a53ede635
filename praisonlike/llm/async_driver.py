"""The asyncio driver of the tool loop: model calls awaited, sync tools on worker threads.

It performs the same commands as :class:`~praisonlike.llm.drivers.SyncDriver`
(see :mod:`praisonlike.llm.drivers`), so ``achat`` and ``astream_events``
behave as ``chat`` and ``stream_events`` do.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from praisonlike.errors import RunCancelled
from praisonlike.events import TextDelta
from praisonlike.llm.drivers import Driver, LoopSteps, StreamReader
from praisonlike.llm.model_call import reply_from_response
from praisonlike.llm.protocol import (
    CallModel,
    InvokeHook,
    ModelFailed,
    ModelReply,
    RunTools,
    Sleep,
    ToolOutcome,
)
from praisonlike.llm.transport import aclose, asend


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


class AsyncDriver(Driver):
    """Performs the loop's commands with asyncio; sync tools run in worker threads."""

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
        reader: StreamReader | None = None
        response: Any = None
        try:
            if _calls_in_flight.any():
                # Let calls that have finished release their pooled connections
                # before this one takes a slot: with many turns in flight the
                # pool saturates, and waiting for a slot costs more than this
                # yield (benchmarks/concurrency.py: 0.89 -> 1.03 of plain
                # LiteLLM). A lone call skips it: the yield would run LiteLLM's
                # logging of the previous call ahead of this request.
                await asyncio.sleep(0)
            with _calls_in_flight:
                stop = self._stop()
                if stop is not None:  # nothing sent
                    holder.append(ModelFailed(stop))
                    return
                response = await self._until_cancelled(asend(command))
                if not command.stream:
                    holder.append(
                        reply_from_response(
                            response, model=command.llm.model, latency=time.monotonic() - started
                        )
                    )
                    return
                reader = StreamReader(command, started)
                chunks = response.__aiter__()
                while True:
                    try:
                        chunk = await self._until_cancelled(chunks.__anext__())
                    except StopAsyncIteration:
                        break
                    stop = self._stop()
                    if stop is not None:
                        reader.take(chunk)
                        holder.append(self._failed(stop, reader))
                        return
                    text = reader.take(chunk)
                    if text:
                        yield self._delta(command, text)
            tail = reader.finish()
            if tail:
                yield self._delta(command, tail)
            holder.append(reader.reply())
        except Exception as exc:  # classified by the loop
            holder.append(self._failed(exc, reader))
        finally:
            if reader is not None:
                await aclose(response)

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
            stop = self._stop()
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
