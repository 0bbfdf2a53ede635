"""Running the turns of ``praisonlike chat``: events to the display, Ctrl-C to ``agent.cancel()``.

Turns run through :meth:`Agent.astream_events` on one event loop kept for the
whole session (LiteLLM's async clients stay bound to it). While a turn runs,
the first Ctrl-C calls ``agent.cancel()``, which ends the turn at once with
:class:`~praisonlike.errors.RunCancelled`, even during a pending model call; a
second Ctrl-C abandons the turn without waiting for it to wind down.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from praisonlike.agent.agent import Agent
from praisonlike.cli.failures import CommandFailed, ExitCode
from praisonlike.display import LiveDisplay
from praisonlike.errors import RunCancelled
from praisonlike.result import RunResult
from praisonlike.run_enums import TerminationReason

CANCEL_REASON = "cancelled by Ctrl-C"
CUT_SHORT_HINT = (
    "the answer was cut at the model's output limit: --max-tokens raises it "
    "(up to what the model allows)"
)


def cut_short_hint(result: RunResult) -> str | None:
    """What to do about a turn whose answer hit the output-token cap; None for any other."""
    return CUT_SHORT_HINT if result.termination_reason is TerminationReason.LENGTH else None


class TurnRunner:
    """Runs one agent's turns, one at a time, showing each event on ``display``."""

    def __init__(
        self, agent: Agent, display: LiveDisplay, *, on_cancel: Callable[[], None] | None = None
    ) -> None:
        self.agent = agent
        self.display = display
        self._on_cancel = on_cancel
        self._loop = asyncio.new_event_loop()
        self._task: asyncio.Task[RunResult] | None = None
        self._interrupts = 0

    def run(self, prompt: str, *, stream: bool = True) -> RunResult:
        """Run one turn and return its result.

        Raises the turn's typed error (``RunCancelled`` after Ctrl-C), or
        :class:`CommandFailed` (exit code 2) for a prompt that starts with a
        misspelt skill (``/haikuu``), before any turn.
        """
        if prompt.startswith("/"):
            meant = self.agent.skills.near_invocation(prompt)
            if meant is not None:
                typed = prompt.split(maxsplit=1)[0]
                raise CommandFailed(
                    f"there is no skill {typed}: did you mean /{meant}? (to send the text "
                    "as a prompt, start it with a space)",
                    exit_code=ExitCode.USAGE,
                )
        self._interrupts = 0
        self._task = self._loop.create_task(self._turn(prompt, stream))
        try:
            with self._sigint_cancels():
                return self._loop.run_until_complete(self._task)
        except asyncio.CancelledError as exc:
            raise RunCancelled(f"{CANCEL_REASON} (turn abandoned)") from exc
        finally:
            self._task = None

    def close(self) -> None:
        """Close the event loop; the runner cannot be used afterwards."""
        if self._loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()

    async def _turn(self, prompt: str, stream: bool) -> RunResult:
        try:
            async for event in self.agent.astream_events(prompt, stream=stream):
                self.display(event)
        finally:
            self.display.close()
        result = self.agent.last_result
        if result is None:
            raise RuntimeError("the turn ended without a result")
        return result

    def _interrupt(self) -> None:
        self._interrupts += 1
        if self._interrupts == 1:
            if self._on_cancel is not None:
                self._on_cancel()
            self.agent.cancel(CANCEL_REASON)
        elif self._task is not None:
            self._task.cancel()

    @contextlib.contextmanager
    def _sigint_cancels(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous: Any = signal.getsignal(signal.SIGINT)
        via_loop = True
        try:
            self._loop.add_signal_handler(signal.SIGINT, self._interrupt)
        except (NotImplementedError, RuntimeError):
            via_loop = False
            signal.signal(
                signal.SIGINT, lambda *_: self._loop.call_soon_threadsafe(self._interrupt)
            )
        try:
            yield
        finally:
            if via_loop:
                self._loop.remove_signal_handler(signal.SIGINT)
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
