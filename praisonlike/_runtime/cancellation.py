"""Cooperative cancellation of a running turn, from any thread or task."""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable, Generator, Iterable
from typing import Any, TypeVar

from praisonlike._runtime.worker_threads import workers
from praisonlike.errors import RunCancelled

T = TypeVar("T")


class CancelToken:
    """A one-shot cancellation flag.

    ``cancel()`` may be called from any thread. The run checks the token
    before each LLM call, between tool calls, between stream chunks and during
    backoff sleeps. A pending LLM call is abandoned at once under ``achat``
    (and under ``chat`` with ``ExecutionConfig(interruptible_calls=True)``);
    otherwise the turn ends when the call returns. A running tool is
    abandoned at once under ``achat``; a sync tool under ``chat`` runs in the
    caller's thread, so the turn ends when it returns (a long tool can watch
    ``RunContext.cancel_token``). Async user code (hooks, guardrails,
    approvers) is abandoned at once under every entry point.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self._cancelled = False
        self.reason: str | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self, reason: str = "cancelled") -> None:
        with self._lock:
            if self._cancelled:
                return
            self.reason = reason
            self._cancelled = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def wait(self, timeout: float | None) -> bool:
        """Sleep up to ``timeout`` seconds; True if cancelled meanwhile."""
        woken = threading.Event()
        remove = self.on_cancel(woken.set)
        try:
            return woken.wait(timeout)
        finally:
            remove()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` once on cancellation (at once if already cancelled).

        Returns a function that unregisters it.
        """
        with self._lock:
            if not self._cancelled:
                self._callbacks.append(callback)

                def remove() -> None:
                    with self._lock:
                        if callback in self._callbacks:
                            self._callbacks.remove(callback)

                return remove
        callback()
        return lambda: None


def iterate_cancellable(
    produce: Callable[[], Iterable[T]], token: CancelToken
) -> Generator[T, None, None]:
    """Yield what ``produce()`` yields, computed on a daemon thread, until ``token`` is cancelled.

    For blocking I/O the caller cannot interrupt (an HTTP call, a stream's next
    chunk). An exception of ``produce`` is raised here. On cancellation
    :class:`~praisonlike.errors.RunCancelled` is raised at once; the thread is
    left to finish on its own (it stops at its next item, and closes what
    ``produce()`` returned) and its output is dropped. Closing the iterator
    early likewise abandons the thread.
    """
    if token.cancelled:
        raise RunCancelled(token.reason or "cancelled")
    items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    abandoned = threading.Event()

    def pump() -> None:
        produced = iter(produce())
        try:
            for item in produced:
                if abandoned.is_set():
                    return
                items.put(("item", item))
        except BaseException as exc:  # handed to the consumer, which re-raises it
            items.put(("error", exc))
        else:
            items.put(("end", None))
        finally:
            closer = getattr(produced, "close", None)
            if closer is not None:
                closer()

    context = contextvars.copy_context()
    workers.submit(lambda: context.run(pump))
    remove = token.on_cancel(lambda: items.put(("cancelled", None)))
    try:
        while True:
            kind, value = items.get()
            if kind == "item":
                yield value
            elif kind == "end":
                return
            elif kind == "error":
                raise value
            else:
                raise RunCancelled(token.reason or "cancelled")
    finally:
        abandoned.set()
        remove()
