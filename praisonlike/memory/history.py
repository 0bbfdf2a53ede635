"""The chat history a session starts from: recent successful turns, within a budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from praisonlike.errors import ConfigurationError
from praisonlike.memory.records import MessageStatus, TurnRecord

Message = dict[str, Any]


def estimate_tokens(message: Message) -> int:
    """A rough token count of a message: a quarter of its content's length, rounded up."""
    content = message.get("content")
    text = content if isinstance(content, str) else str(content or "")
    return (len(text) + 3) // 4


def history_window(
    turns: Sequence[TurnRecord],
    *,
    rounds: int = 10,
    max_tokens: int | None = None,
    count_tokens: Callable[[Message], int] | None = None,
) -> list[Message]:
    """Chat messages for the most recent usable turns, oldest first.

    ``turns`` are taken oldest first. A turn is usable when its status is
    ``NORMAL`` and its answer is not blank. The last ``rounds`` usable turns
    become ``user``/``assistant`` message pairs; with ``max_tokens``, whole
    pairs are dropped from the oldest end until the total (``count_tokens`` per
    message, by default :func:`estimate_tokens`) fits. The result therefore
    always starts with a user message and ends with an assistant message, and
    is ``[]`` when not even the newest pair fits.

    Raises:
        ConfigurationError: ``rounds`` or ``max_tokens`` is negative.
    """
    if rounds < 0:
        raise ConfigurationError(f"rounds must be >= 0, got {rounds}")
    if max_tokens is not None and max_tokens < 0:
        raise ConfigurationError(f"max_tokens must be >= 0, got {max_tokens}")
    if rounds == 0:
        return []
    counter = count_tokens or estimate_tokens
    usable = [
        turn for turn in turns if turn.status is MessageStatus.NORMAL and turn.answer.strip()
    ][-rounds:]
    pairs: list[tuple[Message, Message]] = []
    budget = max_tokens
    for turn in reversed(usable):
        pair = (
            {"role": "user", "content": turn.query},
            {"role": "assistant", "content": turn.answer},
        )
        if budget is not None:
            cost = counter(pair[0]) + counter(pair[1])
            if cost > budget:
                break
            budget -= cost
        pairs.append(pair)
    return [message for pair in reversed(pairs) for message in pair]
