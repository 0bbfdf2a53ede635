"""Memory: an idle agent, a long history, and many turns with the history cleared.

Measured with :mod:`tracemalloc` in this process (the LocalLLMServer runs in
another, so none of its memory is counted), after ``gc.collect()``:

* an idle ``Agent`` beyond the first (target < 50 KB each);
* a conversation of ``--history-messages`` messages: what the turns that built
  it keep alive, and what ``clear_history()`` gives back (target < 2 MB);
* ``--turns`` turns with ``clear_history()`` after each: traced memory, gc
  object count and RSS at 1,000 turns and at the end, and where any growth
  was allocated -- once with a different prompt every turn, as a user's
  would be (so a cache keyed by content shows up), once with the same prompt
  every turn (so only a leak would). Every tenth turn is a one-tool turn; the
  others offer no tool (one request each), to keep the run short.

    .venv/bin/python benchmarks/memory.py [--turns 10000] [--same-prompt-turns 2000]
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from report import kib, machine, table, verdict
from served import ANSWER, ServerProcess, add

from praisonlike import Agent

IDLE_TARGET = 50 * 1024
HISTORY_TARGET = 2 * 1024 * 1024
CHECKPOINT = 1000
GROWTH_PER_TURN = 16
INSTRUCTIONS = "You are a calculator. Use the add tool for sums."


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def idle_agents(llm: dict[str, str], count: int) -> list[list[str]]:
    rows = []
    builders: dict[str, Callable[[], Agent]] = {
        "Agent(instructions, llm)": lambda: Agent(instructions=INSTRUCTIONS, llm=llm),
        "Agent(instructions, llm, tools=[add])": lambda: Agent(
            instructions=INSTRUCTIONS, llm=llm, tools=[add]
        ),
    }
    for name, build in builders.items():
        build()
        before = _traced()
        agents = [build() for _ in range(count)]
        each = (_traced() - before) / len(agents)
        rows.append([name, kib(each), f"< {kib(IDLE_TARGET)} {verdict(each < IDLE_TARGET)}"])
        del agents
    return rows


def _turn(agent: Agent, index: int, *, distinct: bool) -> None:
    prompt = f"Question {index}: what is 1 + 2?" if distinct else "What is 1 + 2?"
    answer = agent.chat(prompt) if index % 10 == 0 else agent.chat(prompt, tools=[])
    if answer != ANSWER:
        raise RuntimeError(f"unexpected answer {answer!r}")


def long_history(llm: dict[str, str], messages: int) -> list[list[str]]:
    agent = Agent(instructions=INSTRUCTIONS, llm=llm, tools=[add])
    warm = Agent(instructions=INSTRUCTIONS, llm=llm, tools=[add])
    for index in range(5):
        warm.chat(f"warm-up {index}: what is 1 + 2?")
    before = _traced()
    index = 0
    while len(agent.chat_history) < messages:
        agent.chat(f"Question {index}: what is 1 + 2?")
        index += 1
    held = _traced() - before
    count = len(agent.chat_history)
    agent.clear_history()
    after_clear = _traced() - before
    return [
        [
            f"{count} messages ({index} one-tool turns) kept alive by their turns",
            kib(held),
            f"< {kib(HISTORY_TARGET)} {verdict(held < HISTORY_TARGET)}",
        ],
        ["still held after clear_history()", kib(after_clear), ""],
    ]


@dataclass(frozen=True)
class Checkpoint:
    traced: int
    objects: int
    rss: int


def _checkpoint(snapshot_file: Path) -> Checkpoint:
    """Measure, then dump a snapshot to ``snapshot_file`` and free it before reading RSS."""
    traced = _traced()
    objects = len(gc.get_objects())
    tracemalloc.take_snapshot().dump(str(snapshot_file))
    gc.collect()
    return Checkpoint(traced, objects, _rss())


def many_turns(
    llm: dict[str, str], turns: int, *, distinct: bool
) -> tuple[list[list[str]], list[str], float]:
    """Rows of the growth table, the largest growth sites, and traced bytes grown per turn."""
    agent = Agent(instructions=INSTRUCTIONS, llm=llm, tools=[add])
    for index in range(20):
        _turn(agent, -index - 1, distinct=distinct)
        agent.clear_history()
    with tempfile.TemporaryDirectory() as folder:
        files = {CHECKPOINT: Path(folder) / "first", turns: Path(folder) / "last"}
        checkpoints: dict[int, Checkpoint] = {}
        started = time.perf_counter()
        for index in range(1, turns + 1):
            _turn(agent, index, distinct=distinct)
            agent.clear_history()
            if index in files:
                checkpoints[index] = _checkpoint(files[index])
        elapsed = time.perf_counter() - started
        last = tracemalloc.Snapshot.load(str(files[turns]))
        stats = last.compare_to(tracemalloc.Snapshot.load(str(files[CHECKPOINT])), "lineno")
    first, final = checkpoints[CHECKPOINT], checkpoints[turns]
    span = turns - CHECKPOINT
    rows = []
    for label, before, after, show in (
        ("traced memory (KiB)", first.traced, final.traced, kib),
        ("gc objects", first.objects, final.objects, str),
        ("RSS (KiB)", first.rss, final.rss, kib),
    ):
        growth = after - before
        rows.append([label, show(before), show(after), show(growth), f"{growth / span:.2f}"])
    top = [
        f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  {stat.traceback}"
        for stat in stats[:6]
    ]
    top.append(f"({turns} turns in {elapsed:.0f} s under tracemalloc)")
    return rows, top, (final.traced - first.traced) / span


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--same-prompt-turns", type=int, default=2000)
    parser.add_argument("--history-messages", type=int, default=1000)
    parser.add_argument("--agents", type=int, default=200)
    args = parser.parse_args()
    if min(args.turns, args.same_prompt_turns) <= CHECKPOINT:
        parser.error(f"--turns and --same-prompt-turns must be above {CHECKPOINT}")
    print(f"memory: {machine()}")
    from praisonlike.models.litellm_backend import load_litellm

    load_litellm()
    tracemalloc.start()
    with ServerProcess() as server:
        llm = server.llm_config()
        rows = idle_agents(llm, args.agents)
        print(table(f"Idle agents ({args.agents} built)", ["agent", "KiB each", "target"], rows))
        rows = long_history(llm, args.history_messages)
        print(table("One long conversation", ["what", "KiB", "target"], rows))
        for turns, distinct, what in (
            (args.turns, True, "a different prompt every turn"),
            (args.same_prompt_turns, False, "the same prompt every turn"),
        ):
            rows, top, per_turn = many_turns(llm, turns, distinct=distinct)
            print(
                table(
                    f"{turns} turns with clear_history() after each, {what} "
                    "(every tenth a one-tool turn)",
                    ["measure", f"at {CHECKPOINT}", f"at {turns}", "growth", "growth per turn"],
                    rows,
                )
            )
            print(f"largest growth between turn {CHECKPOINT} and turn {turns} (tracemalloc):")
            print("\n".join(f"  {line}" for line in top))
            ok = per_turn < GROWTH_PER_TURN
            print(f"no growth (< {GROWTH_PER_TURN} traced bytes per turn): {verdict(ok)}")
    print(server.describe())


if __name__ == "__main__":
    main()
