"""Per-turn overhead of the agent over the plain openai SDK and plain LiteLLM, on one server.

A one-tool turn (a tool call, then the answer: two requests) is repeated for
``agent.chat``, ``agent.achat`` and ``agent.iter_stream`` on the direct
transport (an OpenAI-wire endpoint, see ``praisonlike.models.transport``) and
judged against the plain openai SDK doing the same two requests (sync, async,
streamed); the same three with ``transport="litellm"`` are judged against
plain LiteLLM doing them, and so are the same three on a non-OpenAI provider
(``anthropic/claude-haiku-4-5`` on the server's Anthropic Messages wire, which
always goes through LiteLLM) against plain LiteLLM sending that provider the
same two requests. Where ``benchmarks/.venv-praisonai`` exists
(``make bench-venv``), PraisonAI's ``Agent`` (its native openai path, in a
worker process of that environment, see ``praisonai.py``) runs the same
one-tool turn with ``chat``, ``achat`` and ``iter_stream`` in the same
rotation, and praisonlike on the direct transport is judged against it
(``systems.py``; ``--plot`` draws the by-system figure). One turn of
each mode after another, the order rotated every turn, so drift on a noisy
machine and whatever a turn leaves behind hit every mode alike. The server's own
time (a bare ``http.client`` doing the same requests) is subtracted before
taking ratios. The agent's history is cleared after every turn, outside the
timed region, so every turn is alike.

Then the overhead is compared near turn 1 and near turn ``--history-turns``
of one conversation (``history_growth.py``): end to end (the agent's turn
minus plain LiteLLM sending the same two requests, ``--growth-samples``
pairs at each length; a few hundred are needed, the quantity is 1-3 ms on
turns that scatter by several ms), and as the agent's own CPU with LiteLLM's
calls answered from a recording.

Targets, for the default settings: <= 1.10x the plain openai SDK on the
direct transport, <= 1.05x plain LiteLLM through LiteLLM, <= 1.0x PraisonAI;
the last turns within 1.2x of the first.
``ExecutionConfig(interruptible_calls=True)``, an opt-in that puts each sync
call on a worker thread so cancelling abandons it at once, is measured and
shown but not judged, and so is ``achat`` with the tool written ``async def``
(the judged ``achat`` row runs the sync tool on a worker thread, as the agent
does so that it cannot block the event loop; plain LiteLLM's loop runs it
inline).

    .venv/bin/python benchmarks/overhead.py [--turns 200] [--history-turns 200]
        [--growth-samples 200] [--profile] [--turns-only] [--plot [PNG]] [--no-praisonai]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from agent_turns import PROMPT, direct_llm, judgement, make_agent
from history_growth import grown_states, measure_growth, measure_own_growth
from plain import PlainOpenAITurn, PlainTurn, capture_request, close_loop, recorded_bodies
from praisonai import PraisonAI, Worker, absent, find
from report import (
    bootstrap_interval,
    machine,
    machine_load,
    median,
    median_ratio,
    ms,
    p90,
    ratio,
    table,
    verdict,
)
from served import (
    CHAT_PATH,
    MESSAGES_PATH,
    ServerProcess,
    median_round_trip,
    request_bodies,
    server_round_trip,
)
from systems import PLOT_PATH, Figure, by_system, plot_overhead
from timing import Sample, timed, timed_async

from praisonlike import Agent

RATIO_TARGET = 1.10
"""Agent on the direct transport / the plain openai SDK."""
LITELLM_TARGET = 1.05
"""Agent with ``transport="litellm"`` / plain LiteLLM."""

Runner = Callable[[], Sample]


def _cleared(agent: Agent, run: Callable[[], Sample]) -> Runner:
    """``run``, then the agent's history cleared outside the timed turn."""

    def turn() -> Sample:
        try:
            return run()
        finally:
            agent.clear_history()

    return turn


def litellm_llm(server: ServerProcess) -> dict[str, str]:
    """The agent's ``llm=`` with every call through LiteLLM."""
    return {**server.llm_config(), "transport": "litellm"}


def _runners(
    server: ServerProcess,
    plain: PlainTurn,
    sdk: PlainOpenAITurn,
    loop: asyncio.AbstractEventLoop,
    worker: Worker | None,
) -> dict[str, Runner]:
    direct = direct_llm(server.llm_config())
    chat, achat, stream = (make_agent(direct) for _ in range(3))
    interruptible = make_agent(direct, interruptible_calls=True)
    achat_async_tool = make_agent(direct, async_tool=True)
    via = litellm_llm(server)
    chat_l, achat_l, stream_l = (make_agent(via) for _ in range(3))
    anthropic = server.llm_config(anthropic=True)
    chat_a, achat_a, stream_a = (make_agent(anthropic) for _ in range(3))
    plain_a = PlainTurn(anthropic, plain.request)

    def agent_achat(agent: Agent) -> Callable[[], Awaitable[str]]:
        async def turn() -> str:
            return str(await agent.achat(PROMPT))

        return turn

    def agent_chat(agent: Agent) -> Runner:
        return _cleared(agent, lambda: timed(lambda: str(agent.chat(PROMPT))))

    def agent_stream(agent: Agent) -> Runner:
        return _cleared(agent, lambda: timed(lambda: "".join(agent.iter_stream(PROMPT))))

    runners: dict[str, Runner] = {
        "agent.chat": agent_chat(chat),
        INTERRUPTIBLE_CHAT: agent_chat(interruptible),
        "agent.achat": _cleared(achat, lambda: timed_async(loop, agent_achat(achat))),
        ACHAT_ASYNC_TOOL: _cleared(
            achat_async_tool, lambda: timed_async(loop, agent_achat(achat_async_tool))
        ),
        "agent.iter_stream": agent_stream(stream),
        f"agent.chat, {VIA_LITELLM}": agent_chat(chat_l),
        f"agent.achat, {VIA_LITELLM}": _cleared(
            achat_l, lambda: timed_async(loop, agent_achat(achat_l))
        ),
        f"agent.iter_stream, {VIA_LITELLM}": agent_stream(stream_l),
        f"agent.chat, {ANTHROPIC}": agent_chat(chat_a),
        f"agent.achat, {ANTHROPIC}": _cleared(
            achat_a, lambda: timed_async(loop, agent_achat(achat_a))
        ),
        f"agent.iter_stream, {ANTHROPIC}": agent_stream(stream_a),
        "openai.create": lambda: timed(sdk.run),
        "openai.acreate": lambda: timed_async(loop, sdk.arun),
        "openai.create(stream)": lambda: timed(sdk.run_streamed),
        "litellm.completion": lambda: timed(plain.run),
        "litellm.acompletion": lambda: timed_async(loop, plain.arun),
        "litellm.completion(stream)": lambda: timed(plain.run_streamed),
        f"litellm.completion, {ANTHROPIC}": lambda: timed(plain_a.run),
        f"litellm.acompletion, {ANTHROPIC}": lambda: timed_async(loop, plain_a.arun),
        f"litellm.completion(stream), {ANTHROPIC}": lambda: timed(plain_a.run_streamed),
    }
    if worker is not None:
        for entry in ("chat", "achat", "iter_stream"):
            runners[f"praisonai.{entry}"] = partial(worker.turn, entry)
    return runners


VIA_LITELLM = "transport=litellm"
"""The agent with ``LLMConfig(transport="litellm")``: judged against plain LiteLLM."""

ANTHROPIC = "anthropic via LiteLLM"
"""``anthropic/claude-haiku-4-5`` on the server's Messages wire: a non-OpenAI provider,
which LiteLLM translates both ways; the agent judged against plain LiteLLM."""

INTERRUPTIBLE_CHAT = "agent.chat, interruptible_calls=True"
"""An opt-in (a worker thread per call, for instant cancellation): shown, not judged."""

ACHAT_ASYNC_TOOL = "agent.achat, async def tool"
"""``achat`` with the tool written ``async def``: no worker thread for it, as plain
LiteLLM's loop runs its tool inline. Shown, not judged: the judged row keeps the
sync tool, which the agent runs on a worker thread so it cannot block the loop."""

PRAISONAI_MODES = {
    "praisonai.chat": ("openai.create", "server"),
    "praisonai.achat": ("openai.acreate", "server"),
    "praisonai.iter_stream": ("openai.create(stream)", "server(stream)"),
}
"""PraisonAI's native path (its worker's wall and CPU), shown against the plain openai
SDK; praisonlike is judged against it in the by-system table (:mod:`systems`)."""

NOT_JUDGED = {INTERRUPTIBLE_CHAT, ACHAT_ASYNC_TOOL, *PRAISONAI_MODES}


def _target(reference: str) -> float:
    return LITELLM_TARGET if reference.startswith("litellm") else RATIO_TARGET


PAIRS = {
    "agent.chat": ("openai.create", "server"),
    INTERRUPTIBLE_CHAT: ("openai.create", "server"),
    "agent.achat": ("openai.acreate", "server"),
    ACHAT_ASYNC_TOOL: ("openai.acreate", "server"),
    "agent.iter_stream": ("openai.create(stream)", "server(stream)"),
    f"agent.chat, {VIA_LITELLM}": ("litellm.completion", "server"),
    f"agent.achat, {VIA_LITELLM}": ("litellm.acompletion", "server"),
    f"agent.iter_stream, {VIA_LITELLM}": ("litellm.completion(stream)", "server(stream)"),
    "openai.create": (None, "server"),
    "openai.acreate": (None, "server"),
    "openai.create(stream)": (None, "server(stream)"),
    "litellm.completion": (None, "server"),
    "litellm.acompletion": (None, "server"),
    "litellm.completion(stream)": (None, "server(stream)"),
    f"agent.chat, {ANTHROPIC}": (f"litellm.completion, {ANTHROPIC}", "server(anthropic)"),
    f"agent.achat, {ANTHROPIC}": (f"litellm.acompletion, {ANTHROPIC}", "server(anthropic)"),
    f"agent.iter_stream, {ANTHROPIC}": (
        f"litellm.completion(stream), {ANTHROPIC}",
        "server(anthropic, stream)",
    ),
    f"litellm.completion, {ANTHROPIC}": (None, "server(anthropic)"),
    f"litellm.acompletion, {ANTHROPIC}": (None, "server(anthropic)"),
    f"litellm.completion(stream), {ANTHROPIC}": (None, "server(anthropic, stream)"),
}


def _collect(
    server: ServerProcess, plain: PlainTurn, turns: int, rounds: int, worker: Worker | None
) -> tuple[dict[str, list[Sample]], dict[str, list[float]]]:
    loop = asyncio.new_event_loop()
    try:
        sdk = PlainOpenAITurn(server.llm_config(), plain.request)
        runners = _runners(server, plain, sdk, loop, worker)
        first = plain.messages_for(PROMPT, [])
        anthropic = server.llm_config(anthropic=True)
        bodies = {
            "server": (CHAT_PATH, request_bodies(first, plain.tools, stream=False)),
            "server(stream)": (CHAT_PATH, request_bodies(first, plain.tools, stream=True)),
            "server(anthropic)": (
                MESSAGES_PATH,
                recorded_bodies(anthropic, plain.request, stream=False),
            ),
            "server(anthropic, stream)": (
                MESSAGES_PATH,
                recorded_bodies(anthropic, plain.request, stream=True),
            ),
        }
        samples: dict[str, list[Sample]] = {name: [] for name in runners}
        bare: dict[str, list[float]] = {name: [] for name in bodies}
        for run in runners.values():
            for _ in range(10):
                run()
        per_round = max(1, turns // rounds)
        names = list(runners)
        for _ in range(rounds):
            for turn in range(per_round):
                start = turn % len(names)
                for name in names[start:] + names[:start]:
                    samples[name].append(runners[name]())
            for name, (path, pair) in bodies.items():
                bare[name].extend(server_round_trip(server.port, pair, per_round, path=path))
    finally:
        close_loop(loop)
    return samples, bare


def measure_repeated(
    server: ServerProcess, plain: PlainTurn, turns: int, rounds: int, worker: Worker | None
) -> tuple[bool, dict[str, dict[str, Figure]]]:
    """Print the per-mode and by-system tables; (targets met, figures for the plot)."""
    samples, bare = _collect(server, plain, turns, rounds, worker)
    wall = {name: [s[0] for s in values] for name, values in samples.items()}
    cpu = {name: [s[1] for s in values] for name, values in samples.items()}
    own = {name: median(values) for name, values in bare.items()}
    pairs = PAIRS | (PRAISONAI_MODES if worker is not None else {})
    pair_of = {name: pair[1] for name, pair in pairs.items()}
    net = {
        name: (median(wall[name]) - own[pair_of[name]], p90(wall[name]) - own[pair_of[name]])
        for name in pairs
    }
    rows = [[f"{name} only", ms(median(v)), ms(p90(v))] + [""] * 7 for name, v in bare.items()]
    ok = True
    for name, (reference, _) in pairs.items():
        row = [name, ms(median(wall[name])), ms(p90(wall[name])), ms(net[name][0])]
        row += [ms(net[name][1]), ms(median(cpu[name])), ms(p90(cpu[name]))]
        if reference is None:
            rows.append(row + ["", "", ""])
            continue
        base = own[pair_of[name]]
        target = _target(reference)
        wall_ratio = net[name][0] / net[reference][0]
        cpu_ratio = median_ratio(cpu[name], cpu[reference])
        judged = name not in NOT_JUDGED
        if judged:
            ok = ok and wall_ratio <= target and cpu_ratio <= target
        wall_low, wall_high = bootstrap_interval(
            partial(_net_ratio, base), wall[name], wall[reference]
        )
        cpu_low, cpu_high = bootstrap_interval(median_ratio, cpu[name], cpu[reference])
        row.append(
            f"{wall_ratio:.3f} [{wall_low:.2f}-{wall_high:.2f}] "
            f"{judgement(wall_ratio <= target, judged)}"
        )
        row.append(ratio(net[name][1], net[reference][1]))
        row.append(
            f"{cpu_ratio:.3f} [{cpu_low:.2f}-{cpu_high:.2f}] "
            f"{judgement(cpu_ratio <= target, judged)}"
        )
        rows.append(row)
    count = len(wall["agent.chat"])
    print(
        table(
            f"One-tool turn (2 requests), {count} turns per mode, ms per turn. net = wall minus "
            "the server's own time (median of a bare http.client doing the same requests); "
            "cpu = this process's CPU time (PraisonAI: its worker's); ratios are agent / the "
            f"plain openai SDK (agent rows on the direct transport, target {RATIO_TARGET:.2f}) "
            f"or agent / plain LiteLLM (transport=litellm, target {LITELLM_TARGET:.2f}), "
            "with a 90% bootstrap interval",
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
    beats_praisonai, figures = by_system(wall, cpu, own)
    return ok and beats_praisonai, figures


def _net_ratio(server_time: float, agent: Sequence[float], plain: Sequence[float]) -> float:
    return (median(agent) - server_time) / (median(plain) - server_time)


def profile_turns(server: ServerProcess, turns: int) -> None:
    agent = make_agent(direct_llm(server.llm_config()))
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
    parser.add_argument(
        "--turns-only", action="store_true", help="only the per-turn table (no history growth)"
    )
    parser.add_argument(
        "--plot",
        nargs="?",
        type=Path,
        const=PLOT_PATH,
        metavar="PNG",
        help=f"save the by-system plot (default {PLOT_PATH.relative_to(PLOT_PATH.parents[2])})",
    )
    parser.add_argument("--no-praisonai", action="store_true", help="leave PraisonAI out")
    args = parser.parse_args()
    print(f"overhead: {machine()}")
    praisonai = "left out (--no-praisonai)" if args.no_praisonai else find()
    print(praisonai.label if isinstance(praisonai, PraisonAI) else absent(praisonai))
    with ServerProcess() as server:
        plain = PlainTurn(server.llm_config(), capture_request(make_agent, PROMPT))
        bare = median_round_trip(
            server.port, request_bodies(plain.messages_for(PROMPT, []), plain.tools, stream=False)
        )
        print(f"server's own time for the two requests (bare http.client): {ms(bare)} ms")
        load = machine_load()
        with ExitStack() as stack:
            worker = None
            if isinstance(praisonai, PraisonAI):
                worker = stack.enter_context(Worker(praisonai, server.url))
            ok, figures = measure_repeated(server, plain, args.turns, args.rounds, worker)
        load = f"load average {load} at the start, {machine_load()} at the end"
        print(f"per-turn run: {load}")
        if args.plot is not None:
            count = args.turns // args.rounds * args.rounds
            plot_overhead(figures, args.plot, f"{count} interleaved turns per mode; {load}")
        if args.turns_only:
            print(f"\noverhead targets (per turn only): {verdict(ok)}")
            return
        states = grown_states(server, args.history_turns)
        ok = measure_growth(server, plain, states, args.growth_samples) and ok
        measure_growth(server, plain, states, args.growth_samples, interruptible_calls=True)
        ok = measure_own_growth(server, states, args.growth_samples) and ok
        if args.profile:
            profile_turns(server, args.turns)
    print(f"\noverhead targets: {verdict(ok)}")


if __name__ == "__main__":
    main()
