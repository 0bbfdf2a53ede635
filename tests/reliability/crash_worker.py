"""The processes the crash-safety test kills (run as a script).

    crash_worker.py     read JSON commands on stdin, one per line:
        {"fork": {...run_turns arguments...}}   fork a child running turns; answer its pid
        {"reap": PID}                           wait for that child to end; answer "reaped"

Forking from one process that has already imported LiteLLM makes a fresh
agent process cost milliseconds instead of seconds. The forking process starts
no threads, so the children are ordinary single-threaded copies.

A child runs agent turns on one SQLite session until it is killed, numbering
its questions after the turns already stored, and appends a marker line to
``markers`` for every event of a turn (``turn <n>``, then each event type,
then ``saved``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def run_turns(api_base: str, store: str, session: str, markers: str) -> None:
    from praisonlike import Agent, ContextConfig, MemoryConfig
    from praisonlike.memory import SQLiteStore

    with open(markers, "a", buffering=1) as log:

        def mark(event: Any) -> None:
            log.write(f"{event.type}\n")

        with SQLiteStore(store) as existing:
            turn = len(existing.load_turns(session, include_steps=False))
        agent = Agent(
            instructions="You add numbers.",
            llm={"model": "openai/test-model", "api_base": api_base, "api_key": "sk-test"},
            tools=[add],
            session_id=session,
            memory=MemoryConfig(store=store, long_term=False, history_rounds=3),
            context=ContextConfig(max_context_tokens=8192),
            on_event=mark,
        )
        while True:
            log.write(f"turn {turn}\n")
            prompt = f"question {turn}"
            if turn % 2:
                "".join(agent.iter_stream(prompt))
            else:
                agent.chat(prompt)
            log.write("saved\n")
            turn += 1


def serve_forks() -> None:
    from praisonlike.models.litellm_backend import load_litellm

    load_litellm()
    import praisonlike.agent.agent  # noqa: F401  (the children use it)

    for line in sys.stdin:
        command: dict[str, Any] = json.loads(line)
        if "fork" in command:
            pid = os.fork()
            if pid == 0:
                try:
                    run_turns(**command["fork"])
                finally:
                    os._exit(1)
            print(pid, flush=True)
        elif "reap" in command:
            os.waitpid(int(command["reap"]), 0)
            print("reaped", flush=True)


if __name__ == "__main__":
    serve_forks()
