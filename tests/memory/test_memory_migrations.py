"""Schema versions: new files, upgrades from old versions, refusal of newer ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from praisonlike.errors import StateVersionError
from praisonlike.memory import SQLiteStore
from praisonlike.memory import migrations as migrations_module
from praisonlike.memory.migrations import LATEST_VERSION, MIGRATIONS, Migration, migrate


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def _columns(path: Path, table: str) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


def _database_at(path: Path, version: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for migration in MIGRATIONS[:version]:
            for statement in migration.statements:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {version}")
    finally:
        conn.close()


def test_migrations_are_numbered_one_to_latest() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert LATEST_VERSION >= 2


def test_new_file_gets_the_latest_schema(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStore(path).ensure_conversation("c")
    assert _version(path) == LATEST_VERSION
    assert "owner" in _columns(path, "conversations")
    assert "tool_input" in _columns(path, "message_steps")


def test_empty_version_zero_file_is_initialised(tmp_path: Path, make_turn) -> None:
    path = tmp_path / "s.db"
    path.touch()
    assert _version(path) == 0
    with SQLiteStore(path) as store:
        store.save_turn(make_turn("c"))
    assert _version(path) == LATEST_VERSION


def test_version_one_database_is_upgraded_keeping_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _database_at(path, 1)
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO conversations (id, agent_name, created_at, updated_at, summary) "
        "VALUES ('old', 'agent', 1.0, 2.0, 'old summary')"
    )
    conn.execute(
        "INSERT INTO messages (id, conversation_id, query, answer, status, created_at) "
        "VALUES ('m1', 'old', 'hi', 'hello', 'normal', 1.5)"
    )
    conn.execute(
        "INSERT INTO message_steps (message_id, position, event_type) "
        "VALUES ('m1', 0, 'llm_response')"
    )
    conn.commit()
    conn.close()
    assert "owner" not in _columns(path, "conversations")

    with SQLiteStore(path) as store:
        conversation = store.get_conversation("old")
        assert conversation is not None
        assert (conversation.agent_name, conversation.summary, conversation.owner) == (
            "agent",
            "old summary",
            None,
        )
        (turn,) = store.load_turns("old")
        assert (turn.query, turn.answer, len(turn.steps)) == ("hi", "hello", 1)
        assert store.ensure_conversation("old", owner="alice").owner == "alice"
    assert _version(path) == LATEST_VERSION


def test_newer_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    _database_at(path, LATEST_VERSION)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    store = SQLiteStore(path)
    with pytest.raises(StateVersionError, match=f"version {LATEST_VERSION + 1}"):
        store.list_conversations()
    with pytest.raises(StateVersionError):
        store.get_conversation("x")
    assert _version(path) == LATEST_VERSION + 1


def test_a_failing_migration_rolls_back_entirely(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.db"
    _database_at(path, 1)
    broken = Migration(
        version=LATEST_VERSION + 1,
        description="broken",
        statements=("CREATE TABLE extra (a TEXT)", "THIS IS NOT SQL"),
    )
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (*MIGRATIONS, broken))
    monkeypatch.setattr(migrations_module, "LATEST_VERSION", broken.version)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError):
            migrate(conn)
        assert not conn.in_transaction
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert "extra" not in tables
    assert _version(path) == 1
    assert "owner" not in _columns(path, "conversations")


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    try:
        assert migrate(conn) == LATEST_VERSION
        assert migrate(conn) == LATEST_VERSION
    finally:
        conn.close()
