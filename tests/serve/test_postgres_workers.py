"""Two server processes sharing one PostgreSQL: a stop sent to one stops the run on the other."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import Reader, Running, stream_run, turns

from praisonlike.testing import Call, Delay, LocalLLMServer, Text, ToolCalls

PG_URL = os.environ.get("PRAISONLIKE_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(
    not PG_URL,
    reason="PRAISONLIKE_TEST_POSTGRES_URL is not set (start one with scripts/start_postgres.sh)",
)
SCRIPT = Path(__file__).with_name("pg_server.py")


@pytest.fixture
def schema() -> Iterator[str]:
    import psycopg

    name = f"serve_{uuid.uuid4().hex[:12]}"
    yield name
    assert PG_URL is not None
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


def start_worker(server: LocalLLMServer, schema: str) -> tuple[subprocess.Popen[str], Running]:
    assert PG_URL is not None
    env = {**os.environ, "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0"}
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), server.url, PG_URL, schema],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("PORT "):
        process.kill()
        raise AssertionError(f"the worker did not start: {line!r}")
    return process, Running(url=f"http://127.0.0.1:{int(line.split()[1])}", app=None)


@pytest.fixture
def workers(server: LocalLLMServer, schema: str) -> Iterator[tuple[Running, Running]]:
    first, a = start_worker(server, schema)
    second, b = start_worker(server, schema)
    try:
        yield a, b
    finally:
        for process in (first, second):
            process.terminate()
            process.wait(30)


def test_a_stop_sent_to_one_worker_stops_the_run_on_the_other(
    workers: tuple[Running, Running], server: LocalLLMServer
) -> None:
    a, b = workers
    server.add(Delay(60, Text("too late")))
    reader = Reader(a, {"input": "Take long.", "session_id": "shared"}, token="tok-alice")
    run_id = reader.first("run_started").data["run_id"]

    with b.client("tok-bob") as bob:
        refused = bob.post(f"/v1/runs/{run_id}/stop", json={"session_id": "shared"})
    with b.client("tok-alice") as alice:
        unnamed = alice.post(f"/v1/runs/{run_id}/stop", json={})
        stopped = alice.post(
            f"/v1/runs/{run_id}/stop", json={"session_id": "shared", "reason": "from b"}
        )
    assert (refused.status_code, refused.json()["error"]["type"]) == (403, "forbidden")
    assert unnamed.status_code == 404
    assert stopped.status_code == 202, stopped.text
    assert stopped.json() == {"run_id": run_id, "session_id": "shared", "status": "stopping"}

    messages = reader.finish()
    assert messages[-1].event == "end"
    assert messages[-1].data["termination_reason"] == "cancelled"
    stored = turns(b, "shared", "tok-alice")
    assert [(t["id"], t["status"], t["answer"]) for t in stored] == [(run_id, "cancelled", "")]

    with b.client("tok-alice") as alice:
        late = alice.post(f"/v1/runs/{run_id}/stop", json={"session_id": "shared"})
    assert (late.status_code, late.json()["error"]["type"]) == (409, "conflict")


def test_a_steer_sent_to_one_worker_reaches_the_run_on_the_other(
    workers: tuple[Running, Running], server: LocalLLMServer
) -> None:
    a, b = workers
    server.add(ToolCalls([Call("slow_lookup", {"topic": "tides"})]), Text("Marées."))
    reader = Reader(a, {"input": "Tides?", "session_id": "steered"}, token="tok-alice")
    run_id = reader.first("tool_call").data["run_id"]
    with b.client("tok-alice") as alice:
        steered = alice.post(
            f"/v1/runs/{run_id}/steer", json={"text": "Answer in French.", "session_id": "steered"}
        )
    assert steered.status_code == 202, steered.text
    messages = reader.finish()
    assert messages[-1].data["termination_reason"] == "completed"
    steering = [m.data["text"] for m in messages if m.event == "steering"]
    assert steering == ["Answer in French."]
    assert {"role": "user", "content": "Answer in French."} in server.requests[1].messages


def test_a_stop_left_over_from_a_finished_run_does_not_stop_the_next(
    workers: tuple[Running, Running], server: LocalLLMServer, schema: str
) -> None:
    from praisonlike.memory.postgres_store import PostgresStore

    a, _ = workers
    server.add(Text("first answer"), Text("second answer"))
    with a.client("tok-alice") as alice:
        first = stream_run(alice, {"input": "One.", "session_id": "late"})
        assert first[-1].data["termination_reason"] == "completed"
        assert PG_URL is not None
        with PostgresStore(PG_URL, schema=schema) as store:
            store.request_stop("late", "alice", reason=f"run {first[0].data['run_id']}: too late")
            store.request_steer("late", "alice", "Be brief.")
        second = stream_run(alice, {"input": "Two.", "session_id": "late"})
    assert second[-1].data["termination_reason"] == "completed"
    assert [m.data["text"] for m in second if m.event == "steering"] == ["Be brief."]
    assert {"role": "user", "content": "Be brief."} in server.requests[1].messages
