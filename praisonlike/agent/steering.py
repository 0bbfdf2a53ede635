"""SteeringMixin: redirect an agent that is already working.

``steer(text)`` may be called from any thread or task while a turn runs. Queued
messages are added as user messages at the start of the next LLM call (at turn
start, and between tool rounds of a running turn), each with a ``steering``
event, and are kept in history in order. If the turn fails, the messages it
took go back to the front of the queue, so nothing the user wrote is lost.

An adapter over the agent's :class:`~praisonlike.agent.conversation.Conversation`
(the queue); with no turn running here, the session
(:class:`~praisonlike.agent.session.SessionBinding`) may send the text to the
process running the session's turn instead.
"""

from __future__ import annotations

from praisonlike.agent.parts import HasParts
from praisonlike.errors import InvalidInputError


class SteeringMixin(HasParts):
    def steer(self, text: str) -> None:
        """Queue a message for the running (or next) turn. Thread-safe.

        With no turn running here and a store that carries control signals
        (PostgreSQL), the message goes to the process running the session.
        """
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("steering text must be a non-empty str")
        if not self._conversation.running() and self._parts.session.request_steer(text):
            return
        self._conversation.steer(text)

    def pending_steering(self) -> list[str]:
        """The queued steering messages, oldest first."""
        return self._conversation.pending_steering()
