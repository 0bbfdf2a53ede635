"""The ``summarise`` strategy: condense the oldest turns with one LLM call.

The summary goes into the conversation, not into the system message, so the
system prompt stays byte-identical (provider prompt caches keep working) and a
later compaction can merge it with the turns dropped since (see
``build_summary_request(previous_summary=...)``). It is inserted right after
the system head as a pair that keeps user/assistant alternation valid::

    {"role": "user", "content": "Summary of the earlier conversation: ..."}
    {"role": "assistant", "content": SUMMARY_ACK}

followed by the kept turns, which start with a user message.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from praisonlike.context.messages import (
    Message,
    flatten,
    is_system,
    role_of,
    text_parts,
)
from praisonlike.context.strategies import first_turn_within
from praisonlike.context.tokens import TokenCounter
from praisonlike.context.truncation import truncate_tool_output
from praisonlike.context.turns import Conversation, split_turns

SUMMARY_PREFIX = "Summary of the earlier conversation: "
SUMMARY_ACK = "Understood. I will continue the conversation from this summary."
SUMMARY_INSTRUCTIONS = (
    "You condense conversations between a user and an AI assistant. Summarise the "
    "conversation you are given so the assistant can continue it without the original "
    "messages: keep facts, decisions, names, numbers, file paths, results of tool calls "
    "that still matter, the user's preferences and any open tasks. Write at most about "
    "{words} words. Reply with the summary only."
)
MERGE_INSTRUCTIONS = (
    "You are given the summary of the conversation so far and the messages since then: "
    "write one summary of the whole conversation that keeps what still matters from both."
)
MAX_SUMMARY_TOKENS = 2048
MIN_SUMMARY_TOKENS = 16
TRANSCRIPT_ENTRY_CHARS = 2000
_MIN_SUMMARY_CHARS = 40
LOOP_WORDS = 8
LOOP_TIMES = 3


def loops_on_a_phrase(text: str) -> bool:
    """Whether some run of :data:`LOOP_WORDS` words comes back :data:`LOOP_TIMES` times
    or more (case aside): a small model repeating itself until its token limit, not
    a summary worth keeping."""
    words = text.lower().split()
    runs = Counter(tuple(words[i : i + LOOP_WORDS]) for i in range(len(words) - LOOP_WORDS + 1))
    return bool(runs) and max(runs.values()) >= LOOP_TIMES


@dataclass(frozen=True)
class SummaryPlan:
    """Which messages stay and which are condensed into the summary.

    ``kept`` is a valid conversation on its own (system head, then whole
    turns); ``summary_tokens`` is the room left in the budget for the summary.
    """

    kept: list[Message]
    dropped: list[Message]
    summary_tokens: int


def summary_message(text: str) -> Message:
    return {"role": "user", "content": SUMMARY_PREFIX + text}


def ack_message() -> Message:
    return {"role": "assistant", "content": SUMMARY_ACK}


def is_summary_message(message: Message) -> bool:
    """True for the user message or the acknowledgement that carry a summary."""
    content = message.get("content")
    if role_of(message) == "user":
        return isinstance(content, str) and content.startswith(SUMMARY_PREFIX)
    return role_of(message) == "assistant" and content == SUMMARY_ACK


def summary_pair_tokens(text: str, counter: TokenCounter) -> int:
    """Tokens the summary pair for ``text`` adds to a request."""
    return counter.count_message(summary_message(text)) + counter.count_message(ack_message())


def _frame_tokens(counter: TokenCounter) -> int:
    return summary_pair_tokens("", counter)


def plan_summary(messages: Sequence[Message], budget: int, counter: TokenCounter) -> SummaryPlan:
    """Drop oldest turns until the rest plus a summary of about a fifth of
    ``budget`` (at most :data:`MAX_SUMMARY_TOKENS`) fit ``budget``."""
    return plan_conversation(split_turns(messages), budget, counter)


def plan_conversation(
    conversation: Conversation, budget: int, counter: TokenCounter
) -> SummaryPlan:
    """:func:`plan_summary` for a conversation already split into turns."""
    reserve = max(0, min(MAX_SUMMARY_TOKENS, budget // 5))
    first = first_turn_within(conversation, budget - reserve - _frame_tokens(counter), counter)
    kept = conversation.messages(first)
    room = budget - counter.count_messages(kept) - _frame_tokens(counter)
    return SummaryPlan(kept, flatten(conversation.turns[:first]), max(0, min(reserve, room)))


def _render(message: Message) -> list[str]:
    role = role_of(message)
    content = message.get("content")
    text = "\n".join(text_parts(content))
    if isinstance(content, (list, tuple)) and any(
        isinstance(part, dict) and part.get("type") != "text" for part in content
    ):
        text = (text + " [image or file attached]").strip()
    lines: list[str] = []
    if role == "tool":
        label = message.get("name") or message.get("tool_call_id") or "tool"
        lines.append(f"Tool result ({label}): {text}")
    elif text:
        lines.append(f"{role.capitalize() or 'Message'}: {text}")
    for call in message.get("tool_calls") or ():
        function = call.get("function", {}) if isinstance(call, dict) else {}
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, default=str)
        lines.append(f"Assistant called tool {function.get('name', '?')} with {arguments}")
    return [truncate_tool_output(line, TRANSCRIPT_ENTRY_CHARS) for line in lines]


def build_summary_request(
    dropped: Sequence[Message],
    counter: TokenCounter,
    *,
    summary_tokens: int,
    max_tokens: int,
    previous_summary: str | None = None,
) -> list[Message]:
    """The messages to send to the summary model.

    A system instruction and one user message holding ``dropped`` rendered as
    a transcript; each entry is cut to :data:`TRANSCRIPT_ENTRY_CHARS` and the
    oldest entries are left out when the transcript would pass ``max_tokens``.
    With ``previous_summary`` (the summary of the turns before ``dropped``)
    the model is asked to merge it with the transcript; it comes first, whole,
    and its tokens count towards ``max_tokens``.
    """
    used = counter.count_text(previous_summary) if previous_summary else 0
    entries = [line for message in dropped for line in _render(message)]
    kept: list[str] = []
    for entry in reversed(entries):
        used += counter.count_text(entry) + 1
        if used > max_tokens and kept:
            kept.append("[earlier messages omitted]")
            break
        kept.append(entry)
    transcript = "\n".join(reversed(kept))
    words = max(20, summary_tokens * 3 // 4)
    instructions = SUMMARY_INSTRUCTIONS.format(words=words)
    if previous_summary:
        instructions += " " + MERGE_INSTRUCTIONS
        content = (
            f"Summary of the conversation so far:\n\n{previous_summary}\n\n"
            f"Conversation since then:\n\n{transcript}"
        )
    else:
        content = "Conversation to summarise:\n\n" + transcript
    return [
        {"role": "system", "content": instructions},
        {"role": "user", "content": content},
    ]


def apply_summary(
    kept: Sequence[Message], summary_text: str, budget: int, counter: TokenCounter
) -> list[Message]:
    """``kept`` with the summary pair inserted after the system head.

    The summary text is cut (head and tail) to fit ``budget``; when not even
    :data:`MIN_SUMMARY_TOKENS` of it fit, ``kept`` is returned without one.
    """
    text = fit_summary(kept, summary_text, budget, counter)
    return list(kept) if text is None else with_summary(kept, text)


def fit_summary(
    kept: Sequence[Message], summary_text: str, budget: int, counter: TokenCounter
) -> str | None:
    """``summary_text`` stripped and cut (head and tail) so that ``kept`` with
    the summary pair fits ``budget``; None when not even
    :data:`MIN_SUMMARY_TOKENS` of it fit."""
    text = summary_text.strip()
    ack = ack_message()
    allowed = budget - counter.count_messages(kept) - counter.count_message(ack)
    if not text or allowed - counter.count_message(summary_message("")) < MIN_SUMMARY_TOKENS:
        return None
    limit = len(text)
    while True:
        cut = truncate_tool_output(text, limit)
        tokens = counter.count_message(summary_message(cut))
        if tokens <= allowed:
            return cut
        if limit <= _MIN_SUMMARY_CHARS:
            return None
        step = int((tokens - allowed) * limit / tokens * 1.1) + 16
        limit = max(_MIN_SUMMARY_CHARS, limit - step)


def with_summary(kept: Sequence[Message], text: str) -> list[Message]:
    """``kept`` with the summary pair for ``text`` inserted after its system head."""
    head_end = 0
    while head_end < len(kept) and is_system(kept[head_end]):
        head_end += 1
    return [*kept[:head_end], summary_message(text), ack_message(), *kept[head_end:]]


def summarise(
    messages: Sequence[Message],
    budget: int,
    counter: TokenCounter,
    summarise_text: Callable[[list[Message]], str],
) -> list[Message]:
    """Synchronous form of the strategy: ``summarise_text`` gets the summary
    request and returns the summary. Returns ``messages`` fitted to ``budget``
    with the oldest turns replaced by their summary."""
    plan = plan_summary(messages, budget, counter)
    if not plan.dropped:
        return plan.kept
    request = build_summary_request(
        plan.dropped, counter, summary_tokens=plan.summary_tokens, max_tokens=budget
    )
    return apply_summary(plan.kept, summarise_text(request), budget, counter)
