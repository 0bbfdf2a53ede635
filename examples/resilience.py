"""Resilience: retries, fallback models, time limits, cancellation and typed errors.

Transient errors (rate limits, 5xx, timeouts) are retried with backoff; a model
that is missing or refuses the key falls back to the next model; what cannot be
recovered is raised as a typed error, with ``agent.last_result`` saying why the
turn ended. The faults are scripted on a LocalLLMServer.
"""

from __future__ import annotations

import threading
from typing import Any

from example_llm import SCRIPTED_MODEL, announce_scripted

from praisonlike import Agent, CancelToken, ExecutionConfig
from praisonlike.errors import AuthenticationError, LLMTimeoutError, RunCancelled, RunTimeout
from praisonlike.events import FallbackEvent, RetryEvent
from praisonlike.testing import Delay, Fault, LocalLLMServer, Text

FAST_RETRIES = ExecutionConfig(max_retries=2, retry_base=0.01)


def show(event: Any) -> None:
    if isinstance(event, RetryEvent):
        print(f"  retry {event.attempt} after {event.error_kind} (waited {event.wait:.2f}s)")
    elif isinstance(event, FallbackEvent):
        print(f"  fallback {event.from_model} -> {event.to_model} ({event.reason})")


def ending(agent: Agent) -> str:
    result = agent.last_result
    return result.termination_reason.value if result else "?"


def main() -> None:
    announce_scripted("the faults are scripted: a real model cannot fail on demand")
    with LocalLLMServer() as server:
        llm = server.llm_config(SCRIPTED_MODEL)

        server.add(Fault.rate_limit(retry_after=0), Fault.server_error(), Text("Third time lucky."))
        agent = Agent(instructions="Be brief.", llm=llm, execution=FAST_RETRIES, on_event=show)
        print(f"retried: {agent.chat('Hello?')}")

        server.add(Fault.model_not_found(model=SCRIPTED_MODEL), Text("Answered by the fallback."))
        agent = Agent(
            instructions="Be brief.", llm=llm, fallback_models=["openai/gpt-4o"], on_event=show
        )
        print(f"fell back: {agent.chat('Hello?')}")
        result = agent.last_result
        assert result is not None
        print(f"  answered by {result.model}; fallbacks: {result.fallbacks}")

        server.add(Delay(5, Text("too late")))
        agent = Agent(
            instructions="Be brief.",
            llm=llm,
            execution=ExecutionConfig(timeout=0.3, max_retries=0),
        )
        try:
            agent.chat("Hello?")
        except LLMTimeoutError as exc:
            print(f"request timeout: {type(exc).__name__} ({ending(agent)})")

        server.add(Delay(5, Text("too late")))
        agent = Agent(
            instructions="Be brief.", llm=llm, execution=ExecutionConfig(max_execution_time=0.5)
        )
        try:
            agent.chat("Hello?")
        except RunTimeout as exc:
            print(f"turn deadline: {type(exc).__name__} ({ending(agent)}): {exc}")

        server.add(Text("A very long story. " * 50, chunk_delay=0.02))
        agent = Agent(instructions="Tell stories.", llm=llm)
        token = CancelToken()
        received: list[str] = []
        try:
            for piece in agent.iter_stream("Tell me a story.", cancel_token=token):
                received.append(piece)
                if len(received) == 10:
                    threading.Thread(target=token.cancel, args=("the user pressed stop",)).start()
        except RunCancelled as exc:
            print(f"cancelled after {len(received)} pieces: {exc} ({ending(agent)})")
        print(f"  history unchanged by failed turns: {agent.chat_history == []}")

        server.add(Fault.authentication())
        agent = Agent(instructions="Be brief.", llm=llm)
        try:
            agent.chat("Hello?")
        except AuthenticationError as exc:
            print(f"not retried: {exc.kind}, status {exc.status_code}, retried {exc.retried}")


if __name__ == "__main__":
    main()
