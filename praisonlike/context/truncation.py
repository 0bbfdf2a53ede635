"""Cutting long text to its head and tail."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from praisonlike.context.messages import (
    Message,
    is_text_part,
    role_of,
    text_length,
    with_content,
)

MARKER_PATTERN = re.compile(r"\n\.\.\.\[truncated \d+ chars\]\.\.\.\n")


def _marker(removed: int) -> str:
    return f"\n...[truncated {removed} chars]...\n"


def truncate_tool_output(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its head and tail.

    The cut text is ``head + "\\n...[truncated N chars]...\\n" + tail`` where N
    is the number of characters removed; its length is at most ``limit``.
    When ``limit`` is too small to hold the marker, the first ``limit``
    characters are returned. Raises ValueError for a negative ``limit``.
    """
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if len(text) <= limit:
        return text
    room = limit - len(_marker(len(text)))
    if room <= 0:
        return text[:limit]
    head = (room + 1) // 2
    tail = room - head
    removed = len(text) - head - tail
    return text[:head] + _marker(removed) + (text[len(text) - tail :] if tail else "")


def cut_content(content: Any, limit: int) -> Any:
    """``content`` with its text cut to about ``limit`` characters in total.

    A string is cut with :func:`truncate_tool_output`; for a list of parts each
    text part gets a share of ``limit`` proportional to its length, and other
    parts are kept. Returns the same object when nothing needs cutting.
    """
    if isinstance(content, str):
        return truncate_tool_output(content, limit)
    if not isinstance(content, (list, tuple)):
        return content
    total = sum(len(part["text"]) for part in content if is_text_part(part))
    if total <= limit:
        return content
    parts: list[Any] = []
    for part in content:
        if is_text_part(part):
            share = limit * len(part["text"]) // total
            part = {**part, "text": truncate_tool_output(part["text"], share)}
        parts.append(part)
    return parts


def truncate_oversize_tools(messages: Sequence[Message], limit: int) -> tuple[list[Message], int]:
    """Cut every tool result longer than ``limit`` characters.

    Returns the new list (untouched messages are the same objects) and how
    many tool results were cut.
    """
    result: list[Message] = []
    cut = 0
    for message in messages:
        if role_of(message) == "tool" and text_length(message) > limit:
            message = with_content(message, cut_content(message.get("content"), limit))
            cut += 1
        result.append(message)
    return result, cut


def is_cut_of(original: str, text: str) -> bool:
    """True when ``text`` is ``original`` or a head-and-tail cut of it."""
    if text == original:
        return True
    if len(text) >= len(original):
        return False
    found = MARKER_PATTERN.search(text)
    if found is None:
        return original.startswith(text)
    head, tail = text[: found.start()], text[found.end() :]
    return original.startswith(head) and original.endswith(tail)
