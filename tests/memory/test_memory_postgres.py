"""PostgresStore specifics: processes sharing sessions, stop signals, schema, reconnects.

The SessionStore contract itself runs against PostgreSQL through the
``postgres`` entry of STORE_FACTORIES (test_memory_store_contract.py).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from postgres_support import drop_schema, fresh_store, postgres_url

from praisonlike.errors import ConfigurationError, StateVersionError
from praisonlike.memory import SessionStore
from praisonlike.memory.postgres_migrations import POSTGRES_LATEST_VERSION
from praisonlike.memory.postgres_store import (
    ControlKind,
    PostgresStore,
    StopRequestRefused,
)

WORKER = Path(__file__).with_name("postgres_worker.py")
REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "praisonlike_pg_tests"


@pytest.fixture
def pg() -> Iterator[PostgresStore]:
    store = fresh_store(SCHEMA)
    yield store
    store.close()


def run_worker(*args: str) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(WORKER), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    outcome: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return outcome


def sql(query: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(postgres_url(), autocommit=True) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else []


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- without a server ---------------------------------------------------------------------


@pytest.mark.parametrize("url", ["sqlite:///x.db", "mysql://h/db", "", "/var/db"])
def test_only_postgres_urls_are_accepted(url: str) -> None:
    with pytest.raises(ConfigurationError):
        PostgresStore(url)


@pytest.mark.parametrize("schema", ["", "1abc", "has space", "drop;table", "x" * 64])
def test_schema_names_must_be_plain_identifiers(schema: str) -> None:
    with pytest.raises(ConfigurationError):
        PostgresStore("postgresql://u@127.0.0.1/db", schema=schema)


def test_construction_does_no_io_and_hides_the_password() -> None:
    pytest.importorskip("psycopg", reason="needs psycopg (praisonlike[postgres])")
    url = f"postgresql://alice:s3cret@127.0.0.1:{closed_port()}/db"
    store = PostgresStore(url, connect_timeout=5)
    assert isinstance(store, SessionStore)
    assert "s3cret" not in repr(store) and "alice:***@" in store.url
    with pytest.raises(ConfigurationError, match="cannot connect") as caught:
        store.get_conversation("c")
    assert "s3cret" not in str(caught.value)


# -- processes sharing sessions -----------------------------------------------------------


def test_two_processes_hand_a_session_over(pg: PostgresStore, make_turn: Any) -> None:
    pg.ensure_conversation("shared", agent_name="helper", owner="alice")
    first = make_turn("shared", query="weather today?")
    pg.save_turn(first)

    outcome = run_worker("handoff", postgres_url(), SCHEMA, "shared")

    assert outcome["loaded"] == [first.id]
    turns = pg.load_turns("shared")
    assert [turn.id for turn in turns] == [first.id, outcome["saved"]]
    assert turns[0] == first
    assert turns[1].answer == "answered after reading 1 turn(s)"
    assert turns[1].steps[0].observation == "ok"
    assert pg.get_conversation("shared").owner == "alice"  # type: ignore[union-attr]

    again = run_worker("handoff", postgres_url(), SCHEMA, "shared")
    assert again["loaded"] == [first.id, outcome["saved"]]
    assert len(pg.load_turns("shared")) == 3


def test_a_stop_from_another_process_is_checked_against_the_owner(pg: PostgresStore) -> None:
    pg.ensure_conversation("s1", owner="alice")

    refused = run_worker("request-stop", postgres_url(), SCHEMA, "s1", "mallory")
    assert "only its owner" in refused["refused"]
    assert pg.poll_control("s1") is None

    accepted = run_worker("request-stop", postgres_url(), SCHEMA, "s1", "alice")
    signal = pg.poll_control("s1")
    assert signal is not None
    assert signal.id == accepted["accepted"]
    assert (signal.session_id, signal.kind) == ("s1", ControlKind.STOP)
    assert (signal.requester, signal.reason) == ("alice", "from the worker")
    assert pg.poll_control("s1") is None


def test_stop_requests_in_process(pg: PostgresStore) -> None:
    with pytest.raises(StopRequestRefused, match="no such session") as unknown:
        pg.request_stop("missing", "alice")
    assert isinstance(unknown.value, PermissionError)
    assert (unknown.value.session_id, unknown.value.requester) == ("missing", "alice")

    pg.ensure_conversation("owned", owner="alice")
    with pytest.raises(StopRequestRefused):
        pg.request_stop("owned", None)
    pg.ensure_conversation("open")
    anyone = pg.request_stop("open", None, reason="nobody owns it")
    assert anyone.requester is None

    older = pg.request_stop("owned", "alice", reason="first")
    newer = pg.request_stop("owned", "alice", reason="second")
    assert older.id < newer.id
    assert pg.poll_control("open") == anyone
    assert [pg.poll_control("owned"), pg.poll_control("owned")] == [older, newer]
    assert pg.poll_control("owned") is None


def test_each_signal_is_taken_by_one_poller_only(pg: PostgresStore) -> None:
    pg.ensure_conversation("s", owner="o")
    sent = {pg.request_stop("s", "o", reason=str(i)).id for i in range(20)}
    pollers = [PostgresStore(postgres_url(), schema=SCHEMA) for _ in range(4)]
    taken: list[int] = []
    lock = threading.Lock()

    def drain(store: PostgresStore) -> None:
        while (signal := store.poll_control("s")) is not None:
            with lock:
                taken.append(signal.id)

    threads = [threading.Thread(target=drain, args=(store,)) for store in pollers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for store in pollers:
        store.close()
    assert sorted(taken) == sorted(sent)


def test_deleting_a_session_drops_its_pending_signals(pg: PostgresStore) -> None:
    pg.ensure_conversation("s", owner="o")
    pg.request_stop("s", "o")
    pg.delete_conversation("s")
    pg.ensure_conversation("s", owner="o")
    assert pg.poll_control("s") is None


# -- schema and storage -------------------------------------------------------------------


def test_the_schema_version_is_recorded_and_a_newer_one_is_refused(pg: PostgresStore) -> None:
    pg.ensure_conversation("c")
    pg.close()
    assert sql(f"SELECT version FROM {SCHEMA}.praisonlike_schema") == [(POSTGRES_LATEST_VERSION,)]

    sql(f"UPDATE {SCHEMA}.praisonlike_schema SET version = %s", POSTGRES_LATEST_VERSION + 1)
    with pytest.raises(StateVersionError, match="newer"):
        PostgresStore(postgres_url(), schema=SCHEMA).get_conversation("c")


def test_concurrent_first_opens_migrate_once() -> None:
    schema = "praisonlike_pg_race"
    drop_schema(postgres_url(), schema)
    stores = [PostgresStore(postgres_url(), schema=schema) for _ in range(6)]
    errors: list[BaseException] = []

    def touch(store: PostgresStore, index: int) -> None:
        try:
            store.ensure_conversation(f"c{index}")
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=touch, args=(s, i)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(stores[0].list_conversations()) == 6
    assert sql(f"SELECT count(*) FROM {schema}.praisonlike_schema") == [(1,)]
    for store in stores:
        store.close()
    drop_schema(postgres_url(), schema)


def test_schemas_keep_stores_apart(pg: PostgresStore, make_turn: Any) -> None:
    other = fresh_store("praisonlike_pg_other")
    pg.save_turn(make_turn("c"))
    assert other.load_turns("c") == []
    assert other.list_conversations() == []
    other.close()
    drop_schema(postgres_url(), "praisonlike_pg_other")


def test_text_is_stored_verbatim_unless_it_holds_nul(pg: PostgresStore, make_turn: Any) -> None:
    marker_like = '\x01praisonlike-json:"looks escaped"'
    turn = make_turn("c", query="plain ünïcode", answer="with \x00 inside")
    tricky = make_turn("c", query=marker_like, answer="")
    pg.save_turn(turn)
    pg.save_turn(tricky)
    pg.set_summary("c", "sum\x00mary")

    assert pg.load_turns("c") == [turn, tricky]
    assert pg.get_summary("c") == "sum\x00mary"
    stored = dict(sql(f"SELECT id, query FROM {SCHEMA}.messages"))
    assert stored[turn.id] == "plain ünïcode"
    assert stored[tricky.id] != marker_like


def test_the_next_call_after_a_broken_connection_reconnects(
    pg: PostgresStore, make_turn: Any
) -> None:
    import psycopg

    pg.save_turn(make_turn("c"))
    sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'praisonlike' AND pid <> pg_backend_pid()"
    )
    with pytest.raises(psycopg.OperationalError):
        pg.load_turns("c")
    assert len(pg.load_turns("c")) == 1
