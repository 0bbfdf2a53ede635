"""The drivers of the tool loop, and the synchronous one.

A driver takes the loop's generator, performs each command it yields (a model
call, a tool call, a batch of tool pipelines, user code, a sleep), passes
events through to its caller and sends the outcome back. That is all a driver
does: every decision is the loop's, so ``chat``, ``achat``, ``iter_stream``
and ``stream_events`` behave alike by construction. A driver is made for one
:class:`~praisonlike.loop.run.Run` and yields its opening events first; each
event goes to the run's observers before it is yielded. The asyncio driver is
in :mod:`praisonlike.loop.async_driver`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import TYPE_CHECKING, Any, TypeVar

from praisonlike._runtime.cancellation import iterate_cancellable
from praisonlike.errors import RunCancelled, RunTimeout
from praisonlike.events import TextDelta
from praisonlike.loop.commands import (
    CallModel,
    CutShort,
    InvokeTool,
    ModelFailed,
    ModelReply,
    RunTools,
    Sleep,
)
from praisonlike.loop.stop import stop_error
from praisonlike.loop.stream_reader import StreamReader
from praisonlike.loop.tool_io import invoke_blocking
from praisonlike.loop.user_code import AwaitUserCode, CallBlocking
from praisonlike.models.codec import reply_from_response
from praisonlike.models.sending import close, send

if TYPE_CHECKING:
    from praisonlike.loop.run import Run

T = TypeVar("T")
LoopSteps = Generator[Any, Any, T]


class Driver:
    """What both drivers hold: the run, and when it stops."""

    def __init__(self, run: Run) -> None:
        spec = run.spec
        self._run = run
        self._run_id = spec.run_id
        self._cancel = spec.cancel
        self._deadline = spec.deadline
        self._emits = spec.emit_events

    def _stop(self) -> BaseException | None:
        """The error that ends the run now (cancelled, or past its deadline), if any."""
        return stop_error(self._cancel, self._deadline)

    def _delta(self, command: CallModel, text: str) -> TextDelta:
        delta = TextDelta(run_id=self._run_id, iteration=command.iteration, text=text)
        if self._run.observers:
            self._run.observe(delta)
        return delta

    @staticmethod
    def _failed(error: BaseException, reader: StreamReader | None) -> ModelFailed:
        """The outcome of a call that raised ``error`` after its request was sent.

        A stop (cancel, deadline) carries what the call had produced, so its
        tokens are counted.
        """
        cut = None
        if isinstance(error, (RunCancelled, RunTimeout)):
            cut = reader.cut_short() if reader is not None else CutShort()
        return ModelFailed(
            error, streamed_text=reader is not None and reader.streamed, cut_short=cut
        )


class SyncDriver(Driver):
    """Performs the loop's commands with blocking calls; usable inside a running event loop.

    Model calls run in the caller's thread, and a cancellation is seen when
    the call returns or at its next chunk. With a cancel token and
    ``interruptible_calls``, each call (and its stream) runs on a daemon
    thread instead, so cancellation abandons it at once. Tools and blocking
    user code run in the caller's thread (a tool with a timeout on a worker
    thread); a parallel-safe batch runs on a thread per call; awaitables of
    user code run on the private bridge loop.
    """

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self._blocking = self._cancel is None or not run.spec.execution.interruptible_calls
        """Calls run in the caller's thread (no cancel token, or not interruptible)."""

    def drive(self, steps: LoopSteps[T], finish: Callable[[T], None]) -> Generator[Any, None, None]:
        """Yield the run's events; hand the loop's return value to ``finish``."""
        run = self._run
        observers = run.observers
        for event in run.opening:
            if observers:
                run.observe(event)
            yield event
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
                reply = yield from self._call_model(item)
            elif kind in QUIET_COMMANDS:
                reply = self._perform(item)
            else:
                if observers:
                    run.observe(item)
                yield item

    def _perform(self, item: Any) -> Any:
        """Perform a command other than a model call; its outcome for the loop."""
        if isinstance(item, InvokeTool):
            return invoke_blocking(item)
        if isinstance(item, RunTools):
            return self._run_batch(item)
        if isinstance(item, AwaitUserCode):
            item.settle_blocking(self._cancel, self._deadline)
        elif isinstance(item, CallBlocking):
            item.settle()
        elif self._cancel is not None:
            self._cancel.wait(item.seconds)
        else:
            time.sleep(item.seconds)
        return None

    def _drive_quietly(self, steps: Generator[Any, Any, T]) -> T | RunCancelled | RunTimeout:
        """Drive a pipeline that yields only commands (one call's tool steps); the stop's
        error when the run stopped waiting for its user code."""
        reply: Any = None
        while True:
            try:
                item = steps.send(reply)
            except StopIteration as stop:
                result: T = stop.value
                return result
            except (RunCancelled, RunTimeout) as stopped:
                return stopped
            reply = self._perform(item)

    def _run_batch(self, command: RunTools) -> list[Any]:
        pipelines = command.pipelines
        with ThreadPoolExecutor(max_workers=min(8, len(pipelines))) as pool:
            futures = [
                pool.submit(copy_context().run, self._drive_quietly, pipeline)
                for pipeline in pipelines
            ]
            return [future.result() for future in futures]

    def _model_output(self, command: CallModel) -> Generator[Any, None, None]:
        """The response (non-streamed) or its chunks, abandoned at once on cancellation
        when the calls are interruptible (a blocking non-streamed call needs none of it)."""

        def produce() -> Generator[Any, None, None]:
            response = send(command)
            if not command.stream:
                yield response
                return
            try:
                yield from response
            finally:  # left early: release the connection now, not when collected
                close(response)

        if self._blocking or self._cancel is None:
            return produce()
        return iterate_cancellable(produce, self._cancel)

    def _call_model(self, command: CallModel) -> Generator[Any, None, ModelReply | ModelFailed]:
        started = time.monotonic()
        reader: StreamReader | None = None
        stop = self._stop()
        if stop is not None:  # nothing sent
            return ModelFailed(stop)
        output = None if self._blocking and not command.stream else self._model_output(command)
        try:
            if not command.stream:
                response = send(command) if output is None else next(output)
                return reply_from_response(
                    response, model=command.llm.model, latency=time.monotonic() - started
                )
            assert output is not None
            reader = StreamReader(command, started)
            for chunk in output:
                stop = self._stop()
                if stop is not None:
                    reader.take(chunk)
                    return self._failed(stop, reader)
                text = reader.take(chunk)
                if text and self._emits:
                    yield self._delta(command, text)
            tail = reader.finish()
            if tail and self._emits:
                yield self._delta(command, tail)
            return reader.reply()
        except Exception as exc:  # classified by the loop
            return self._failed(exc, reader)
        finally:
            if output is not None:
                output.close()


QUIET_COMMANDS = frozenset({InvokeTool, AwaitUserCode, CallBlocking, RunTools, Sleep})
"""The commands a driver performs without events (a model call may stream events)."""
