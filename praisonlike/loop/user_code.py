"""User code the tool loop needs run, yielded as commands for its driver to settle.

The loop (and the tool and hook steps it delegates to) is generator code that
never awaits and never blocks. It yields one of these and reads
:meth:`result` when it is resumed:

- :class:`AwaitUserCode`: an awaitable user code returned (an async hook,
  guardrail or approver). Under ``achat`` / ``astream_events`` the driver
  awaits it on the caller's own event loop (so it may await anything of that
  loop); under ``chat`` / ``stream_events`` it runs on the private bridge loop.
- :class:`CallBlocking`: a call of user code that may block (an approver
  asking ``input()``). The sync driver calls it in the caller's thread, the
  async driver on a worker thread, so it never blocks an event loop.

Either way an exception of the user code is re-raised by :meth:`result`, in
the loop, where it is handled like any other. A run cancelled or past its
``max_execution_time`` deadline stops waiting for awaitable user code at once
(under ``achat`` for a blocking call too): :meth:`result` then raises
``RunCancelled`` or ``RunTimeout``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from praisonlike.loop.stop import deadline_error, stop_error

if TYPE_CHECKING:
    from praisonlike._runtime.cancellation import CancelToken


class _Settled:
    __slots__ = ("_error", "_settled", "_value")

    def __init__(self) -> None:
        self._value: Any = None
        self._error: Exception | None = None
        self._settled = False

    def abandon(self, error: Exception) -> None:
        """Settle it without its value: the driver stopped waiting (a cancelled run)."""
        self._error = error
        self._settled = True

    def result(self) -> Any:
        """The user code's value; re-raises its exception."""
        if not self._settled:
            raise RuntimeError(f"a {type(self).__name__} was yielded by a loop no driver drove")
        if self._error is not None:
            raise self._error
        return self._value


class AwaitUserCode(_Settled):
    """An awaitable from user code, yielded by the loop to be settled by its driver."""

    __slots__ = ("_awaitable",)

    def __init__(self, awaitable: Awaitable[Any]) -> None:
        super().__init__()
        self._awaitable = awaitable

    async def settle(self) -> None:
        """Await the user code; its value or exception is kept for :meth:`result`."""
        try:
            self._value = await self._awaitable
        except Exception as exc:  # raised from result(), in the loop
            self._error = exc
        self._settled = True

    def settle_blocking(self, cancel: CancelToken | None, deadline: float | None) -> None:
        """Settle it from synchronous code (on the bridge loop), blocking this thread
        until it ends, ``cancel`` is cancelled or ``deadline`` (``time.monotonic()``)
        passes; then it is abandoned (cancelled on the bridge loop) with the stop's error.

        A deadline already past when the wait starts does not bound it: the turn
        is then ending for it, and its last hooks still run.
        """
        from praisonlike.tools.async_bridge import submit_coroutine

        future = submit_coroutine(self.settle())
        if deadline is not None and time.monotonic() >= deadline:
            deadline = None
        if cancel is None and deadline is None:
            future.result()
            return
        woken = threading.Event()
        future.add_done_callback(lambda _: woken.set())
        remove = cancel.on_cancel(woken.set) if cancel is not None else _nothing
        try:
            woken.wait(None if deadline is None else max(deadline - time.monotonic(), 0.0))
        finally:
            remove()
        if future.done():
            future.result()
            return
        future.cancel()
        self.abandon(stop_error(cancel, deadline) or deadline_error())


class CallBlocking(_Settled):
    """A call of user code that may block, yielded by the loop to be made by its driver."""

    __slots__ = ("_args", "_function")

    def __init__(self, function: Callable[..., Any], *args: Any) -> None:
        super().__init__()
        self._function = function
        self._args = args

    def settle(self) -> None:
        """Make the call in this thread; its value or exception is kept for :meth:`result`."""
        try:
            self._value = self._function(*self._args)
        except Exception as exc:  # raised from result(), in the loop
            self._error = exc
        self._settled = True


def _nothing() -> None:
    return None
