"""PraisonAI's side of the benchmarks, run by the interpreter of ``benchmarks/.venv-praisonai``.

Never imported by praisonlike's side: :mod:`praisonai` starts this script in
that virtual environment (``make bench-venv`` creates it with
``praisonaiagents==1.7.17``) against the benchmarks' server, with
``OPENAI_API_BASE`` and ``OPENAI_API_KEY`` set. The agent is PraisonAI's
``Agent(instructions=..., llm="bench-model", tools=[add])``: a model name
without a provider prefix and no ``base_url=`` argument, which PraisonAI
sends with the openai SDK directly (its native path; LiteLLM is not even
installed in that environment).

Modes:

- ``serve``: reads one JSON command a line on stdin, answers one JSON line
  on stdout. ``{"op": "turn", "mode": "chat"|"achat"|"iter_stream"}`` times
  one one-tool turn as :mod:`timing` does for praisonlike (wall and CPU
  after the process went quiet, history cleared outside the timed part) and
  answers ``{"wall": s, "cpu": s}``; ``{"op": "concurrent", "turns": n}``
  runs ``n`` ``achat`` turns in flight on one event loop, each on its own
  agent, and answers ``{"elapsed": s, "outcomes": {kind: count}}``.
- ``first``: a fresh process to its first answered turn (import included);
  prints ``{"setup": s, "first": s, "cpu": s}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections import Counter
from typing import Any, TextIO

from served import ANSWER, add
from timing import Sample, timed, timed_async

PROMPT = "What is 1 + 2? Use the add tool."
INSTRUCTIONS = "You are a calculator. Use the add tool for sums."
MODEL = "bench-model"


def _agent() -> Any:
    from praisonaiagents import Agent

    return Agent(instructions=INSTRUCTIONS, llm=MODEL, tools=[add])


def _forget(agent: Any) -> None:
    """Clear the agent's history, and its tool-loop detector's (``clear_history`` keeps it).

    Every benchmark turn makes the same ``add(1, 2)`` call; left alone, PraisonAI's
    detector warns from the 10th identical call on and at the 20th blocks the turn
    and asks for approval on the terminal, which would stall the worker.
    """
    agent.clear_history()
    if getattr(agent, "_loop_detector_history", None):
        agent._loop_detector_history = []


class Turns:
    """One PraisonAI agent per entry point, each turn timed and its history cleared."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.agents = {mode: _agent() for mode in ("chat", "achat", "iter_stream")}

    def turn(self, mode: str) -> Sample:
        agent = self.agents[mode]
        try:
            if mode == "chat":
                return timed(lambda: str(agent.chat(PROMPT)))
            if mode == "achat":

                async def achat() -> str:
                    return str(await agent.achat(PROMPT))

                return timed_async(self.loop, achat)
            if mode == "iter_stream":
                return timed(lambda: "".join(agent.iter_stream(PROMPT)))
            raise ValueError(f"unknown mode {mode!r}")
        finally:
            _forget(agent)

    def concurrent(self, turns: int) -> dict[str, Any]:
        agents = [_agent() for _ in range(turns)]

        async def run_all() -> tuple[float, list[Any]]:
            started = time.perf_counter()
            answers = await asyncio.gather(
                *(agent.achat(PROMPT) for agent in agents), return_exceptions=True
            )
            return time.perf_counter() - started, answers

        elapsed, answers = self.loop.run_until_complete(run_all())
        outcomes: Counter[str] = Counter()
        for answer in answers:
            if isinstance(answer, BaseException):
                outcomes[f"{type(answer).__name__}: {str(answer)[:80]}"] += 1
            else:
                outcomes["ok" if answer == ANSWER else f"wrong answer {answer!r:.40}"] += 1
        return {"elapsed": elapsed, "outcomes": dict(outcomes)}


def serve(out: TextIO) -> None:
    from importlib.metadata import version

    turns = Turns()
    out.write(json.dumps({"ready": True, "version": version("praisonaiagents")}) + "\n")
    out.flush()
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if command["op"] == "turn":
                wall, cpu = turns.turn(command["mode"])
                reply: dict[str, Any] = {"wall": wall, "cpu": cpu}
            elif command["op"] == "concurrent":
                reply = turns.concurrent(int(command["turns"]))
            else:
                reply = {"error": f"unknown op {command['op']!r}"}
        except Exception as exc:  # reported to the parent, which stops the run
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def first() -> dict[str, float]:
    started = time.perf_counter()
    from praisonaiagents import Agent

    agent = Agent(instructions=INSTRUCTIONS, llm=MODEL, tools=[add])
    built = time.perf_counter()
    answer = agent.chat(PROMPT)
    answered = time.perf_counter()
    if answer != ANSWER:
        raise RuntimeError(f"unexpected answer {answer!r}")
    return {"setup": built - started, "first": answered - built, "cpu": time.process_time()}


def main() -> None:
    # The protocol gets its own copy of stdout; whatever PraisonAI prints goes to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    if sys.argv[1:] == ["serve"]:
        serve(out)
    elif sys.argv[1:] == ["first"]:
        out.write(json.dumps(first()) + "\n")
    else:
        raise SystemExit("usage: praisonai_worker.py serve|first")
    out.flush()


if __name__ == "__main__":
    main()
