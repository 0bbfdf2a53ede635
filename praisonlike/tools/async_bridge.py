"""Run coroutines from synchronous code, even inside a running event loop.

The sync API (``chat``, ``iter_stream``) must work in Jupyter or a FastAPI
handler, where a loop is already running in the calling thread and
``asyncio.run`` fails. Coroutines are therefore run on one private loop in a
daemon thread, started on first use and shared by the process.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from praisonlike.worker_threads import start_in_thread

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
    """Run a blocking function on a pooled daemon thread without blocking the event loop."""
    return await asyncio.wrap_future(start_in_thread(function, *args))
