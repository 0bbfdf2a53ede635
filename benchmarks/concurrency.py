"""Throughput under concurrency: the agent vs plain LiteLLM on one LocalLLMServer.

* asyncio: ``--turns`` one-tool turns in flight at once on one event loop,
  each on its own agent, vs as many plain ``litellm.acompletion`` turns doing
  the same two requests.
* threads: ``--threads`` threads each running ``--thread-turns`` ``chat``
  turns on its own agent, vs the same threads running plain
  ``litellm.completion`` turns.

Rounds alternate agent and plain; the table shows median turns per second,
every failure, and how many requests LiteLLM's aiohttp pool made wait for a
connection (it allows 500 per host unless ``AIOHTTP_CONNECTOR_LIMIT_PER_HOST``
says otherwise; its warnings are counted rather than printed). Target: the
agent within 10% of plain LiteLLM.

    .venv/bin/python benchmarks/concurrency.py [--turns 1000] [--threads 8]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from plain import PlainTurn, capture_request, close_loop
from report import machine, median, table, verdict
from served import ANSWER, ServerProcess, add

from praisonlike import Agent

PROMPT = "What is 1 + 2? Use the add tool."
INSTRUCTIONS = "You are a calculator. Use the add tool for sums."
TARGET = 0.90
WAITED = re.compile(r"pool saturated.*waited=([0-9.]+)s")


def make_agent(llm: dict[str, str]) -> Agent:
    return Agent(instructions=INSTRUCTIONS, llm=llm, tools=[add])


class PoolWaits(logging.Filter):
    """Counts LiteLLM's "connection pool saturated" warnings and keeps them off the console."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.longest = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        found = WAITED.search(record.getMessage())
        if found is None:
            return True
        self.count += 1
        self.longest = max(self.longest, float(found.group(1)))
        return False

    @classmethod
    def install(cls) -> PoolWaits:
        """Attach a new counter to LiteLLM's logger (loads LiteLLM)."""
        from praisonlike.llm.backend import load_litellm

        load_litellm()
        counter = cls()
        logging.getLogger("LiteLLM").addFilter(counter)
        return counter

    def describe(self) -> str:
        if not self.count:
            return "LiteLLM's client pool never made a request wait for a connection"
        return (
            f"LiteLLM's aiohttp pool (limit_per_host=500) made {self.count} requests wait for "
            f"a connection slot, the longest {self.longest:.2f} s"
        )


class Outcomes:
    """Answers and failures of one round, counted by kind."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def add(self, answer: object) -> None:
        if isinstance(answer, BaseException):
            kind = f"{type(answer).__name__}: {str(answer)[:80]}"
        else:
            kind = "ok" if answer == ANSWER else f"wrong answer {answer!r:.40}"
        with self._lock:
            self.counts[kind] += 1

    @property
    def failures(self) -> int:
        return sum(n for kind, n in self.counts.items() if kind != "ok")


def async_round(
    loop: asyncio.AbstractEventLoop,
    turns: Sequence[Callable[[], Awaitable[str]]],
    outcomes: Outcomes,
) -> float:
    async def run_all() -> float:
        started = time.perf_counter()
        answers = await asyncio.gather(*(turn() for turn in turns), return_exceptions=True)
        elapsed = time.perf_counter() - started
        for answer in answers:
            outcomes.add(answer)
        return elapsed

    return loop.run_until_complete(run_all())


def thread_round(turns: Sequence[Callable[[], str]], count: int, outcomes: Outcomes) -> float:
    barrier = threading.Barrier(len(turns) + 1)

    def worker(turn: Callable[[], str]) -> None:
        barrier.wait()
        for _ in range(count):
            try:
                outcomes.add(turn())
            except Exception as exc:
                outcomes.add(exc)

    with ThreadPoolExecutor(max_workers=len(turns)) as pool:
        futures = [pool.submit(worker, turn) for turn in turns]
        barrier.wait()
        started = time.perf_counter()
        for future in futures:
            future.result()
        return time.perf_counter() - started


async def _agent_achat(agent: Agent) -> str:
    return str(await agent.achat(PROMPT))


def _agent_chat(agent: Agent) -> Callable[[], str]:
    def turn() -> str:
        try:
            return str(agent.chat(PROMPT))
        finally:
            agent.clear_history()

    return turn


def measure_async(
    server: ServerProcess, plain: PlainTurn, turns: int, rounds: int, waits: PoolWaits
) -> list[list[str]]:
    loop = asyncio.new_event_loop()
    rates: dict[str, list[float]] = {"agent.achat": [], "litellm.acompletion": []}
    outcomes = {name: Outcomes() for name in rates}
    waited = dict.fromkeys(rates, 0)
    try:
        warm = [make_agent(server.llm_config()) for _ in range(20)]
        async_round(loop, [partial(_agent_achat, a) for a in warm], Outcomes())
        for _ in range(rounds):
            agents = [make_agent(server.llm_config()) for _ in range(turns)]
            batches: dict[str, Sequence[Callable[[], Awaitable[str]]]] = {
                "agent.achat": [partial(_agent_achat, a) for a in agents],
                "litellm.acompletion": [plain.arun] * turns,
            }
            for name, batch in batches.items():
                before = waits.count
                elapsed = async_round(loop, batch, outcomes[name])
                rates[name].append(turns / elapsed)
                waited[name] += waits.count - before
    finally:
        close_loop(loop)
    rows = _rows(rates, outcomes, "agent.achat", "litellm.acompletion")
    for row, name in zip(rows, rates, strict=False):
        row[-1] += f"; {waited[name]} requests waited for a pooled connection"
    return rows


def measure_threads(
    server: ServerProcess, plain: PlainTurn, threads: int, per_thread: int, rounds: int
) -> list[list[str]]:
    rates: dict[str, list[float]] = {"agent.chat": [], "litellm.completion": []}
    outcomes = {name: Outcomes() for name in rates}
    thread_round([plain.run] * threads, 2, Outcomes())
    for _ in range(rounds):
        agents = [_agent_chat(make_agent(server.llm_config())) for _ in range(threads)]
        elapsed = thread_round(agents, per_thread, outcomes["agent.chat"])
        rates["agent.chat"].append(threads * per_thread / elapsed)
        elapsed = thread_round([plain.run] * threads, per_thread, outcomes["litellm.completion"])
        rates["litellm.completion"].append(threads * per_thread / elapsed)
    return _rows(rates, outcomes, "agent.chat", "litellm.completion")


def _rows(
    rates: dict[str, list[float]], outcomes: dict[str, Outcomes], agent: str, plain: str
) -> list[list[str]]:
    share = median(rates[agent]) / median(rates[plain])
    kinds = {
        name: ", ".join(f"{n} x {kind}" for kind, n in o.counts.most_common())
        for name, o in outcomes.items()
    }
    return [
        [name, f"{median(values):.1f}", f"{min(values):.1f}-{max(values):.1f}", kinds[name]]
        for name, values in rates.items()
    ] + [[f"{agent} / {plain}", f"{share:.3f} {verdict(share >= TARGET)}", "", ""]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--thread-turns", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"concurrency: {machine()}")
    headers = ["mode", "turns/s (median)", "range", "outcomes"]
    waits = PoolWaits.install()
    with ServerProcess() as server:
        plain = PlainTurn(server.llm_config(), capture_request(make_agent, PROMPT))
        rows = measure_async(server, plain, args.turns, args.rounds, waits)
        print(
            table(
                f"{args.turns} one-tool turns in flight at once on one event loop, "
                f"each on its own agent; {args.rounds} rounds",
                headers,
                rows,
            )
        )
        print(waits.describe())
        rows = measure_threads(server, plain, args.threads, args.thread_turns, args.rounds)
        print(
            table(
                f"{args.threads} threads x {args.thread_turns} one-tool turns, "
                f"each thread on its own agent; {args.rounds} rounds",
                headers,
                rows,
            )
        )
    print(server.describe())


if __name__ == "__main__":
    main()
