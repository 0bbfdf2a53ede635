"""The one stop check of a run: cancelled, or past its deadline.

The tool loop asks it before each model call, between tool calls and after
a retry wait; the drivers ask it before sending a call, between stream chunks
and between the calls of a tool batch. Both get the same answer from
:func:`stop_error`.
"""

from __future__ import annotations

import time

from praisonlike._runtime.cancellation import CancelToken
from praisonlike.errors import RunCancelled, RunTimeout


def deadline_error() -> RunTimeout:
    """The error of a run that passed its ``max_execution_time`` deadline."""
    return RunTimeout("the run passed its max_execution_time deadline")


def past(deadline: float | None) -> bool:
    """True once ``deadline`` (a ``time.monotonic()`` instant) has passed."""
    return deadline is not None and time.monotonic() >= deadline


def stop_error(
    cancel: CancelToken | None, deadline: float | None
) -> RunCancelled | RunTimeout | None:
    """The error that ends the run now, if any: cancellation first, then the deadline."""
    if cancel is not None and cancel.cancelled:
        return RunCancelled(cancel.reason or "cancelled")
    if deadline is not None and time.monotonic() >= deadline:
        return deadline_error()
    return None
