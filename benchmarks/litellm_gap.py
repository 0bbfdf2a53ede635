"""Where the agent's per-turn cost over plain LiteLLM goes: inside LiteLLM's calls or around them.

The agent with ``transport="litellm"`` and plain LiteLLM sending the same two
requests (``plain.PlainTurn``) take turns strictly in pairs, in alternating
order: ``chat`` against ``litellm.completion`` and ``achat`` against
``litellm.acompletion``. Each of LiteLLM's calls is timed by wrapping
``litellm.completion`` / ``litellm.acompletion`` (for the measurement only:
the arguments and the responses pass through untouched), so each turn splits
into the time inside LiteLLM and the time around it (the agent's own code,
and whatever LiteLLM's background logging does meanwhile). The agent's
history is cleared after each of its turns, outside the timed part (as in
``overhead.py``).

Per mode it prints the median turn, inside and outside, and the gap: the
median over pairs of agent minus plain, with a 90% bootstrap interval. Pairs
taken back to back see the same machine, so the gap is far steadier than
``overhead.py``'s ratio of two medians; no target is judged here.
``--async-tool`` runs ``achat`` with the tool written ``async def`` (no worker
thread). ``--plain-tool-thread`` has plain LiteLLM's ``achat`` turn run its sync
tool with ``asyncio.to_thread``, off the event loop as the agent runs it (by
default it runs on the loop, blocking it for the tool's time). ``--stream`` adds
``iter_stream`` against a streamed ``litellm.completion`` (there "inside" is
only the opening of each stream: its chunks are read outside the call).
``--anthropic`` runs every pair on ``anthropic/claude-haiku-4-5`` (the server's
Messages wire), a provider LiteLLM translates both ways, instead of the OpenAI
wire forced through LiteLLM.

    .venv/bin/python benchmarks/litellm_gap.py [--pairs 600] [--async-tool]
        [--plain-tool-thread] [--stream] [--anthropic]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from agent_turns import PROMPT, make_agent
from overhead import litellm_llm
from plain import PlainTurn, capture_request
from report import bootstrap_interval, machine, machine_load, median, ms, table
from served import ServerProcess

from praisonlike.models.litellm_backend import load_litellm

WARMUP = 50


Sample = tuple[float, float]
"""A turn's wall time and the part of it inside LiteLLM's calls, in seconds."""


class CallClock:
    """Adds up the time spent inside ``litellm.completion`` and ``litellm.acompletion``."""

    def __init__(self, litellm: Any) -> None:
        self.inside = 0.0
        self._litellm = litellm
        self._real = (litellm.completion, litellm.acompletion)

    def __enter__(self) -> CallClock:
        completion, acompletion = self._real

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return completion(*args, **kwargs)
            finally:
                self.inside += time.perf_counter() - start

        async def atimed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await acompletion(*args, **kwargs)
            finally:
                self.inside += time.perf_counter() - start

        self._litellm.completion, self._litellm.acompletion = timed, atimed
        return self

    def __exit__(self, *exc: object) -> None:
        self._litellm.completion, self._litellm.acompletion = self._real

    @contextmanager
    def turn(self, samples: list[Sample]) -> Iterator[None]:
        """Time the turn run inside the block and add its sample to ``samples``."""
        self.inside = 0.0
        start = time.perf_counter()
        yield
        samples.append((time.perf_counter() - start, self.inside))


Side = tuple[Any, list[Sample], Callable[[], None]]
"""A side of the pairs: its turn, where its samples go, what to do after each turn (untimed)."""


def _turns_in_pairs(pairs: int, *sides: Side) -> Iterator[Side]:
    """The warm-up and then ``pairs`` pairs of turns, the two sides' order swapped every pair."""
    for n in range(WARMUP + pairs):
        yield from sides if n % 2 else reversed(sides)


def _sides(
    agent_turn: Any, plain_turn: Any, reset: Callable[[], None]
) -> tuple[list[Sample], list[Sample], tuple[Side, Side]]:
    """The agent's and plain LiteLLM's sample lists, and the two sides that fill them
    (the agent's history reset after each of its turns)."""
    agent: list[Sample] = []
    plain: list[Sample] = []
    return agent, plain, ((agent_turn, agent, reset), (plain_turn, plain, _nothing))


def _sync_pairs(
    clock: CallClock,
    pairs: int,
    agent_turn: Callable[[], Any],
    plain_turn: Callable[[], Any],
    reset: Callable[[], None],
) -> tuple[list[Sample], list[Sample]]:
    agent, plain, sides = _sides(agent_turn, plain_turn, reset)
    for turn, samples, after in _turns_in_pairs(pairs, *sides):
        with clock.turn(samples):
            turn()
        after()
    return agent[WARMUP:], plain[WARMUP:]


async def _async_pairs(
    clock: CallClock,
    pairs: int,
    agent_turn: Callable[[], Awaitable[Any]],
    plain_turn: Callable[[], Awaitable[Any]],
    reset: Callable[[], None],
) -> tuple[list[Sample], list[Sample]]:
    agent, plain, sides = _sides(agent_turn, plain_turn, reset)
    for turn, samples, after in _turns_in_pairs(pairs, *sides):
        with clock.turn(samples):
            await turn()
        after()
    return agent[WARMUP:], plain[WARMUP:]


def _nothing() -> None:
    return None


def _row(mode: str, agent: Sequence[Sample], plain: Sequence[Sample]) -> list[str]:
    gaps = [a[0] - p[0] for a, p in zip(agent, plain, strict=True)]
    low, high = bootstrap_interval(lambda g, _: median(g), gaps, gaps)
    ratio = median([a for a, _ in agent]) / median([p for p, _ in plain])
    return [
        mode,
        f"{ms(median([a for a, _ in agent]))} / {ms(median([p for p, _ in plain]))}",
        f"{ms(median([i for _, i in agent]))} / {ms(median([i for _, i in plain]))}",
        f"{ms(median([w - i for w, i in agent]))} / {ms(median([w - i for w, i in plain]))}",
        f"{ms(median(gaps))} [{ms(low)}-{ms(high)}]",
        f"{ratio:.3f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=600)
    parser.add_argument("--async-tool", action="store_true")
    parser.add_argument(
        "--plain-tool-thread", action="store_true", help="plain achat's tool via asyncio.to_thread"
    )
    parser.add_argument("--stream", action="store_true", help="also iter_stream pairs")
    parser.add_argument("--anthropic", action="store_true", help="on the Messages wire")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    print(f"litellm_gap: {machine()}")
    litellm = load_litellm()
    with ServerProcess() as server:
        llm = server.llm_config(anthropic=True) if args.anthropic else litellm_llm(server)
        plain = PlainTurn(
            server.llm_config(anthropic=args.anthropic), capture_request(make_agent, PROMPT)
        )
        chat_agent = make_agent(llm)
        achat_agent = make_agent(llm, async_tool=args.async_tool)
        stream_agent = make_agent(llm)

        def chat() -> None:
            chat_agent.chat(PROMPT)

        async def achat() -> None:
            await achat_agent.achat(PROMPT)

        async def plain_achat() -> None:
            await plain.arun(tool_in_thread=args.plain_tool_thread)

        def stream() -> None:
            for _ in stream_agent.iter_stream(PROMPT):
                pass

        with CallClock(litellm) as clock:
            sync = _sync_pairs(clock, args.pairs, chat, plain.run, chat_agent.clear_history)
            aio = asyncio.run(
                _async_pairs(clock, args.pairs, achat, plain_achat, achat_agent.clear_history)
            )
            rows = [_row("chat / completion", *sync), _row("achat / acompletion", *aio)]
            if args.stream:
                streamed = _sync_pairs(
                    clock, args.pairs, stream, plain.run_streamed, stream_agent.clear_history
                )
                rows.append(_row("iter_stream / completion(stream)", *streamed))
    tool = "async def" if args.async_tool else "sync"
    if args.plain_tool_thread:
        tool += ", plain's via asyncio.to_thread"
    wire = "anthropic/claude-haiku-4-5 on the Messages wire" if args.anthropic else "OpenAI wire"
    print(
        table(
            f"{args.pairs} pairs of one-tool turns on the {wire}, agent (through LiteLLM) / "
            f"plain LiteLLM, ms; medians; gap = median of agent minus plain per pair "
            f"[90% bootstrap]; achat's tool: {tool}; {machine_load()}",
            ["mode", "turn", "inside LiteLLM", "outside", "gap", "ratio"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
