"""SteeringMixin: redirect an agent that is already working.

``steer(text)`` may be called from any thread or task while a turn runs. Queued
messages are added as user messages at the start of the next LLM call (at turn
start, and between tool rounds of a running turn), each with a ``steering``
event, and are kept in history in order. If the turn fails, the messages it
took go back to the front of the queue, so nothing the user wrote is lost.

Uses from ``self``: ``_steering_queue``, ``_steering_lock``.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING

from praisonlike.errors import InvalidInputError


class SteeringMixin:
    _steering_queue: deque[str]
    _steering_lock: threading.Lock

    if TYPE_CHECKING:

        def _is_running(self) -> bool: ...

        def _remote_steer(self, text: str) -> bool: ...

    def steer(self, text: str) -> None:
        """Queue a message for the running (or next) turn. Thread-safe.

        With no turn running here and a store that carries control signals
        (PostgreSQL), the message goes to the process running the session.
        """
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("steering text must be a non-empty str")
        if not self._is_running() and self._remote_steer(text):
            return
        with self._steering_lock:
            self._steering_queue.append(text)

    def pending_steering(self) -> list[str]:
        """The queued steering messages, oldest first."""
        with self._steering_lock:
            return list(self._steering_queue)

    def _drain_steering_into(self, taken: list[str]) -> list[str]:
        with self._steering_lock:
            drained = list(self._steering_queue)
            self._steering_queue.clear()
        taken.extend(drained)
        return drained

    def _requeue_steering(self, taken: list[str]) -> None:
        if not taken:
            return
        with self._steering_lock:
            self._steering_queue.extendleft(reversed(taken))
