"""Reusable daemon threads for blocking work: sync tools under ``achat``, interruptible calls.

Starting a thread per call costs more than the agent's own work on a fast
model call, so threads are kept and reused. A call never waits for a free
thread: when none is idle a new one is started, so a tool abandoned after its
timeout (or a cancelled call) never holds up another call; its thread rejoins
the pool when the work returns, or ends if enough threads are idle already.
Daemon threads, so hung work never delays interpreter exit.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")


class DaemonWorkers:
    """A pool of daemon threads that grows whenever all of them are busy.

    At most ``max_idle`` threads are kept waiting for work; a thread that
    finishes a job when that many are idle already ends, so a burst of
    concurrent calls leaves no crowd of threads behind.
    """

    def __init__(self, name: str, max_idle: int = 16) -> None:
        self._name = name
        self._max_idle = max_idle
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job()`` on an idle worker, or on a new one if none is idle."""
        with self._lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
        if spawn:
            threading.Thread(target=self._work, name=self._name, daemon=True).start()
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            job()
            with self._lock:
                if self._idle >= self._max_idle:
                    return
                self._idle += 1


workers = DaemonWorkers("praisonlike-worker")
"""The process's shared pool."""


def start_in_thread(function: Callable[..., T], *args: Any) -> Future[T]:
    """Run ``function(*args)`` on a pooled daemon thread, in the caller's context.

    Returns its future at once; the function's exception is set on it.
    """
    from concurrent.futures import Future  # imports logging: not at construction

    future: Future[T] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(context.run(function, *args))
        except BaseException as exc:  # handed to whoever waits on the future
            future.set_exception(exc)

    workers.submit(run)
    return future
