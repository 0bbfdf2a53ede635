"""How the drivers perform :class:`~praisonlike.loop.commands.InvokeTool`: the tool pipeline's I/O.

Everything else of a tool call (validation, approval, hooks, formatting) is
decided in :meth:`praisonlike.tools.executor.TurnTools.steps`; these two
functions only call the tool and say what it returned, raised, or that it
timed out.

- :func:`invoke_blocking` (the sync driver): a sync tool runs in the caller's
  thread, or on a worker thread when it has a timeout (so the caller can stop
  waiting); an async tool runs on the private bridge loop.
- :func:`invoke_awaiting` (the async driver): an async tool is awaited on the
  caller's loop; a sync tool runs on a worker thread, so it never blocks the
  event loop. A timed-out sync tool runs on to its end on its thread; its
  result is dropped.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from praisonlike._runtime.worker_threads import start_in_thread
from praisonlike.loop.commands import Invoked, InvokeTool
from praisonlike.tools.async_bridge import in_worker_thread, submit_coroutine


def invoke_blocking(command: InvokeTool) -> Invoked:
    """Call the tool, blocking this thread until it returns or times out."""
    try:
        if command.is_async:
            future = submit_coroutine(_called(command.function))
            try:
                value = future.result(command.timeout)
            except FutureTimeout:
                future.cancel()
                raise
        elif command.timeout is None:
            value = command.function()
        else:
            value = start_in_thread(command.function).result(command.timeout)
    except FutureTimeout:
        return Invoked(timed_out=True)
    except Exception as exc:
        return Invoked(error=exc)
    return Invoked(value=value)


async def invoke_awaiting(command: InvokeTool) -> Invoked:
    """Call the tool without blocking the running event loop."""
    function = command.function
    work: Awaitable[Any] = _called(function) if command.is_async else in_worker_thread(function)
    try:
        if command.timeout is None:
            value = await work
        else:
            value = await asyncio.wait_for(work, command.timeout)
    except asyncio.TimeoutError:
        return Invoked(timed_out=True)
    except Exception as exc:
        return Invoked(error=exc)
    return Invoked(value=value)


async def _called(function: Callable[[], Any]) -> Any:
    result = function()
    if inspect.isawaitable(result):
        result = await result
    return result
