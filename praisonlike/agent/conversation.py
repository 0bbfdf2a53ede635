"""Conversation: the state of one agent's conversation, under one lock.

It holds the history (user, assistant and tool messages of the turns that
succeeded), the pending steering messages, the long-term summary, the last
turn's result, and the cancel tokens of the turns running now; every read and
write of them takes the one lock, so a :meth:`Conversation.steer` from another
thread, a background summary update and a turn closing never see each other
half-done. It also enforces the one-turn-at-a-time rule
(:mod:`praisonlike.agent.turn_gate`): :meth:`Conversation.turn` /
:meth:`Conversation.aturn` around every turn.

A turn's life: :meth:`history_for_turn` (the history it starts from),
:meth:`start_turn` (its cancel token), :meth:`drain_steering` while it runs,
then :meth:`close_turn`, which commits the turn's new messages when it
succeeded, or gives the steering it took back to the front of the queue when
it failed. Nothing here imports, reads or runs anything else.
"""

from __future__ import annotations

import copy
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from praisonlike.agent.turn_gate import TurnGate

if TYPE_CHECKING:
    from praisonlike._runtime.cancellation import CancelToken
    from praisonlike.result import RunResult

Message = dict[str, Any]


class Conversation:
    """History, steering, summary and last result of one conversation (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gate = TurnGate()
        self._history: list[Message] = []
        self._steering: deque[str] = deque()
        self._summary: str | None = None
        self._last_result: RunResult | None = None
        self._running: list[CancelToken] = []

    # -- one turn at a time -------------------------------------------------------

    def turn(self) -> TurnGate:
        """Hold the conversation for one turn (``with conversation.turn():``), blocking
        while another turn holds it; ``async with conversation.aturn():`` in a task.

        Raises :class:`~praisonlike.errors.ConcurrentTurnError` when entered from
        inside the turn that holds it (see :mod:`praisonlike.agent.turn_gate`).
        """
        return self._gate

    def aturn(self) -> TurnGate:
        """:meth:`turn` for a task: waiting does not block the event loop."""
        return self._gate

    def start_turn(self, cancel: CancelToken) -> None:
        """Record a running turn by its cancel token (see :meth:`running`)."""
        with self._lock:
            self._running.append(cancel)

    def running(self) -> list[CancelToken]:
        """The cancel tokens of the turns started and not yet closed or abandoned."""
        with self._lock:
            return list(self._running)

    def abandon_turn(self, cancel: CancelToken) -> None:
        """The turn of ``cancel`` ends without a result; history and steering stay as they are."""
        with self._lock:
            self._drop(cancel)

    def close_turn(
        self,
        cancel: CancelToken,
        result: RunResult,
        new_messages: Sequence[Message] | None,
        taken_steering: Sequence[str] = (),
    ) -> None:
        """End the turn of ``cancel`` with ``result`` (then :attr:`last_result`).

        ``new_messages`` (the succeeded turn's messages) are appended to the
        history; ``None`` means the turn failed: the history is unchanged and
        ``taken_steering`` goes back to the front of the queue, in order.
        """
        with self._lock:
            self._drop(cancel)
            self._last_result = result
            if new_messages is None:
                self._steering.extendleft(reversed(taken_steering))
            else:
                self._history.extend(new_messages)

    def _drop(self, cancel: CancelToken) -> None:
        if cancel in self._running:
            self._running.remove(cancel)

    # -- history ------------------------------------------------------------------

    def history_for_turn(self) -> list[Message]:
        """The history a turn starts from: a new list of the stored messages.

        The messages themselves are shared, not copied: a turn must not change
        them (the tool loop never does).
        """
        with self._lock:
            return list(self._history)

    def history(self) -> list[Message]:
        """A copy of the history (its dicts and lists copied): changing it changes nothing here."""
        from praisonlike.context.messages import snapshot

        with self._lock:
            return [snapshot(message) for message in self._history]

    def start_from(self, messages: Iterable[Message]) -> bool:
        """Use ``messages`` as the history if it is empty (a resumed session); True if used."""
        with self._lock:
            if self._history:
                return False
            self._history = list(messages)
            return True

    def clear(self) -> None:
        """Forget the history (the summary, steering and last result stay)."""
        with self._lock:
            self._history = []

    @property
    def last_result(self) -> RunResult | None:
        """The result of the last turn closed (``None`` before any)."""
        with self._lock:
            return self._last_result

    # -- steering -----------------------------------------------------------------

    def steer(self, text: str) -> None:
        """Queue ``text`` for the running (or next) turn."""
        with self._lock:
            self._steering.append(text)

    def pending_steering(self) -> list[str]:
        """The queued steering messages, oldest first."""
        with self._lock:
            return list(self._steering)

    def drain_steering(self) -> list[str]:
        """Take every queued steering message, oldest first, emptying the queue."""
        with self._lock:
            drained = list(self._steering)
            self._steering.clear()
        return drained

    # -- long-term summary ----------------------------------------------------------

    @property
    def summary(self) -> str | None:
        """The long-term summary (``None`` when there is none)."""
        with self._lock:
            return self._summary

    def set_summary(self, text: str | None) -> None:
        """Replace the long-term summary."""
        with self._lock:
            self._summary = text

    # -- saved state ----------------------------------------------------------------

    def save(self) -> dict[str, Any]:
        """``history`` (deep-copied), ``summary`` and ``pending_steering``, read at one instant."""
        with self._lock:
            return {
                "history": copy.deepcopy(self._history),
                "summary": self._summary,
                "pending_steering": list(self._steering),
            }

    def load(
        self, history: Sequence[Message], summary: str | None, pending_steering: Iterable[str]
    ) -> None:
        """Replace history (deep-copied), summary and pending steering at one instant."""
        messages = copy.deepcopy(list(history))
        with self._lock:
            self._history = messages
            self._summary = summary
            self._steering = deque(pending_steering)
