"""Compaction strategies: pure functions from a message list to a shorter one.

Every strategy keeps the system head and the current turn, drops only whole
turns (so a tool call and its results stay together and the first kept
message after the head is a user message), never mutates its input, and
returns new lists in which unchanged messages are the same objects.
``budget`` is a number of tokens for the messages alone, as counted by
:meth:`TokenCounter.count_messages`.
"""

from __future__ import annotations

from collections.abc import Sequence

from praisonlike.context.messages import Message, is_system, role_of, text_length, with_content
from praisonlike.context.tokens import TokenCounter
from praisonlike.context.truncation import cut_content
from praisonlike.context.turns import Conversation, split_turns

PLACEHOLDER = "[tool output removed to save context]"
MIN_CUT_CHARS = 80
_MIN_CUT_STEP = 64
_MAX_CUT_ROUNDS = 200


def first_turn_within(conversation: Conversation, budget: int, counter: TokenCounter) -> int:
    """The index of the oldest turn to keep so the rest fits ``budget``.

    Drops oldest turns first and never the current one, so the result may
    still exceed ``budget`` when the head and current turn alone do.
    """
    total = counter.count_messages(conversation.head)
    sizes = [sum(counter.count_message(m) for m in turn) for turn in conversation.turns]
    total += sum(sizes)
    first = 0
    while total > budget and first < len(sizes) - 1:
        total -= sizes[first]
        first += 1
    return first


def truncate(messages: Sequence[Message], budget: int, counter: TokenCounter) -> list[Message]:
    """Drop the oldest whole turns until ``messages`` fit ``budget``."""
    conversation = split_turns(messages)
    return conversation.messages(first_turn_within(conversation, budget, counter))


def sliding_window(messages: Sequence[Message], keep_last_turns: int) -> list[Message]:
    """Keep the system head and the last ``keep_last_turns`` turns (at least one)."""
    conversation = split_turns(messages)
    first = max(0, len(conversation.turns) - max(1, keep_last_turns))
    return conversation.messages(first)


def drop_oldest_tools(
    messages: Sequence[Message], budget: int, counter: TokenCounter
) -> list[Message]:
    """Replace tool results with :data:`PLACEHOLDER`, oldest first, then drop oldest turns.

    The tool results of every turn but the current one are replaced oldest
    first, only as long as the messages exceed ``budget``. Only when all of
    them are replaced and the messages still exceed ``budget`` are the oldest
    whole turns dropped, as in :func:`truncate`. The current turn is never
    changed.
    """
    conversation = split_turns(messages)
    turns = [list(turn) for turn in conversation.turns]
    total = counter.count_messages(messages)
    for turn in turns[:-1]:
        for index, message in enumerate(turn):
            if total <= budget:
                break
            if role_of(message) != "tool" or text_length(message) <= len(PLACEHOLDER):
                continue
            replacement = with_content(message, PLACEHOLDER)
            total += counter.count_message(replacement) - counter.count_message(message)
            turn[index] = replacement
    rewritten = Conversation(head=conversation.head, turns=turns)
    return rewritten.messages(first_turn_within(rewritten, budget, counter))


def insurance_cut(messages: Sequence[Message], budget: int, counter: TokenCounter) -> list[Message]:
    """Fit ``budget`` at almost any price: drop old turns, then cut long texts.

    After :func:`truncate`, while still over budget, the text of the largest
    non-system message is cut to its head and tail (never below
    :data:`MIN_CUT_CHARS` characters). The result exceeds ``budget`` only when
    the system head plus the current turn cut to that minimum still do.
    """
    result = truncate(messages, budget, counter)
    total = counter.count_messages(result)
    if total <= budget:
        return result
    sources = list(result)
    limits = {
        index: text_length(message)
        for index, message in enumerate(sources)
        if not is_system(message) and text_length(message) > MIN_CUT_CHARS
    }
    for _ in range(_MAX_CUT_ROUNDS):
        if total <= budget:
            return result
        open_ = [index for index, limit in limits.items() if limit > MIN_CUT_CHARS]
        if not open_:
            return result
        index = max(open_, key=lambda i: counter.count_message(result[i]))
        tokens = counter.count_message(result[index])
        excess = (total - budget) * limits[index] / max(1, tokens)  # in characters
        keep = limits[index] - excess
        wanted = int(keep - min(0.1 * excess, 0.05 * keep))  # a margin, not past the excess
        ceiling = min(limits[index], text_length(sources[index])) - _MIN_CUT_STEP
        limits[index] = max(MIN_CUT_CHARS, min(wanted, ceiling))
        result[index] = _cut(sources[index], limits[index])
        total += counter.count_message(result[index]) - tokens
    if total > budget:
        for index in limits:
            result[index] = _cut(sources[index], MIN_CUT_CHARS)
    return result


def _cut(message: Message, limit: int) -> Message:
    return with_content(message, cut_content(message.get("content"), limit))
