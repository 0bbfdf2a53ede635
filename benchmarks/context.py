"""Benchmark: the cost of context routing per turn, and of one compaction.

Run with ``.venv/bin/python benchmarks/context.py``. For histories of 100,
1,000 and 10,000 messages it measures preparing one new turn on top of an
already-counted history (should stay nearly flat: only the new message is
encoded, the rest is cache lookups), then one compaction of a 10,000-message
history with each strategy. Prints the median of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from praisonlike.context import ContextConfig, ContextManager, StrategyName, TokenCounter

Message = dict[str, Any]
MODEL = "gpt-4o-mini"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the knowledge base.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]
WORDS = ["alpha", "beta", "gamma", "delta", "context", "window", "token", "tool", "agent", "model"]


def _text(words: int, seed: int) -> str:
    return " ".join(WORDS[(seed + i * 7) % len(WORDS)] for i in range(words)) + f" #{seed}"


def history(size: int) -> list[Message]:
    """``size`` messages: system, then turns of question, tool round, answer."""
    messages: list[Message] = [{"role": "system", "content": "You are a helpful assistant."}]
    turn = 0
    while len(messages) < size:
        call_id = f"call_{turn}"
        messages += [
            {"role": "user", "content": _text(30, turn)},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "search", "arguments": json.dumps({"q": turn})},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": _text(200, turn + 1)},
            {"role": "assistant", "content": _text(60, turn + 2)},
        ]
        turn += 1
    return messages[:size]


def _median_ms(runs: int, step: Callable[[int], object]) -> float:
    samples = []
    for run in range(runs):
        start = time.perf_counter()
        step(run)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _new_turn(messages: list[Message], run: int) -> list[Message]:
    return [*messages, {"role": "user", "content": f"new question number {run}: what next?"}]


def bench_routing(size: int, runs: int) -> tuple[float, float, float]:
    """(cold first count ms, median warm prepare of one new turn ms, messages
    counted per new turn)."""
    messages = history(size)
    counter = TokenCounter(MODEL)
    manager = ContextManager(MODEL, ContextConfig(max_context_tokens=10**8), counter=counter)
    start = time.perf_counter()
    manager.prepare(messages, TOOLS)
    cold = (time.perf_counter() - start) * 1000
    misses = counter.stats.misses
    warm = _median_ms(runs, lambda run: manager.prepare(_new_turn(messages, run), TOOLS))
    return cold, warm, (counter.stats.misses - misses) / runs


def bench_compaction(size: int, runs: int, strategy: StrategyName) -> float:
    messages = history(size)
    counter = TokenCounter(MODEL)
    window = counter.count_messages(messages) // 3
    config = ContextConfig(max_context_tokens=window, reserve_output_tokens=0, strategy=strategy)
    manager = ContextManager(MODEL, config, counter=counter)
    manager.prepare(messages, TOOLS)

    def step(run: int) -> None:
        prepared = manager.prepare(_new_turn(messages, run), TOOLS)
        assert prepared.report is not None and prepared.report.tokens_after <= window
        if prepared.summary_request is not None:
            prepared.finish("The user and the assistant searched the knowledge base.")

    return _median_ms(runs, step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    TokenCounter(MODEL).count_text("warm up the encoding")

    print(f"context routing, {MODEL}, median of {args.runs} runs")
    print(f"{'history':>9}  {'first count (ms)':>17}  {'one new turn (ms)':>18}  "
          f"{'messages encoded per turn':>26}")
    for size in (100, 1_000, 10_000):
        cold, warm, encoded = bench_routing(size, args.runs)
        print(f"{size:>9,}  {cold:>17.2f}  {warm:>18.3f}  {encoded:>26.1f}")
    print()
    print(f"one compaction of a 10,000-message history to a third of it (median of {args.runs})")
    print(f"{'strategy':>18}  {'ms':>8}")
    strategies: tuple[StrategyName, ...] = (
        "truncate", "sliding_window", "drop_oldest_tools", "summarise"
    )
    for strategy in strategies:
        print(f"{strategy:>18}  {bench_compaction(10_000, args.runs, strategy):>8.2f}")


if __name__ == "__main__":
    main()
