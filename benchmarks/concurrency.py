"""Throughput under concurrency: praisonlike vs plain LiteLLM, the plain openai SDK and PraisonAI.

* asyncio: ``--turns`` one-tool turns in flight at once on one event loop,
  each on its own agent: praisonlike on the direct transport and through
  LiteLLM, plain ``AsyncOpenAI`` ``chat.completions.create`` turns (one
  client), plain ``litellm.acompletion`` turns, and PraisonAI's ``achat``
  (native openai path) in its worker process (``praisonai.py``), where its
  environment exists. One round of each system after another.
* threads: ``--threads`` threads each running ``--thread-turns`` ``chat``
  turns on its own agent through LiteLLM, vs the same threads running plain
  ``litellm.completion`` turns.

The table shows median turns per second, every failure, and how many
requests LiteLLM's aiohttp pool made wait for a connection (it allows 500
per host unless ``AIOHTTP_CONNECTOR_LIMIT_PER_HOST`` says otherwise; its
warnings are counted rather than printed). Targets: ``achat`` on the direct
transport at least plain LiteLLM's and PraisonAI's throughput; threads
within 10% of plain LiteLLM.

    .venv/bin/python benchmarks/concurrency.py [--turns 1000] [--threads 8] [--rounds 3]
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
from contextlib import ExitStack
from functools import partial

from agent_turns import PROMPT, direct_llm, make_agent
from plain import PlainOpenAITurn, PlainTurn, capture_request, close_loop
from praisonai import PraisonAI, Worker, absent, find
from report import machine, machine_load, median, table, verdict
from served import ANSWER, ServerProcess

from praisonlike import Agent

TARGET = 0.90
"""Threads: the agent (through LiteLLM) within 10% of plain LiteLLM."""
ASYNC_TARGET = 1.0
"""``achat`` on the direct transport: at least plain LiteLLM's and PraisonAI's throughput."""
DIRECT_ACHAT = "agent.achat, direct transport"
VIA_LITELLM_ACHAT = "agent.achat, transport=litellm"
PRAISONAI_ACHAT = "PraisonAI achat (native path)"
THREAD_AGENT = "agent.chat, transport=litellm"
WAITED = re.compile(r"pool saturated.*waited=([0-9.]+)s")


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
        from praisonlike.models.litellm_backend import load_litellm

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

    def describe(self) -> str:
        return ", ".join(f"{n} x {kind}" for kind, n in self.counts.most_common())


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
    server: ServerProcess,
    plain: PlainTurn,
    turns: int,
    rounds: int,
    waits: PoolWaits,
    worker: Worker | None,
) -> list[list[str]]:
    """Rounds of ``turns`` turns in flight per system; the table rows, judged.

    praisonlike on the direct transport is judged against plain LiteLLM and
    PraisonAI (at least as many turns a second); the plain openai SDK and
    praisonlike through LiteLLM are shown.
    """
    loop = asyncio.new_event_loop()
    sdk = PlainOpenAITurn(server.llm_config(), plain.request)
    names = [DIRECT_ACHAT, VIA_LITELLM_ACHAT, "openai.acreate", "litellm.acompletion"]
    if worker is not None:
        names.append(PRAISONAI_ACHAT)
    rates: dict[str, list[float]] = {name: [] for name in names}
    outcomes = {name: Outcomes() for name in rates}
    waited = dict.fromkeys(rates, 0)
    direct, via = direct_llm(server.llm_config()), server.llm_config()
    try:
        warm = [make_agent(llm) for llm in (direct, via) for _ in range(20)]
        async_round(loop, [partial(_agent_achat, a) for a in warm], Outcomes())
        async_round(loop, [sdk.arun] * 20, Outcomes())
        for _ in range(rounds):
            batches: dict[str, Sequence[Callable[[], Awaitable[str]]]] = {
                DIRECT_ACHAT: [partial(_agent_achat, make_agent(direct)) for _ in range(turns)],
                VIA_LITELLM_ACHAT: [partial(_agent_achat, make_agent(via)) for _ in range(turns)],
                "openai.acreate": [sdk.arun] * turns,
                "litellm.acompletion": [plain.arun] * turns,
            }
            for name, batch in batches.items():
                before = waits.count
                elapsed = async_round(loop, batch, outcomes[name])
                rates[name].append(turns / elapsed)
                waited[name] += waits.count - before
            if worker is not None:
                elapsed, counts = worker.concurrent(turns)
                rates[PRAISONAI_ACHAT].append(turns / elapsed)
                outcomes[PRAISONAI_ACHAT].counts.update(counts)
    finally:
        close_loop(loop)
    rows = [
        [name, f"{median(v):.1f}", f"{min(v):.1f}-{max(v):.1f}", outcomes[name].describe()]
        for name, v in rates.items()
    ]
    for row, name in zip(rows, rates, strict=True):
        if name in (VIA_LITELLM_ACHAT, "litellm.acompletion"):
            row[-1] += f"; {waited[name]} requests waited for a pooled connection"
    for reference in ("litellm.acompletion", PRAISONAI_ACHAT, "openai.acreate"):
        if reference in rates:
            share = median(rates[DIRECT_ACHAT]) / median(rates[reference])
            judged = reference != "openai.acreate"
            mark = verdict(share >= ASYNC_TARGET) if judged else "(not judged)"
            rows.append([f"{DIRECT_ACHAT} / {reference}", f"{share:.3f} {mark}", "", ""])
    share = median(rates[VIA_LITELLM_ACHAT]) / median(rates["litellm.acompletion"])
    rows.append([f"{VIA_LITELLM_ACHAT} / litellm.acompletion", f"{share:.3f}", "", ""])
    return rows


def measure_threads(
    server: ServerProcess, plain: PlainTurn, threads: int, per_thread: int, rounds: int
) -> list[list[str]]:
    rates: dict[str, list[float]] = {THREAD_AGENT: [], "litellm.completion": []}
    outcomes = {name: Outcomes() for name in rates}
    thread_round([plain.run] * threads, 2, Outcomes())
    for _ in range(rounds):
        agents = [_agent_chat(make_agent(server.llm_config())) for _ in range(threads)]
        elapsed = thread_round(agents, per_thread, outcomes[THREAD_AGENT])
        rates[THREAD_AGENT].append(threads * per_thread / elapsed)
        elapsed = thread_round([plain.run] * threads, per_thread, outcomes["litellm.completion"])
        rates["litellm.completion"].append(threads * per_thread / elapsed)
    return _rows(rates, outcomes, THREAD_AGENT, "litellm.completion")


def _rows(
    rates: dict[str, list[float]], outcomes: dict[str, Outcomes], agent: str, plain: str
) -> list[list[str]]:
    share = median(rates[agent]) / median(rates[plain])
    return [
        [
            name,
            f"{median(values):.1f}",
            f"{min(values):.1f}-{max(values):.1f}",
            outcomes[name].describe(),
        ]
        for name, values in rates.items()
    ] + [[f"{agent} / {plain}", f"{share:.3f} {verdict(share >= TARGET)}", "", ""]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--thread-turns", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-praisonai", action="store_true", help="leave PraisonAI out")
    args = parser.parse_args()
    print(f"concurrency: {machine()}")
    praisonai = "left out (--no-praisonai)" if args.no_praisonai else find()
    print(praisonai.label if isinstance(praisonai, PraisonAI) else absent(praisonai))
    headers = ["mode", "turns/s (median)", "range", "outcomes"]
    waits = PoolWaits.install()
    with ServerProcess() as server, ExitStack() as stack:
        worker = None
        if isinstance(praisonai, PraisonAI):
            worker = stack.enter_context(Worker(praisonai, server.url))
        plain = PlainTurn(server.llm_config(), capture_request(make_agent, PROMPT))
        load = machine_load()
        rows = measure_async(server, plain, args.turns, args.rounds, waits, worker)
        print(
            table(
                f"{args.turns} one-tool turns in flight at once on one event loop, "
                f"each on its own agent (PraisonAI: in its worker process); {args.rounds} "
                f"rounds; load average {load} at the start, {machine_load()} at the end",
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
