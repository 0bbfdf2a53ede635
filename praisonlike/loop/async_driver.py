"""The asyncio driver of the tool loop: model calls awaited, sync user code on worker threads.

It performs the same commands as :class:`~praisonlike.loop.drivers.SyncDriver`
(see :mod:`praisonlike.loop.drivers`), so ``achat`` and ``astream_events``
behave as ``chat`` and ``stream_events`` do.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Generator
from typing import TYPE_CHECKING, Any

from praisonlike.errors import RunCancelled, RunTimeout
from praisonlike.events import TextDelta
from praisonlike.loop.commands import CallModel, InvokeTool, ModelFailed, ModelReply, RunTools
from praisonlike.loop.drivers import QUIET_COMMANDS, Driver, LoopSteps
from praisonlike.loop.stop import deadline_error
from praisonlike.loop.stream_reader import StreamReader
from praisonlike.loop.tool_io import invoke_awaiting
from praisonlike.loop.user_code import AwaitUserCode, CallBlocking
from praisonlike.models.codec import reply_from_response
from praisonlike.models.sending import aclose, asend
from praisonlike.tools.async_bridge import in_worker_thread

if TYPE_CHECKING:
    from praisonlike.loop.run import Run


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


async def _make_room() -> None:
    """Before a model call: let calls that have finished release their pooled
    connections first, while other calls of the process are in flight.

    With many turns in flight the pool saturates, and waiting for a slot costs
    more than this yield (benchmarks/concurrency.py: 0.89 -> 1.03 of plain
    LiteLLM). A lone call skips it: the yield would run LiteLLM's logging of
    the previous call ahead of this request.
    """
    if _calls_in_flight.any():
        await asyncio.sleep(0)


def _nothing() -> None:
    return None


class AsyncDriver(Driver):
    """Performs the loop's commands with asyncio, on the caller's event loop.

    Model calls, async tools and awaitables of user code are awaited here;
    sync tools and blocking user code (an approver) run on worker threads. A
    model call or a tool call is abandoned at once on cancellation.
    """

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self._waiting: asyncio.Task[Any] | None = None
        """The task awaiting in :meth:`_until_cancelled`, which a cancellation interrupts."""
        self._interrupted = False

    async def drive(
        self, steps: LoopSteps[Any], finish: Callable[[Any], None]
    ) -> AsyncIterator[Any]:
        """Yield the run's events; hand the loop's return value to ``finish``."""
        run = self._run
        observers = run.observers
        for event in run.opening:
            if observers:
                run.observe(event)
            yield event
        stop_listening = self._listen(asyncio.get_running_loop())
        try:
            reply: Any = None
            while True:
                try:
                    item = steps.send(reply)
                except StopIteration as stop:
                    finish(stop.value)
                    return
                reply = None
                kind = item.__class__
                if kind is CallModel:
                    if item.stream:
                        holder: list[ModelReply | ModelFailed] = []
                        async for event in self._stream_model(item, holder):
                            yield event
                        reply = holder[0]
                    else:
                        reply = await self._call_model(item)
                elif kind in QUIET_COMMANDS:
                    reply = await self._perform(item, interruptible=True)
                else:
                    if observers:
                        run.observe(item)
                    yield item
        finally:
            stop_listening()

    def _listen(self, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
        """Have a cancellation (from any thread) interrupt whatever await of the turn is
        in :meth:`_until_cancelled`, once for the whole turn; returns the unregistering."""
        cancel = self._cancel
        if cancel is None:
            return _nothing

        def interrupt() -> None:
            task = self._waiting
            if task is not None and not self._interrupted:
                self._interrupted = True
                task.cancel()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # a closed loop: nothing waits any more
                loop.call_soon_threadsafe(interrupt)

        return cancel.on_cancel(wake)

    async def _perform(self, item: Any, *, interruptible: bool) -> Any:
        """Perform a command other than a model call; its outcome for the loop.

        When ``interruptible``, a tool call or user code is abandoned on
        cancellation (the tool's outcome is then the ``RunCancelled``; the user
        code's result raises it); a batch is abandoned as a whole.
        """
        if isinstance(item, InvokeTool):
            if not interruptible:
                return await invoke_awaiting(item)
            try:
                return await self._until_cancelled(invoke_awaiting(item))
            except RunCancelled as exc:
                return exc
        if isinstance(item, RunTools):
            return await self._run_batch(item)
        if isinstance(item, (AwaitUserCode, CallBlocking)):
            work = (
                item.settle() if isinstance(item, AwaitUserCode) else in_worker_thread(item.settle)
            )
            if not interruptible:
                await work
                return None
            try:
                await self._until_cancelled(self._by_deadline(work))
            except (RunCancelled, RunTimeout) as exc:
                item.abandon(exc)
            return None
        await self._sleep(item.seconds)
        return None

    async def _drive_quietly(self, steps: Generator[Any, Any, Any]) -> Any:
        """Drive a pipeline that yields only commands (one call's tool steps)."""
        reply: Any = None
        while True:
            try:
                item = steps.send(reply)
            except StopIteration as stop:
                return stop.value
            reply = await self._perform(item, interruptible=False)

    async def _run_batch(self, command: RunTools) -> list[Any]:
        batch = asyncio.gather(*(self._drive_quietly(p) for p in command.pipelines))
        try:
            return list(await self._until_cancelled(self._by_deadline(batch)))
        except (RunCancelled, RunTimeout) as exc:
            return [exc]

    async def _by_deadline(self, awaitable: Any) -> Any:
        """Await ``awaitable`` until the run's deadline, then stop it and raise RunTimeout.

        A deadline already past when the wait starts does not bound it: the turn
        is then ending for it, and its last hooks still run.
        """
        deadline = self._deadline
        if deadline is None or time.monotonic() >= deadline:
            return await awaitable
        try:
            return await asyncio.wait_for(awaitable, deadline - time.monotonic())
        except asyncio.TimeoutError:  # user code's own errors are kept by its command
            raise deadline_error() from None

    async def _until_cancelled(self, awaitable: Any) -> Any:
        """Await ``awaitable`` in this task; on cancellation, stop it and raise RunCancelled.

        The turn's cancellation callback (see :meth:`_listen`) cancels the
        current task while it waits here, so the awaitable is stopped at its
        current ``await`` without a task or a loop iteration of its own.
        """
        cancel = self._cancel
        if cancel is None:
            return await awaitable
        if cancel.cancelled:
            _discard(awaitable)
            raise RunCancelled(cancel.reason or "cancelled")
        task = asyncio.current_task()
        assert task is not None, "the async driver runs inside an asyncio task"
        self._waiting, self._interrupted = task, False
        try:
            result = await awaitable
        except (Exception, asyncio.CancelledError) as exc:
            if not self._interrupted or _still_cancelling(task):
                raise
            # stopped by the token: whatever the awaitable raised on the way out
            cause = None if isinstance(exc, asyncio.CancelledError) else exc
            raise RunCancelled(cancel.reason or "cancelled") from cause
        finally:
            self._waiting = None
        if self._interrupted and not _still_cancelling(task):  # the cancel was swallowed
            raise RunCancelled(cancel.reason or "cancelled")
        return result

    async def _call_model(self, command: CallModel) -> ModelReply | ModelFailed:
        """A non-streamed call: its reply, or how it failed."""
        started = time.monotonic()
        try:
            await _make_room()
            with _calls_in_flight:
                stop = self._stop()
                if stop is not None:  # nothing sent
                    return ModelFailed(stop)
                response = await self._until_cancelled(asend(command))
            return reply_from_response(
                response, model=command.llm.model, latency=time.monotonic() - started
            )
        except Exception as exc:  # classified by the loop
            return self._failed(exc, None)

    async def _stream_model(
        self, command: CallModel, holder: list[ModelReply | ModelFailed]
    ) -> AsyncIterator[TextDelta]:
        """A streamed call: yields its text deltas, then puts its outcome in ``holder``."""
        started = time.monotonic()
        reader: StreamReader | None = None
        response: Any = None
        try:
            await _make_room()
            with _calls_in_flight:
                stop = self._stop()
                if stop is not None:  # nothing sent
                    holder.append(ModelFailed(stop))
                    return
                response = await self._until_cancelled(asend(command))
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
                    if text and self._emits:
                        yield self._delta(command, text)
            tail = reader.finish()
            if tail and self._emits:
                yield self._delta(command, tail)
            holder.append(reader.reply())
        except Exception as exc:  # classified by the loop
            holder.append(self._failed(exc, reader))
        finally:
            if reader is not None:
                await aclose(response)

    async def _sleep(self, seconds: float) -> None:
        try:
            await self._until_cancelled(asyncio.sleep(seconds))
        except RunCancelled:
            return
