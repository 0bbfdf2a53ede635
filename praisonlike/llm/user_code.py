"""Awaiting what user code returns in the middle of a turn.

The tool loop is generator code and never awaits. When user code it calls
(an async output guardrail) returns an awaitable, the loop yields an
:class:`AwaitUserCode` and reads :meth:`AwaitUserCode.result` when it is
resumed. The :class:`~praisonlike.llm.dispatcher.Dispatcher` settles it before
resuming the loop: under ``achat`` / ``astream_events`` it is awaited on the
caller's own event loop (so it may await anything of that loop); under
``chat`` / ``stream_events`` it runs on the private bridge loop, in a copy of
the caller's context.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any


class AwaitUserCode:
    """An awaitable from user code, yielded by the loop to be settled by its dispatcher."""

    __slots__ = ("_awaitable", "_error", "_settled", "_value")

    def __init__(self, awaitable: Awaitable[Any]) -> None:
        self._awaitable = awaitable
        self._value: Any = None
        self._error: Exception | None = None
        self._settled = False

    async def settle(self) -> None:
        """Await the user code; its value or exception is kept for :meth:`result`."""
        try:
            self._value = await self._awaitable
        except Exception as exc:  # raised from result(), in the loop
            self._error = exc
        self._settled = True

    def settle_blocking(self) -> None:
        """Settle it from synchronous code (on the bridge loop), blocking this thread."""
        from praisonlike.tools.async_bridge import submit_coroutine

        submit_coroutine(self.settle()).result()

    def result(self) -> Any:
        """The user code's value; re-raises its exception."""
        if not self._settled:
            raise RuntimeError("user code was yielded by a loop that no dispatcher drove")
        if self._error is not None:
            raise self._error
        return self._value
