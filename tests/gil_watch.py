"""A helper for tests that check a piece of code keeps the GIL."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gil_watcher() -> Iterator[list[str]]:
    """A thread that is waiting for the GIL and records when it got it.

    With a switch interval of minutes the thread can only run when the main
    thread gives the GIL up by itself (a blocking call, or C code that
    releases it). Warm up what the checked code loads (files, modules)
    before entering: loading releases the GIL.
    """
    ran: list[str] = []
    gate = threading.Lock()
    gate.acquire()

    def watch() -> None:
        with gate:
            ran.append("ran")

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(300.0)
    try:
        gate.release()
        spin_until = time.perf_counter() + 0.05
        while time.perf_counter() < spin_until:  # keep the GIL while the watcher wakes up
            pass
        yield ran
    finally:
        sys.setswitchinterval(interval)
        thread.join(timeout=5)
