"""Agents sharing a session through PostgreSQL: hand-off, remote stop and steer, owners."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from postgres_support import fresh_store, postgres_url

from praisonlike import Agent, MemoryConfig
from praisonlike.errors import RunCancelled
from praisonlike.memory.postgres_store import PostgresStore, StopRequestRefused
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

SCHEMA = "praisonlike_agents"


@pytest.fixture
def url() -> str:
    fresh_store(SCHEMA).close()
    return postgres_url()


def make_agent(llm: dict[str, Any], url: str, owner: str, **kwargs: Any) -> Agent:
    store = PostgresStore(url, schema=SCHEMA)
    return Agent(
        instructions="x",
        llm=llm,
        session_id="shared",
        **kwargs,
        memory=MemoryConfig(store=store, long_term=False, owner=owner),
    )


HANDOFF = textwrap.dedent("""
    import sys
    from praisonlike import Agent, MemoryConfig
    from praisonlike.memory.postgres_store import PostgresStore
    api_base, url, schema, prompt = sys.argv[1:5]
    agent = Agent(instructions="x", llm={"model": "openai/test-model", "api_base": api_base,
                  "api_key": "k"}, session_id="shared",
                  memory=MemoryConfig(store=PostgresStore(url, schema=schema), long_term=False,
                                      owner="alice"))
    print(agent.chat(prompt))
""")


def test_turns_hand_off_between_worker_processes(
    server: LocalLLMServer, url: str, tmp_path: Path
) -> None:
    server.default = lambda request: Text(f"{len(request.messages)} messages seen")
    script = tmp_path / "worker.py"
    script.write_text(HANDOFF)
    env = {**os.environ, "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0"}
    for prompt in ("on worker one", "on worker two"):
        done = subprocess.run(
            [sys.executable, str(script), server.url, url, SCHEMA, prompt],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
    contents = [m["content"] for m in server.requests[-1].messages[1:]]
    assert contents == ["on worker one", "2 messages seen", "on worker two"]


def test_remote_cancel_and_steer_reach_the_running_turn(
    server: LocalLLMServer, llm: dict[str, Any], url: str
) -> None:
    in_tool = threading.Event()
    proceed = threading.Event()

    def wait_tool() -> str:
        """Wait."""
        in_tool.set()
        proceed.wait(30)
        return "waited"

    server.extend(
        [
            ToolCalls([Call("wait_tool", {})]),
            Text("steered answer"),
            ToolCalls([Call("wait_tool", {})]),
            Text("never"),
        ]
    )
    worker = make_agent(llm, url, "alice", tools=[wait_tool])
    controller = make_agent(llm, url, "alice")
    outsider = make_agent(llm, url, "mallory")

    def steer_then_release() -> None:
        in_tool.wait(30)
        controller.steer("Use Celsius.")
        proceed.set()

    helper = threading.Thread(target=steer_then_release)
    helper.start()
    assert worker.chat("weather?") == "steered answer"
    helper.join()
    assert server.requests[1].messages[-1] == {"role": "user", "content": "Use Celsius."}

    in_tool.clear()
    proceed.clear()

    def stop_then_release() -> None:
        in_tool.wait(30)
        with pytest.raises(StopRequestRefused):
            outsider.cancel()
        controller.cancel("user pressed stop")
        proceed.set()

    helper = threading.Thread(target=stop_then_release)
    helper.start()
    before = worker.chat_history
    with pytest.raises(RunCancelled, match="alice"):
        worker.chat("again")
    helper.join()
    assert worker.chat_history == before
    assert server.request_count == 3
