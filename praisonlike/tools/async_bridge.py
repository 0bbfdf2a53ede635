"""Run coroutines from synchronous code, even inside a running event loop.

The sync API (``chat``, ``iter_stream``) must work in Jupyter or a FastAPI
handler, where a loop is already running in the calling thread and
``asyncio.run`` fails. Coroutines are therefore run on one private loop in a
daemon thread, started on first use and shared by the process.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

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


def start_in_thread(function: Callable[..., T], *args: Any) -> Future[T]:
    """Run a blocking function on a new daemon thread; returns its future at once.

    One thread per call, so a tool abandoned after its timeout never holds a
    slot another call needs, and a hung tool never delays interpreter exit.
    """
    future: Future[T] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(context.run(function, *args))
        except BaseException as exc:  # handed to whoever waits on the future
            future.set_exception(exc)

    threading.Thread(target=run, name="praisonlike-tool", daemon=True).start()
    return future


async def in_worker_thread(function: Callable[..., T], *args: Any) -> T:
    """Run a blocking function without blocking the event loop (see :func:`start_in_thread`)."""
    return await asyncio.wrap_future(start_in_thread(function, *args))
