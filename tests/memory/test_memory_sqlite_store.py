"""SQLiteStore specifics: paths and URLs, laziness, processes, crashes."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from praisonlike.errors import ConfigurationError
from praisonlike.memory import SQLiteStore, default_store_path, open_store
from praisonlike.memory.location import resolve_sqlite_target

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")


def test_constructing_a_store_does_no_io(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "sessions.db"
    store = SQLiteStore(path)
    assert not path.parent.exists()
    assert store.get_conversation("x") is None
    assert path.is_file()
    store.close()


def test_default_path_uses_praisonlike_home(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PRAISONLIKE_HOME", str(tmp_path / "home"))
    assert default_store_path() == tmp_path / "home" / "sessions.db"
    store = SQLiteStore()
    assert store.path == tmp_path / "home" / "sessions.db"
    store.ensure_conversation("c")
    store.close()
    assert (tmp_path / "home" / "sessions.db").is_file()


def test_default_path_falls_back_to_user_home(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PRAISONLIKE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_store_path() == tmp_path / ".praisonlike" / "sessions.db"


def test_sqlite_urls_and_paths(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_sqlite_target("sqlite:///rel/s.db") == str(tmp_path / "rel" / "s.db")
    assert resolve_sqlite_target("sqlite:////abs/s.db") == "/abs/s.db"
    assert resolve_sqlite_target("rel.db") == str(tmp_path / "rel.db")
    assert resolve_sqlite_target(Path("p.db")) == str(tmp_path / "p.db")
    for memory in (":memory:", "sqlite://", "sqlite:///:memory:"):
        assert resolve_sqlite_target(memory) == ":memory:"
        assert SQLiteStore(memory).path is None


@pytest.mark.parametrize("spec", ["postgresql://u@h/db", "mysql://x", "sqlite://host/x.db", ""])
def test_unusable_specs_are_refused(spec: str) -> None:
    with pytest.raises(ConfigurationError):
        SQLiteStore(spec)


def test_url_store_writes_the_named_file(monkeypatch, tmp_path: Path, make_turn) -> None:
    monkeypatch.chdir(tmp_path)
    with SQLiteStore("sqlite:///data/s.db") as store:
        store.save_turn(make_turn("c"))
    with SQLiteStore(tmp_path / "data" / "s.db") as store:
        assert len(store.load_turns("c")) == 1


def test_open_store(tmp_path: Path) -> None:
    existing = SQLiteStore(":memory:")
    assert open_store(existing) is existing
    opened = open_store(tmp_path / "x.db")
    assert isinstance(opened, SQLiteStore)
    assert opened.path == tmp_path / "x.db"
    assert isinstance(open_store("sqlite://"), SQLiteStore)
    with pytest.raises(ConfigurationError):
        open_store(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        open_store("mysql://db")
    from praisonlike.memory.postgres_store import PostgresStore

    assert isinstance(open_store("postgresql://db"), PostgresStore)  # lazy: no connection yet


def test_not_a_database_is_a_configuration_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not a sqlite database" * 100)
    store = SQLiteStore(path)
    with pytest.raises(ConfigurationError, match="junk.db"):
        store.list_conversations()


def test_file_is_in_wal_mode_with_foreign_keys(tmp_path: Path, make_turn) -> None:
    path = tmp_path / "s.db"
    with SQLiteStore(path) as store:
        store.save_turn(make_turn("c"))
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            conn.execute("PRAGMA foreign_keys = ON")
            with pytest.raises(sqlite3.IntegrityError):
                conn.execute(
                    "INSERT INTO messages (id, conversation_id, query, answer, status, "
                    "created_at) VALUES ('m', 'no-such-conversation', 'q', 'a', 'normal', 0)"
                )
        finally:
            conn.close()


def test_data_survives_close_and_reopen(tmp_path: Path, make_turn) -> None:
    path = tmp_path / "s.db"
    turn = make_turn("c", n_steps=4)
    store = SQLiteStore(path)
    store.save_turn(turn)
    store.set_summary("c", "sum")
    store.close()
    assert store.load_turns("c") == [turn]
    store.close()
    with SQLiteStore(path) as other:
        assert other.load_turns("c") == [turn]
        assert other.get_summary("c") == "sum"


def test_load_turns_without_steps(tmp_path: Path, make_turn) -> None:
    with SQLiteStore(tmp_path / "s.db") as store:
        turn = make_turn("c", n_steps=3)
        store.save_turn(turn)
        (light,) = store.load_turns("c", include_steps=False)
        assert light.steps == []
        assert light == turn.model_copy(update={"steps": []})


def test_a_failing_save_leaves_nothing(tmp_path: Path, make_turn) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    earlier = make_turn("c")
    store.save_turn(earlier)
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TRIGGER fail_third_step BEFORE INSERT ON message_steps WHEN NEW.position = 2 "
        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
    )
    conn.commit()
    doomed = make_turn("c", n_steps=3)
    with pytest.raises(sqlite3.DatabaseError, match="injected failure"):
        store.save_turn(doomed)
    assert store.load_turns("c") == [earlier]
    assert store.get_steps(doomed.id) == []
    conn.execute("DROP TRIGGER fail_third_step")
    conn.commit()
    conn.close()
    store.save_turn(doomed)
    assert store.load_turns("c") == [earlier, doomed]
    store.close()


def _check_complete(path: Path) -> int:
    """Assert the file is sound and every stored turn has all its steps; return the count."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        rows = conn.execute(
            "SELECT m.answer, COUNT(s.position), COALESCE(MAX(s.position), -1) "
            "FROM messages m LEFT JOIN message_steps s ON s.message_id = m.id GROUP BY m.id"
        ).fetchall()
    finally:
        conn.close()
    for answer, count, highest in rows:
        expected = int(answer.removeprefix("steps="))
        assert (count, highest) == (expected, expected - 1), answer
    return len(rows)


def test_processes_writing_one_new_file_lose_nothing(tmp_path: Path, start_worker) -> None:
    path = tmp_path / "shared.db"
    workers = [start_worker("turns", str(path), f"proc-{n}", "50", str(n)) for n in range(4)]
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        assert out.strip() == "done"
    assert _check_complete(path) == 200
    with SQLiteStore(path) as store:
        for n in range(4):
            turns = store.load_turns(f"proc-{n}")
            assert len(turns) == 50
            assert all(turn.answer == f"steps={len(turn.steps)}" for turn in turns)


def _kill_writers_repeatedly(path: Path, start_worker, wait_for_line, rounds: int) -> None:
    rng = random.Random(1234)
    for attempt in range(rounds):
        worker = start_worker("turns-forever", str(path), "crash", str(attempt))
        wait_for_line(worker, "ready")
        time.sleep(rng.uniform(0.0, 0.15))
        os.kill(worker.pid, signal.SIGKILL)
        worker.communicate(timeout=30)
        assert worker.returncode == -signal.SIGKILL
        assert _check_complete(path) >= attempt + 1


@posix_only
def test_killed_writers_never_leave_half_a_turn(tmp_path, start_worker, wait_for_line) -> None:
    path = tmp_path / "crash.db"
    _kill_writers_repeatedly(path, start_worker, wait_for_line, rounds=10)
    with SQLiteStore(path) as store:
        turns = store.load_turns("crash")
        assert turns
        assert all(turn.answer == f"steps={len(turn.steps)}" for turn in turns)


@posix_only
@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("PRAISONLIKE_SLOW_TESTS") != "1", reason="set PRAISONLIKE_SLOW_TESTS=1"
)
def test_killed_writers_stress(tmp_path, start_worker, wait_for_line) -> None:
    _kill_writers_repeatedly(tmp_path / "crash.db", start_worker, wait_for_line, rounds=100)
