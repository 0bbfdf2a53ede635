"""Benchmark: the cost of context routing per turn, and of one compaction.

Run with ``.venv/bin/python benchmarks/context.py``. For histories of 100,
1,000 and 10,000 messages it measures preparing one new turn on top of an
already-counted history (should stay nearly flat: only the new message is
encoded, the rest is cache lookups), then one compaction of a 10,000-message
history with each strategy, then the steady state past the trigger: a
conversation of 1,000 or 10,000 messages that grows by one turn per request,
so every request is compacted again (with ``summarise``, the summary cache
decides how many of those requests need a summary call). Prints the median of
``--runs`` runs.
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
SUMMARY = "The user and the assistant searched the knowledge base."
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
    """Median ms of one compaction; ``summarise`` includes ``finish`` and never
    reuses a summary (a new manager, its history already measured, per run)."""
    messages = history(size)
    counter = TokenCounter(MODEL)
    window = counter.count_messages(messages) // 3
    config = ContextConfig(max_context_tokens=window, reserve_output_tokens=0, strategy=strategy)
    manager = ContextManager(MODEL, config, counter=counter)
    manager.prepare(messages, TOOLS)
    samples = []
    for run in range(runs):
        request = _new_turn(messages, run)
        if strategy == "summarise":
            manager = ContextManager(MODEL, config, counter=counter)
            manager.route(request, TOOLS)
        start = time.perf_counter()
        prepared = manager.prepare(request, TOOLS)
        if prepared.summary_request is not None:
            prepared = prepared.finish(SUMMARY)
        samples.append((time.perf_counter() - start) * 1000)
        assert prepared.report is not None and prepared.report.tokens_after <= window
    return statistics.median(samples)


def bench_past_trigger(size: int, runs: int, strategy: StrategyName) -> tuple[float, float, int]:
    """A ``size``-message conversation past the trigger grows by one turn per
    request: (median ms of prepare (+ finish), max ms, summary calls in ``runs``)."""
    messages = history(size)
    counter = TokenCounter(MODEL)
    window = int(counter.count_messages(messages) / 0.95)
    config = ContextConfig(max_context_tokens=window, reserve_output_tokens=0, strategy=strategy)
    manager = ContextManager(MODEL, config, counter=counter)
    calls = 0

    def send(request: list[Message]) -> None:
        nonlocal calls
        prepared = manager.prepare(request, TOOLS)
        if prepared.summary_request is not None:
            calls += 1
            prepared = prepared.finish(SUMMARY)
        assert prepared.report is not None and prepared.report.tokens_after <= window

    send(messages)
    calls = 0
    samples = []
    for run in range(runs):
        messages = [*messages, {"role": "user", "content": _text(30, run)}]
        start = time.perf_counter()
        send(messages)
        samples.append((time.perf_counter() - start) * 1000)
        messages.append({"role": "assistant", "content": _text(60, run + 1)})
    return statistics.median(samples), max(samples), calls


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
    print()
    print(f"past the trigger, one new turn per request ({args.runs} requests)")
    print(f"{'history':>9}  {'strategy':>18}  {'median ms':>10}  {'max ms':>8}  "
          f"{'summary calls':>13}")
    for size in (1_000, 10_000):
        for strategy in strategies:
            median, worst, calls = bench_past_trigger(size, args.runs, strategy)
            print(f"{size:>9,}  {strategy:>18}  {median:>10.2f}  {worst:>8.2f}  {calls:>13}")


if __name__ == "__main__":
    main()
