"""The promises every route and strategy keeps, as a checker.

:func:`check_invariants` compares a compaction ``result`` with its
``original`` and lists every broken promise (an empty list means all hold):

- the leading system messages are kept, first and unchanged;
- the current (last) user message is kept (its text may only be cut to its
  head and tail, when it alone is too big);
- the first message after the system messages is a user message (unless the
  original's preamble before its first user message is kept as it was);
- every message comes from the original, in order (content may be cut or
  replaced by the tool placeholder), apart from an inserted summary pair;
- a tool call is never separated from its result, in either direction;
- with a ``counter`` and a ``budget``: the result fits the budget whenever the
  system messages plus the current turn do; otherwise it keeps no more than
  them, and past ``hard_limit`` it fits ``cut_budget`` whenever cutting every
  text of the current turn to its minimum could achieve that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from praisonlike.context.messages import (
    Message,
    answered_call_id,
    is_system,
    role_of,
    tool_call_ids,
    with_content,
)
from praisonlike.context.strategies import MIN_CUT_CHARS, PLACEHOLDER
from praisonlike.context.summary import is_summary_message
from praisonlike.context.tokens import TokenCounter
from praisonlike.context.truncation import cut_content, is_cut_of, truncate_oversize_tools
from praisonlike.context.turns import split_turns


def check_invariants(
    original: Sequence[Message],
    result: Sequence[Message],
    *,
    counter: TokenCounter | None = None,
    budget: int | None = None,
    tools: Sequence[dict[str, Any]] = (),
    hard_limit: int | None = None,
    cut_budget: int | None = None,
    tool_output_limit: int | None = None,
) -> list[str]:
    """The invariants ``result`` breaks, as readable sentences (empty: none).

    ``budget``, ``hard_limit`` and ``cut_budget`` are token counts including
    ``tools``; ``tool_output_limit`` is the limit oversize tool results were
    cut to before compaction, if any.
    """
    problems = [
        *_system_kept(original, result),
        *_current_user_kept(original, result),
        *_starts_with_user(original, result),
        *_in_order(original, result),
        *_tool_pairs(original, result),
    ]
    if counter is not None and budget is not None:
        problems += _within_budget(
            original, result, counter, budget, tools, hard_limit, cut_budget, tool_output_limit
        )
    return problems


def _head(messages: Sequence[Message]) -> list[Message]:
    end = 0
    while end < len(messages) and is_system(messages[end]):
        end += 1
    return list(messages[:end])


def _content_derived(original: Any, new: Any, role: str) -> bool:
    if new == original:
        return True
    if role == "tool" and new == PLACEHOLDER:
        return True
    if isinstance(original, str) and isinstance(new, str):
        return is_cut_of(original, new)
    if isinstance(original, (list, tuple)) and isinstance(new, (list, tuple)):
        return len(original) == len(new) and all(
            _part_derived(old, part) for old, part in zip(original, new, strict=True)
        )
    return False


def _part_derived(original: Any, new: Any) -> bool:
    if new == original:
        return True
    if not (isinstance(original, dict) and isinstance(new, dict)):
        return False
    rest_equal = {k: v for k, v in original.items() if k != "text"} == {
        k: v for k, v in new.items() if k != "text"
    }
    text, old = new.get("text"), original.get("text")
    return rest_equal and isinstance(text, str) and isinstance(old, str) and is_cut_of(old, text)


def _derived(original: Message, new: Message) -> bool:
    """True when ``new`` is ``original`` with, at most, its content cut."""
    if new is original:
        return True
    if {k: v for k, v in original.items() if k != "content"} != {
        k: v for k, v in new.items() if k != "content"
    }:
        return False
    return _content_derived(original.get("content"), new.get("content"), role_of(original))


def _system_kept(original: Sequence[Message], result: Sequence[Message]) -> list[str]:
    expected, got = _head(original), _head(result)
    if len(got) != len(expected) or any(a != b for a, b in zip(expected, got, strict=True)):
        return [f"system messages changed: expected {len(expected)} unchanged, got {len(got)}"]
    return []


def _last_user(messages: Sequence[Message]) -> Message | None:
    for message in reversed(messages):
        if role_of(message) == "user" and not is_summary_message(message):
            return message
    return None


def _current_user_kept(original: Sequence[Message], result: Sequence[Message]) -> list[str]:
    expected = _last_user(original)
    if expected is None:
        return []
    got = _last_user(result)
    if got is None or not _derived(expected, got):
        return ["the current (last) user message was not kept"]
    return []


def _starts_with_user(original: Sequence[Message], result: Sequence[Message]) -> list[str]:
    body = list(result[len(_head(result)) :])
    if not body or role_of(body[0]) == "user":
        return []
    original_body = list(original[len(_head(original)) :])
    preamble = 0
    while preamble < len(original_body) and role_of(original_body[preamble]) != "user":
        preamble += 1
    kept = len(body) >= preamble and all(
        _derived(original_body[i], body[i]) for i in range(preamble)
    )
    if preamble and kept:
        return []
    return [f"the first message after the system messages is a {role_of(body[0])!r} message"]


def _in_order(original: Sequence[Message], result: Sequence[Message]) -> list[str]:
    position = 0
    for index, message in enumerate(result):
        found = next(
            (j for j in range(position, len(original)) if _derived(original[j], message)), None
        )
        if found is not None:
            position = found + 1
        elif not is_summary_message(message):
            return [f"result message {index} ({role_of(message)}) is not from the input in order"]
    return []


def _tool_pairs(original: Sequence[Message], result: Sequence[Message]) -> list[str]:
    called = {cid for m in original if role_of(m) == "assistant" for cid in tool_call_ids(m)}
    answered = {cid for m in original if (cid := answered_call_id(m)) is not None}
    answered_in_result = {cid for m in result if (cid := answered_call_id(m)) is not None}
    problems: list[str] = []
    seen: set[str] = set()
    for message in result:
        if role_of(message) == "assistant":
            for cid in tool_call_ids(message):
                seen.add(cid)
                if cid in answered and cid not in answered_in_result:
                    problems.append(f"tool call {cid} lost its result")
        cid = answered_call_id(message)
        if cid is not None and cid in called and cid not in seen:
            problems.append(f"tool result {cid} lost its call")
    return problems


def _within_budget(
    original: Sequence[Message],
    result: Sequence[Message],
    counter: TokenCounter,
    budget: int,
    tools: Sequence[dict[str, Any]],
    hard_limit: int | None,
    cut_budget: int | None,
    tool_output_limit: int | None,
) -> list[str]:
    tools_tokens = counter.count_tools(tools)
    total = counter.count_messages(result) + tools_tokens
    if total <= budget:
        return []
    base = list(original)
    if tool_output_limit is not None:
        base, _ = truncate_oversize_tools(base, tool_output_limit)
    conversation = split_turns(base)
    core = conversation.head + conversation.current
    kept = counter.count_messages(core) + tools_tokens
    if kept <= budget:
        return [f"{total} tokens exceed the budget of {budget} that {kept} tokens could meet"]
    if hard_limit is None or kept <= hard_limit:
        if total > kept:
            return [f"{total} tokens over budget: more than system + current turn ({kept})"]
        return []
    limit = cut_budget if cut_budget is not None else hard_limit
    minimal = [
        m if is_system(m) else with_content(m, cut_content(m.get("content"), MIN_CUT_CHARS))
        for m in core
    ]
    floor = counter.count_messages(minimal) + tools_tokens
    if total > limit and floor <= limit:
        return [f"{total} tokens exceed the hard cut's {limit} that {floor} tokens could meet"]
    return []
