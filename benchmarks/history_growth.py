"""Does a turn cost the agent more late in a long conversation than early on?

Two measures, each comparing turns near turn 1 with turns near turn N of one
conversation (two agents hold those histories, restored with ``load_state``
every ``RESTORE_EVERY`` turns; the turn right after a restore, whose messages
are all new objects to the agent, is not counted):

- :func:`measure_growth`: the end-to-end overhead, the agent's turn minus
  plain LiteLLM sending the same two requests to the server, paired turn by
  turn. It includes whatever the agent's calls do to LiteLLM's and the
  server's timing, and scatters by about a millisecond on turns of 15-45 ms.
- :func:`measure_own_growth`: the agent's own CPU time per turn, with
  LiteLLM's ``completion`` answered from a recording of one real turn (no
  HTTP, no LiteLLM code), so nothing but the agent's code is timed.

Both print a bootstrap 90% interval next to the ratio, so a reader can see
how much of a miss or a pass the samples can tell apart, and the growth in
milliseconds (last minus first) with its own interval.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from agent_turns import PROMPT, chat_text, judgement, make_agent
from plain import PlainTurn
from report import bootstrap_interval, median, median_ratio, ms, table
from served import ServerProcess
from timing import Sample, check_answer, settle
from timing import timed as timed_turn

from praisonlike import Agent

GROWTH_TARGET = 1.2
RESTORE_EVERY = 10

States = dict[int, dict[str, Any]]


def grown_states(server: ServerProcess, turns: int) -> States:
    """``save_state`` of an empty agent (key 1) and of one after ``turns - 1`` turns."""
    grower = make_agent(server.llm_config())
    for index in range(turns - 1):
        grower.chat(f"Question {index + 1}: {PROMPT}")
    return {1: make_agent(server.llm_config()).save_state(), turns: grower.save_state()}


def _schedule(samples: int) -> Iterator[tuple[int, bool]]:
    """(turn index, whether the agents are restored before it) for ``samples`` counted turns."""
    for sample in range(samples + samples // (RESTORE_EVERY - 1) + 1):
        yield sample, sample % RESTORE_EVERY == 0


def _median_difference(first: Sequence[float], last: Sequence[float]) -> float:
    return median(last) - median(first)


def _difference_cell(first: Sequence[float], last: Sequence[float]) -> str:
    """How much the median grew, in ms, with its 90% interval (shown beside the judged ratio)."""
    low, high = bootstrap_interval(_median_difference, first, last)
    return f"{ms(_median_difference(first, last))} [{ms(low)}-{ms(high)}]"


def _growth_cell(first: Sequence[float], last: Sequence[float], judged: bool) -> tuple[str, bool]:
    growth = median_ratio(last, first)
    low, high = bootstrap_interval(median_ratio, last, first)
    passed = growth <= GROWTH_TARGET
    return f"{growth:.2f} [{low:.2f}-{high:.2f}] {judgement(passed, judged)}", passed


def measure_growth(
    server: ServerProcess,
    plain: PlainTurn,
    states: States,
    samples: int,
    *,
    interruptible_calls: bool = False,
) -> bool:
    """The end-to-end overhead near turn 1 and near the last turn, judged against each other.

    Each agent turn is paired with plain LiteLLM sending the same two
    requests, alternately before and after it, so drift hits both lengths
    alike. Plain LiteLLM keeps its own history the way the agent does (a copy
    of the state at each restore, grown by each turn's messages), so neither
    side replays messages laid out more favourably in memory. Only the
    default settings are judged.
    """
    last = max(states)
    agents = {
        n: make_agent(server.llm_config(), interruptible_calls=interruptible_calls) for n in states
    }
    runs: dict[int, list[tuple[Sample, Sample]]] = {n: [] for n in states}
    histories: dict[int, list[dict[str, Any]]] = {}
    for sample, restored in _schedule(samples):
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
                replay = timed_turn(partial(plain.run, messages))
                turn = timed_turn(partial(chat_text, agent, prompt))
            else:
                turn = timed_turn(partial(chat_text, agent, prompt))
                replay = timed_turn(partial(plain.run, messages))
            if not restored and len(runs[n]) < samples:
                runs[n].append((turn, replay))
    judged = not interruptible_calls
    rows, ok = [], True
    for clock_name, part in (("wall", 0), ("cpu", 1)):
        overhead = {n: [t[part] - r[part] for t, r in runs[n]] for n in runs}
        cell, passed = _growth_cell(overhead[1], overhead[last], judged)
        ok = ok and passed
        rows.append(
            [
                f"{clock_name}: agent turn minus plain LiteLLM",
                ms(median(overhead[1])),
                ms(median(overhead[last])),
                cell,
                _difference_cell(overhead[1], overhead[last]),
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
            f"turn 1 and near turn {last} ({len(states[last]['history'])} messages; restored "
            f"every {RESTORE_EVERY} turns), {samples} of each, interleaved; medians, ms per "
            "turn; [90% bootstrap interval]",
            [
                "measure",
                "turn 1",
                f"turn {last}",
                "last / first",
                "last - first, ms",
                f"agent vs plain, near turn 1 / near turn {last}",
            ],
            rows,
        )
    )
    return ok or not judged


def _after_tool(messages: Sequence[dict[str, Any]]) -> bool:
    return bool(messages) and messages[-1].get("role") == "tool"


@contextmanager
def replayed_completion(server: ServerProcess) -> Iterator[None]:
    """While active, ``litellm.completion`` returns the responses of one real turn.

    The turn is run against ``server`` first; afterwards a request whose last
    message is a tool result gets that turn's answer, any other its tool
    call. Nothing is sent and none of LiteLLM's code runs.
    """
    from praisonlike.models.litellm_backend import load_litellm

    litellm = load_litellm()
    real = litellm.completion
    recorded: dict[bool, Any] = {}

    def record(*args: Any, **kwargs: Any) -> Any:
        response = real(*args, **kwargs)
        recorded[_after_tool(kwargs["messages"])] = response
        return response

    litellm.completion = record
    try:
        check_answer(chat_text(make_agent(server.llm_config()), PROMPT))
        litellm.completion = lambda *args, **kwargs: recorded[_after_tool(kwargs["messages"])]
        yield
    finally:
        litellm.completion = real


def _own_cpu(agent: Agent, prompt: str) -> float:
    settle()
    start = time.process_time()
    answer = chat_text(agent, prompt)
    spent = time.process_time() - start
    check_answer(answer)
    return spent


def measure_own_growth(server: ServerProcess, states: States, samples: int) -> bool:
    """The agent's own CPU per turn near turn 1 and near the last turn (LiteLLM replayed)."""
    last = max(states)
    agents = {n: make_agent(server.llm_config()) for n in states}
    own: dict[int, list[float]] = {n: [] for n in states}
    with replayed_completion(server):
        for sample, restored in _schedule(samples):
            for n in sorted(states, reverse=sample % 2 == 1):
                if restored:
                    agents[n].load_state(states[n])
                spent = _own_cpu(agents[n], f"Question {n}.{sample}: {PROMPT}")
                if not restored and len(own[n]) < samples:
                    own[n].append(spent)
    cell, passed = _growth_cell(own[1], own[last], True)
    print(
        table(
            f"Long history, the agent's own code: CPU per one-tool turn with litellm.completion "
            f"answered from a recording, near turn 1 and near turn {last}, {samples} of each, "
            "interleaved, each after the process settled; medians, ms; [90% bootstrap interval]",
            ["measure", "turn 1", f"turn {last}", "last / first", "last - first, ms"],
            [
                [
                    "agent's own CPU",
                    ms(median(own[1])),
                    ms(median(own[last])),
                    cell,
                    _difference_cell(own[1], own[last]),
                ]
            ],
        )
    )
    return passed
