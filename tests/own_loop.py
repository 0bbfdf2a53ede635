"""Run a coroutine on an event loop of its own thread, failing if it blocks that loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

BOUND = 30.0


def run_on_own_loop(main: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """``asyncio.run(main())`` on a new thread, bounded; re-raises what it raised.

    Fails the test when the thread is still alive after the bound: the code
    under test blocked its own event loop.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(asyncio.wait_for(main(), BOUND))
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(BOUND * 1.5)
    assert not thread.is_alive(), "achat blocked its own event loop"
    if "error" in box:
        raise box["error"]
    return box["value"]
