"""Message builders and hypothesis strategies shared by the context tests."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

from praisonlike.context import STRATEGIES, ContextConfig, TokenCounter

Message = dict[str, Any]


class ExactCounter(TokenCounter):
    """A counter whose upper bound never proves a fit: its manager counts every request."""

    def bound_text(self, text: str) -> int:
        return 10**12

WORDS = [
    "alpha", "beta", "gamma", "delta", "context", "window", "budget", "token", "tool",
    "output", "agent", "model", "request", "summary", "turn", "message", "system", "user",
    "assistant", "result", "error", "retry", "cache",
]

SEARCH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the knowledge base.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
}


def text(n_words: int, seed: int = 0) -> str:
    """Deterministic filler text of ``n_words`` words."""
    return " ".join(WORDS[(seed + i * 7 + i // 5) % len(WORDS)] for i in range(n_words))


def system(content: str = "You are a helpful assistant.") -> Message:
    return {"role": "system", "content": content}


def user(content: str) -> Message:
    return {"role": "user", "content": content}


def assistant(content: str) -> Message:
    return {"role": "assistant", "content": content}


def tool_round(call_ids: list[str], outputs: list[str], name: str = "search") -> list[Message]:
    """An assistant message calling ``name`` once per id, then the results."""
    calls = [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps({"query": call_id})},
        }
        for call_id in call_ids
    ]
    results = [
        {"role": "tool", "tool_call_id": call_id, "name": name, "content": output}
        for call_id, output in zip(call_ids, outputs, strict=True)
    ]
    return [{"role": "assistant", "content": None, "tool_calls": calls}, *results]


def simple_conversation(
    n_turns: int, *, words: int = 40, tool_words: int = 0, with_system: bool = True
) -> list[Message]:
    """``n_turns`` turns: a question, optionally one tool round, an answer."""
    messages: list[Message] = [system()] if with_system else []
    for turn in range(n_turns):
        messages.append(user(f"question {turn}: " + text(words, turn)))
        if tool_words:
            messages += tool_round([f"call_{turn}"], [text(tool_words, turn + 1)])
        messages.append(assistant(f"answer {turn}: " + text(words, turn + 2)))
    return messages


_OUTPUT_WORDS = st.sampled_from([0, 3, 10, 30, 30, 80, 200, 1500, 4000])


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    """Random conversations: text turns, multi-call tool rounds, huge outputs."""
    ids = itertools.count()
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(system(text(draw(st.integers(1, 60)), 3)))
    for turn in range(draw(st.integers(1, 7))):
        words = draw(st.integers(1, 120))
        if draw(st.integers(0, 9)) == 0:
            messages.append(
                {"role": "user", "content": [{"type": "text", "text": text(words, turn)}]}
            )
        else:
            messages.append(user(text(words, turn)))
        for _ in range(draw(st.integers(0, 3))):
            call_ids = [f"call_{next(ids)}" for _ in range(draw(st.integers(1, 3)))]
            outputs = [text(draw(_OUTPUT_WORDS), seed) for seed in range(len(call_ids))]
            messages += tool_round(call_ids, outputs)
        if draw(st.booleans()):
            messages.append(assistant(text(draw(st.integers(0, 150)), turn + 1)))
    return messages


@st.composite
def configs(draw: st.DrawFn) -> ContextConfig:
    """Valid configs with tiny windows (200..5000 tokens)."""
    target = draw(st.floats(0.3, 0.8))
    trigger = draw(st.floats(target + 0.01, 0.97))
    hard_cap = draw(st.floats(trigger, 1.0))
    return ContextConfig(
        trigger=trigger,
        target=target,
        hard_cap=hard_cap,
        keep_last_turns=draw(st.integers(1, 4)),
        strategy=draw(st.sampled_from(STRATEGIES)),
        tool_output_limit=draw(st.one_of(st.integers(100, 6000), st.just(100_000))),
        max_context_tokens=draw(st.integers(200, 5000)),
        reserve_output_tokens=draw(st.integers(0, 100)),
    )
