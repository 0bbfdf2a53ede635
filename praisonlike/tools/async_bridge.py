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
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_threads: ThreadPoolExecutor | None = None


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


def worker_threads() -> ThreadPoolExecutor:
    """A shared pool for sync tools that run under a timeout (abandoned on expiry)."""
    global _threads
    if _threads is not None:
        return _threads
    with _lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(max_workers=32, thread_name_prefix="praisonlike-tool")
    return _threads


async def in_worker_thread(function: Callable[..., T], *args: Any) -> T:
    """Run a blocking function in the shared pool without blocking the event loop.

    Unlike ``asyncio.to_thread`` the pool is not the loop's default executor, so
    ``asyncio.run`` does not wait at exit for a tool abandoned after a timeout.
    """
    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(worker_threads(), context.run, function, *args)
