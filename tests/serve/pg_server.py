"""A server process for the two-worker test: ``python pg_server.py LLM_URL PG_URL SCHEMA``.

Serves an agent on the scripted LLM server, with its sessions in PostgreSQL,
on 127.0.0.1 and a free port, and prints ``PORT <n>`` once it listens.
"""

from __future__ import annotations

import sys
import threading
import time

import uvicorn

from praisonlike import Agent
from praisonlike.memory.postgres_store import PostgresStore

TOKENS = {"tok-alice": "alice", "tok-bob": "bob"}


def slow_lookup(topic: str) -> str:
    """A lookup that takes a while."""
    time.sleep(1.5)
    return f"notes on {topic}"


def main() -> None:
    llm_url, pg_url, schema = sys.argv[1:4]
    agent = Agent(
        instructions="You answer.",
        llm={"model": "openai/test-model", "api_base": llm_url, "api_key": "sk-test"},
        tools=[slow_lookup],
    )
    app = agent.to_asgi(
        tokens=TOKENS, store=PostgresStore(pg_url, schema=schema), control_poll_interval=0.1
    )
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))

    def announce() -> None:
        while not server.started:
            time.sleep(0.01)
        print(f"PORT {server.servers[0].sockets[0].getsockname()[1]}", flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.run()


if __name__ == "__main__":
    main()
