"""Per-turn overhead of the agent over plain LiteLLM, on one LocalLLMServer.

A one-tool turn (a tool call, then the answer: two requests) is repeated for
``agent.chat``, ``agent.achat`` and ``agent.iter_stream`` and for plain
LiteLLM doing the same two requests (sync, async, streamed), interleaved in
rounds so drift on a noisy machine hits every mode alike. The server's own
time (a bare ``http.client`` doing the same requests) is subtracted before
taking ratios. History is cleared after every turn, so every turn is alike.

Then the same overhead (the agent's turn minus plain LiteLLM sending the same
two requests) is compared near turn 1 and near turn ``--history-turns`` of
one conversation: two agents hold those histories (restored with
``load_state`` every few turns) for ``--growth-samples`` interleaved turns
each. A few hundred are needed: the quantity is 1-3 ms, on turns that
scatter by several ms.

Targets, for the default settings: ratio <= 1.10; the last turns within 1.2x
of the first. ``ExecutionConfig(interruptible_calls=True)``, an opt-in that
puts each sync call on a worker thread so cancelling abandons it at once, is
measured and shown but not judged.

    .venv/bin/python benchmarks/overhead.py [--turns 200] [--history-turns 200]
        [--growth-samples 200] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import cProfile
import io
import pstats
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from plain import PlainTurn, capture_request, close_loop
from report import machine, median, ms, p90, ratio, table, verdict
from served import ANSWER, ServerProcess, add, median_round_trip, request_bodies, server_round_trip

from praisonlike import Agent, ExecutionConfig

PROMPT = "What is 1 + 2? Use the add tool."
INSTRUCTIONS = "You are a calculator. Use the add tool for sums."
RATIO_TARGET = 1.10
GROWTH_TARGET = 1.2
RESTORE_EVERY = 10

Sample = tuple[float, float]
"""(wall seconds, CPU seconds of this process) of one turn."""
Runner = Callable[[], Sample]


def make_agent(llm: dict[str, str], *, interruptible_calls: bool = False) -> Agent:
    execution = ExecutionConfig(interruptible_calls=interruptible_calls)
    return Agent(instructions=INSTRUCTIONS, llm=llm, tools=[add], execution=execution)


def _check(answer: str) -> None:
    if answer != ANSWER:
        raise RuntimeError(f"unexpected answer {answer!r}")


SETTLE_QUANTUM = 0.002
SETTLE_LIMIT = 0.5


def settle() -> None:
    """Wait until this process stops using CPU (at most ``SETTLE_LIMIT`` seconds).

    LiteLLM finishes each call's logging on a background thread after the call
    returns (about 1 ms of CPU per call here, 4 ms with an 800-message
    history). Without this wait that work would be charged to whatever is
    measured next.
    """
    deadline = time.perf_counter() + SETTLE_LIMIT
    while time.perf_counter() < deadline:
        before = time.process_time()
        time.sleep(SETTLE_QUANTUM)
        if time.process_time() - before < SETTLE_QUANTUM / 20:
            return


def _timed(turn: Callable[[], str]) -> Sample:
    """(wall, CPU) of ``turn()``; the CPU figure includes the background work it left."""
    settle()
    wall, cpu = time.perf_counter(), time.process_time()
    answer = turn()
    elapsed = time.perf_counter() - wall
    settle()
    sample = elapsed, time.process_time() - cpu
    _check(answer)
    return sample


def _timed_async(loop: asyncio.AbstractEventLoop, turn: Callable[[], Awaitable[str]]) -> Sample:
    async def measure() -> tuple[float, float, str]:
        wall, cpu = time.perf_counter(), time.process_time()
        answer = await turn()
        return time.perf_counter() - wall, cpu, answer

    settle()
    elapsed, cpu, answer = loop.run_until_complete(measure())
    settle()
    _check(answer)
    return elapsed, time.process_time() - cpu


def _chat(agent: Agent, prompt: str) -> str:
    return str(agent.chat(prompt))


def _cleared(agent: Agent, run: Callable[[], str]) -> Callable[[], str]:
    def turn() -> str:
        try:
            return run()
        finally:
            agent.clear_history()

    return turn


def _runners(
    server: ServerProcess, plain: PlainTurn, loop: asyncio.AbstractEventLoop
) -> dict[str, Runner]:
    chat, achat, stream = (make_agent(server.llm_config()) for _ in range(3))
    interruptible = make_agent(server.llm_config(), interruptible_calls=True)

    async def agent_achat() -> str:
        try:
            return str(await achat.achat(PROMPT))
        finally:
            achat.clear_history()

    return {
        "agent.chat": lambda: _timed(_cleared(chat, lambda: str(chat.chat(PROMPT)))),
        INTERRUPTIBLE_CHAT: lambda: _timed(
            _cleared(interruptible, lambda: str(interruptible.chat(PROMPT)))
        ),
        "agent.achat": lambda: _timed_async(loop, agent_achat),
        "agent.iter_stream": lambda: _timed(
            _cleared(stream, lambda: "".join(stream.iter_stream(PROMPT)))
        ),
        "litellm.completion": lambda: _timed(plain.run),
        "litellm.acompletion": lambda: _timed_async(loop, plain.arun),
        "litellm.completion(stream)": lambda: _timed(plain.run_streamed),
    }


INTERRUPTIBLE_CHAT = "agent.chat, interruptible_calls=True"
"""An opt-in (a worker thread per call, for instant cancellation): shown, not judged."""


def _judgement(passed: bool, judged: bool) -> str:
    return verdict(passed) if judged else "(not judged)"


PAIRS = {
    "agent.chat": ("litellm.completion", "server"),
    INTERRUPTIBLE_CHAT: ("litellm.completion", "server"),
    "agent.achat": ("litellm.acompletion", "server"),
    "agent.iter_stream": ("litellm.completion(stream)", "server(stream)"),
    "litellm.completion": (None, "server"),
    "litellm.acompletion": (None, "server"),
    "litellm.completion(stream)": (None, "server(stream)"),
}


def _collect(
    server: ServerProcess, plain: PlainTurn, turns: int, rounds: int
) -> tuple[dict[str, list[Sample]], dict[str, list[float]]]:
    loop = asyncio.new_event_loop()
    try:
        runners = _runners(server, plain, loop)
        first = plain.messages_for(PROMPT, [])
        bodies = {
            "server": request_bodies(first, plain.tools, stream=False),
            "server(stream)": request_bodies(first, plain.tools, stream=True),
        }
        samples: dict[str, list[Sample]] = {name: [] for name in runners}
        bare: dict[str, list[float]] = {name: [] for name in bodies}
        for run in runners.values():
            for _ in range(10):
                run()
        per_round = max(1, turns // rounds)
        for _ in range(rounds):
            for name, run in runners.items():
                samples[name].extend(run() for _ in range(per_round))
            for name, pair in bodies.items():
                bare[name].extend(server_round_trip(server.port, pair, per_round))
    finally:
        close_loop(loop)
    return samples, bare


def measure_repeated(server: ServerProcess, plain: PlainTurn, turns: int, rounds: int) -> bool:
    samples, bare = _collect(server, plain, turns, rounds)
    wall = {name: [s[0] for s in values] for name, values in samples.items()}
    cpu = {name: [s[1] for s in values] for name, values in samples.items()}
    own = {name: median(values) for name, values in bare.items()}
    net = {
        name: (median(wall[name]) - own[pair[1]], p90(wall[name]) - own[pair[1]])
        for name, pair in PAIRS.items()
    }
    rows = [[f"{name} only", ms(median(v)), ms(p90(v))] + [""] * 7 for name, v in bare.items()]
    ok = True
    for name, (reference, _) in PAIRS.items():
        row = [name, ms(median(wall[name])), ms(p90(wall[name])), ms(net[name][0])]
        row += [ms(net[name][1]), ms(median(cpu[name])), ms(p90(cpu[name]))]
        if reference is None:
            rows.append(row + ["", "", ""])
            continue
        wall_ratio = net[name][0] / net[reference][0]
        cpu_ratio = median(cpu[name]) / median(cpu[reference])
        judged = name != INTERRUPTIBLE_CHAT
        if judged:
            ok = ok and wall_ratio <= RATIO_TARGET and cpu_ratio <= RATIO_TARGET
        row.append(f"{wall_ratio:.3f} {_judgement(wall_ratio <= RATIO_TARGET, judged)}")
        row.append(ratio(net[name][1], net[reference][1]))
        row.append(f"{cpu_ratio:.3f} {_judgement(cpu_ratio <= RATIO_TARGET, judged)}")
        rows.append(row)
    count = len(wall["agent.chat"])
    print(
        table(
            f"One-tool turn (2 requests), {count} turns per mode, ms per turn. net = wall minus "
            "the server's own time (median of a bare http.client doing the same requests); "
            "cpu = this process's CPU time; ratios are agent / plain LiteLLM",
            [
                "mode",
                "wall median",
                "wall p90",
                "net median",
                "net p90",
                "cpu median",
                "cpu p90",
                "ratio net median",
                "ratio net p90",
                "ratio cpu median",
            ],
            rows,
        )
    )
    return ok


def measure_growth(
    server: ServerProcess,
    plain: PlainTurn,
    turns: int,
    samples: int,
    *,
    interruptible_calls: bool = False,
) -> bool:
    """The overhead near turn 1 and near turn ``turns``, judged against each other.

    One conversation is grown for ``turns - 1`` turns (untimed) and kept with
    ``save_state``. Two agents then take turns: one starting from an empty
    history (turn 1), one restored to the grown history (turn ``turns``). Each
    goes on for ``RESTORE_EVERY`` turns and is restored again, so the two
    lengths stay apart while each agent runs an ordinary conversation; the
    turn right after a restore (the restored messages are all new objects to
    the agent) is not counted. Each turn is paired with plain LiteLLM sending
    the same two requests, alternately before and after it, so drift hits
    both lengths alike. Plain LiteLLM keeps its own history the way the agent
    does (a copy of the state at each restore, grown by each turn's messages),
    so neither side replays messages laid out more favourably in memory. Only
    the default settings are judged.
    """
    grower = make_agent(server.llm_config())
    for index in range(turns - 1):
        grower.chat(f"Question {index + 1}: {PROMPT}")
    states = {1: make_agent(server.llm_config()).save_state(), turns: grower.save_state()}
    agents = {
        n: make_agent(server.llm_config(), interruptible_calls=interruptible_calls) for n in states
    }
    runs: dict[int, list[tuple[Sample, Sample]]] = {n: [] for n in states}
    histories: dict[int, list[dict[str, Any]]] = {}
    for sample in range(samples + samples // (RESTORE_EVERY - 1) + 1):
        restored = sample % RESTORE_EVERY == 0
        for n in sorted(states, reverse=sample % 2 == 1):
            agent = agents[n]
            if restored:
                agent.load_state(states[n])
                histories[n] = copy.deepcopy(states[n]["history"])
            history = histories[n]
            history.extend(agent.chat_history[len(history) :])
            prompt = f"Question {n}.{sample}: {PROMPT}"
            messages = plain.messages_for(prompt, history)
            if sample % 2:
                replay = _timed(partial(plain.run, messages))
                turn = _timed(partial(_chat, agent, prompt))
            else:
                turn = _timed(partial(_chat, agent, prompt))
                replay = _timed(partial(plain.run, messages))
            if not restored and len(runs[n]) < samples:
                runs[n].append((turn, replay))
    judged = not interruptible_calls
    rows, ok = [], True
    for clock_name, part in (("wall", 0), ("cpu", 1)):
        overhead = {n: median([t[part] - r[part] for t, r in runs[n]]) for n in runs}
        growth = overhead[turns] / overhead[1] if overhead[1] > 0 else float("inf")
        passed = growth <= GROWTH_TARGET
        ok = ok and passed
        rows.append(
            [
                f"{clock_name}: agent turn minus plain LiteLLM",
                ms(overhead[1]),
                ms(overhead[turns]),
                f"{growth:.2f} {_judgement(passed, judged)}",
                " / ".join(
                    f"{ms(median([t[part] for t, _ in runs[n]]))} vs "
                    f"{ms(median([r[part] for _, r in runs[n]]))}"
                    for n in sorted(runs)
                ),
            ]
        )
    print(
        table(
            f"Long history (interruptible_calls={interruptible_calls}): one-tool turns near "
            f"turn 1 and near turn {turns} ({len(states[turns]['history'])} messages; restored "
            f"every {RESTORE_EVERY} turns), {samples} of each, interleaved; medians, ms per turn",
            [
                "measure",
                "turn 1",
                f"turn {turns}",
                "last / first",
                f"agent vs plain, near turn 1 / near turn {turns}",
            ],
            rows,
        )
    )
    return ok or not judged


def profile_turns(server: ServerProcess, turns: int) -> None:
    agent = make_agent(server.llm_config())
    for _ in range(10):
        agent.chat(PROMPT)
        agent.clear_history()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(turns):
        agent.chat(PROMPT)
        agent.clear_history()
    profiler.disable()
    for order in ("cumulative", "tottime"):
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order)
        stats.print_stats(30)
        print(f"\ncProfile of {turns} agent.chat turns, sorted by {order}:")
        print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--history-turns", type=int, default=200)
    parser.add_argument("--growth-samples", type=int, default=200)
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile agent.chat turns (the caller's thread only, so LiteLLM's "
        "logging thread is not in it)",
    )
    args = parser.parse_args()
    print(f"overhead: {machine()}")
    with ServerProcess() as server:
        plain = PlainTurn(server.llm_config(), capture_request(make_agent, PROMPT))
        bare = median_round_trip(
            server.port, request_bodies(plain.messages_for(PROMPT, []), plain.tools, stream=False)
        )
        print(f"server's own time for the two requests (bare http.client): {ms(bare)} ms")
        ok = measure_repeated(server, plain, args.turns, args.rounds)
        ok = measure_growth(server, plain, args.history_turns, args.growth_samples) and ok
        measure_growth(
            server, plain, args.history_turns, args.growth_samples, interruptible_calls=True
        )
        if args.profile:
            profile_turns(server, args.turns)
    print(f"\noverhead targets: {verdict(ok)}")


if __name__ == "__main__":
    main()
