"""Splitting a conversation into its system head and its turns.

A turn starts at a user message and runs up to the next user message. A user
message that arrives while a tool call still waits for its result (a result
that comes later in the list) does not start a turn, so dropping whole turns
never separates a call from its result. Messages before the first user message
(after the system head) form a *preamble*, kept as the first "turn" so that it
is the first thing dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from praisonlike.context.messages import (
    Message,
    answered_call_id,
    flatten,
    is_system,
    role_of,
    tool_call_ids,
)


@dataclass(frozen=True)
class Conversation:
    """A message list split into ``head`` (leading system messages) and ``turns``.

    ``turns[-1]`` is the current turn: the last user message and all that
    follows it (or the whole body when there is no user message).
    """

    head: list[Message]
    turns: list[list[Message]]

    @property
    def current(self) -> list[Message]:
        return self.turns[-1] if self.turns else []

    def messages(self, first_turn: int = 0) -> list[Message]:
        """The head followed by the turns from ``first_turn`` on."""
        return self.head + flatten(self.turns[first_turn:])


def split_turns(messages: Sequence[Message]) -> Conversation:
    """Split ``messages`` (not modified) into head and turns."""
    head_end = 0
    while head_end < len(messages) and is_system(messages[head_end]):
        head_end += 1
    body = messages[head_end:]
    answered = {call_id for m in body if (call_id := answered_call_id(m)) is not None}

    turns: list[list[Message]] = []
    current: list[Message] = []
    pending: set[str] = set()
    for message in body:
        role = role_of(message)
        if role == "user" and current and not pending:
            turns.append(current)
            current = []
        current.append(message)
        if role == "assistant":
            pending.update(call_id for call_id in tool_call_ids(message) if call_id in answered)
        elif role == "tool":
            pending.discard(message.get("tool_call_id", ""))
    if current:
        turns.append(current)
    return Conversation(head=list(messages[:head_end]), turns=turns)
