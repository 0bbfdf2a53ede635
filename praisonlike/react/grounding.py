"""Text tool calls whose arguments come from nowhere.

Offered tools, a small model sometimes calls one for a request that needs none,
with values it made up: Qwen2.5-Coder-0.5B answered "Tell me a joke." by
calling ``add(a=1, b=2)`` and "Translate 'thank you' to German." by calling
``get_weather(city="Berlin")``, then reported the tool's result as its answer.
:func:`invented_values` tells such a call from one that takes at least one of
its values from what the model was shown: a number written there (in digits,
or as a word up to twenty), or a string sharing a word of three letters or more
with it (or found in it whole, for a shorter one). A value the model worked out
(``Paris`` for "the capital of France") counts as invented too, which is why a
refused call the model sends again runs (:mod:`praisonlike.loop.invented_calls`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from praisonlike.react.prompt import without_tool_listing

_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "  # noqa: SIM905
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_MIN_WORD = 3

REFUSAL = (
    "My request does not mention {values}, so it does not need {tool}. "
    "Answer my request in plain text, without JSON."
)
"""The observation sent in place of an invented call's result."""
_REFUSAL_START = REFUSAL.partition("{")[0]


class Shown:
    """The words and numbers of the texts a model was shown, for :func:`invented_values`.

    Numbers written as words count in ``texts`` only, not in ``system`` (where a
    tool's description says "Add two numbers" and the instructions "call one").
    """

    def __init__(self, texts: Iterable[str], system: Iterable[str] = ()) -> None:
        told = _THOUSANDS.sub("", "\n".join(texts).casefold())
        folded = _THOUSANDS.sub("", "\n".join(system).casefold()) + "\n" + told
        self.text = folded
        self.words = frozenset(_WORD.findall(folded))
        self.numbers = frozenset(float(n) for n in _NUMBER.findall(folded)) | frozenset(
            float(_NUMBER_WORDS[w]) for w in _WORD.findall(told) if w in _NUMBER_WORDS
        )


def invented_values(arguments: Mapping[str, Any], shown: Shown) -> tuple[str, ...]:
    """The call's values, as written, when none of them comes from ``shown``; an
    empty tuple when one does, or when the call has no number or string to judge
    (no arguments, only true/false)."""
    values = list(_scalars(arguments))
    if not values or any(_shown(value, shown) for value in values):
        return ()
    return tuple(str(value) for value in values)


def _shown(value: str | float, shown: Shown) -> bool:
    if isinstance(value, (int, float)):
        return abs(float(value)) in shown.numbers
    folded = value.strip().casefold()
    words = [w for w in _WORD.findall(folded) if len(w) >= _MIN_WORD]
    if words:
        return any(w in shown.words for w in words)
    return bool(folded) and folded in shown.text


def _scalars(value: Any) -> Iterator[str | float]:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (str, int, float)):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _scalars(item)


def refusal_for(
    calls: Sequence[tuple[str, str]], messages: Sequence[Mapping[str, Any]]
) -> dict[str, str] | None:
    """The observation refusing the calls, ``(name, JSON arguments)``, when each has
    values to judge and none of them comes from ``messages`` (the request as sent)
    but the model's own and these refusals; else None."""
    shown: Shown | None = None
    invented: list[tuple[str, tuple[str, ...]]] = []
    for name, arguments in calls:
        try:
            decoded = json.loads(arguments) if arguments else {}
        except (ValueError, RecursionError):
            return None
        if not isinstance(decoded, Mapping):
            return None
        shown = shown or Shown(
            _texts(messages), map(without_tool_listing, _texts(messages, role="system"))
        )
        try:
            values = invented_values(decoded, shown)
        except RecursionError:
            return None
        if not values:
            return None
        invented.append((name, values))
    if not invented:
        return None
    name, values = invented[0]
    listed = ", ".join(repr(v) for v in values[:4])
    return {"role": "user", "content": REFUSAL.format(values=listed, tool=name)}


def _texts(messages: Iterable[Mapping[str, Any]], role: str | None = None) -> Iterator[str]:
    """The texts of ``role``'s messages; without a role, of the user's and the tools'."""
    for message in messages:
        if message.get("role") not in ((role,) if role else ("user", "tool")):
            continue
        content = message.get("content")
        if isinstance(content, str):
            if not content.startswith(_REFUSAL_START):
                yield content
        elif isinstance(content, list):
            yield from (
                part["text"]
                for part in content
                if isinstance(part, Mapping) and isinstance(part.get("text"), str)
            )


__all__ = ["REFUSAL", "Shown", "invented_values", "refusal_for"]
