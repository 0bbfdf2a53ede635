"""Run coroutines from synchronous code, even inside a running event loop.

The sync API (``chat``, ``iter_stream``) must work in Jupyter or a FastAPI
handler, where a loop is already running in the calling thread and
``asyncio.run`` fails. Coroutines are therefore run on one private loop in a
daemon thread, started on first use and shared by the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from praisonlike._runtime.worker_threads import workers

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _bridge_loop() -> asyncio.AbstractEventLoop:
    global _loop
    if _loop is not None:
        return _loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="praisonlike-async-bridge", daemon=True
            )
            thread.start()
            _loop = loop
    return _loop


def submit_coroutine(coroutine: Coroutine[Any, Any, T]) -> Future[T]:
    """Schedule ``coroutine`` on the bridge loop; wait with ``.result(timeout)``."""
    return asyncio.run_coroutine_threadsafe(coroutine, _bridge_loop())


async def in_worker_thread(function: Callable[..., T], *args: Any) -> T:
    """Run a blocking function on a pooled daemon thread without blocking the event loop.

    The function runs in a copy of the caller's context. Cancelling the await
    (a timeout, a cancelled task) stops waiting at once; the function runs on
    to its end on its thread and its result is dropped.
    """
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            outcome = _Outcome(value=context.run(function, *args))
        except BaseException as exc:  # handed to the awaiting task
            outcome = _Outcome(error=exc)
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(outcome.deliver, waiter)

    workers.submit(run)
    return await waiter


class _Outcome:
    """A worker thread's result or exception, delivered to a waiter on the event loop."""

    __slots__ = ("error", "value")

    def __init__(self, value: Any = None, error: BaseException | None = None) -> None:
        self.value = value
        self.error = error

    def deliver(self, waiter: asyncio.Future[Any]) -> None:
        if waiter.done():
            return
        error = self.error
        if isinstance(error, StopIteration):  # a Future refuses it
            error = RuntimeError(f"the function raised {error!r}")
            error.__cause__ = self.error
        if error is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(self.value)
