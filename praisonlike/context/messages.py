"""Reading and rewriting OpenAI chat message dicts.

Messages are plain dicts (``role``, ``content``, ``tool_calls``, ``tool_call_id``,
``name``). Nothing here mutates a message: rewrites return a shallow copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Message = dict[str, Any]

SYSTEM_ROLES = frozenset({"system", "developer"})


def snapshot(value: Any) -> Any:
    """A copy of the dicts, lists and tuples in ``value`` that shares its other leaves.

    For messages this is a deep copy in practice (their leaves are strings
    and numbers) at a fraction of ``copy.deepcopy``'s cost.
    """
    if isinstance(value, dict):
        return {key: snapshot(item) for key, item in value.items()}
    if isinstance(value, list):
        return [snapshot(item) for item in value]
    if isinstance(value, tuple):
        return tuple(snapshot(item) for item in value)
    return value


def role_of(message: Message) -> str:
    """The message's role, ``""`` when it has none."""
    role = message.get("role")
    return role if isinstance(role, str) else ""


def is_system(message: Message) -> bool:
    return role_of(message) in SYSTEM_ROLES


def tool_call_ids(message: Message) -> list[str]:
    """The ids of the tool calls an assistant message makes, in order."""
    calls = message.get("tool_calls") or ()
    ids: list[str] = []
    for call in calls:
        call_id = call.get("id") if isinstance(call, dict) else None
        if isinstance(call_id, str):
            ids.append(call_id)
    return ids


def answered_call_id(message: Message) -> str | None:
    """The ``tool_call_id`` a tool message answers, or None for other messages."""
    if role_of(message) != "tool":
        return None
    call_id = message.get("tool_call_id")
    return call_id if isinstance(call_id, str) else None


def is_text_part(part: Any) -> bool:
    """True for a ``{"type": "text", "text": str}`` content part."""
    return (
        isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )


def text_parts(content: Any) -> list[str]:
    """The text pieces of a content value (a string, a list of parts or None)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, (list, tuple)):
        return [part["text"] for part in content if is_text_part(part)]
    return []


def text_length(message: Message) -> int:
    """Characters of text content (image and other parts do not count)."""
    return sum(len(text) for text in text_parts(message.get("content")))


def with_content(message: Message, content: Any) -> Message:
    """A shallow copy of ``message`` with ``content`` replaced."""
    copy = dict(message)
    copy["content"] = content
    return copy


def flatten(groups: Sequence[Sequence[Message]]) -> list[Message]:
    return [message for group in groups for message in group]
