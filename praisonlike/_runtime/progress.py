"""Progress for the slow steps of first use: assembling the local model file,
starting its server, the first import of LiteLLM.

:func:`slow_step` shows a rich spinner on stderr while the step runs and one
line with its duration when it ends, when stderr is a terminal (the CLI, ``make
demo``, a script run by hand); it is silent otherwise (tests, pipes, CI).
``PRAISONLIKE_PROGRESS=1`` or ``0`` forces it on or off. rich is imported only
when something is shown.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

PROGRESS_ENV = "PRAISONLIKE_PROGRESS"
_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"0", "false", "no", "off"})


def progress_enabled() -> bool:
    """Whether :func:`slow_step` shows anything (``PRAISONLIKE_PROGRESS``, else a tty stderr)."""
    forced = os.environ.get(PROGRESS_ENV, "").strip().lower()
    if forced in _ON:
        return True
    if forced in _OFF:
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def slow_step(description: str) -> Iterator[None]:
    """Show ``description`` with a spinner on stderr while the block runs, when enabled.

    Ends with ``"<description>: done in 1.2s"`` (or ``": failed after ..."`` when
    the block raises; the exception propagates unchanged). When another rich
    live display is active, prints the start line instead of a spinner.
    """
    if not progress_enabled():
        yield
        return
    from rich.console import Console
    from rich.errors import LiveError

    console = Console(stderr=True)
    started = time.monotonic()
    outcome = "failed after"
    try:
        try:
            status = console.status(f"{description}...")
            status.start()
        except LiveError:
            status = None
            console.print(f"[dim]{description}...[/dim]")
        try:
            yield
            outcome = "done in"
        finally:
            if status is not None:
                status.stop()
    finally:
        console.print(f"[dim]{description}: {outcome} {time.monotonic() - started:.1f}s[/dim]")
