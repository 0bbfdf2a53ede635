"""The session database schema, as an ordered list of migrations.

The schema version lives in ``PRAGMA user_version`` (0 for a new file).
:func:`migrate` brings a database to :data:`LATEST_VERSION` in one write
transaction, so a database is either fully upgraded or left as it was, and two
processes opening the same new file do not both apply the same migration.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from praisonlike.errors import StateVersionError


@dataclass(frozen=True)
class Migration:
    """The statements that take the schema from ``version - 1`` to ``version``."""

    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        version=1,
        description="conversations, messages and message steps",
        statements=(
            """
            CREATE TABLE conversations (
                id TEXT PRIMARY KEY,
                agent_name TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                summary TEXT
            )
            """,
            """
            CREATE TABLE messages (
                id TEXT PRIMARY KEY,
                conversation_id TEXT NOT NULL
                    REFERENCES conversations(id) ON DELETE CASCADE,
                query TEXT NOT NULL,
                answer TEXT NOT NULL,
                status TEXT NOT NULL,
                prompt_tokens INTEGER NOT NULL DEFAULT 0,
                completion_tokens INTEGER NOT NULL DEFAULT 0,
                cost REAL,
                latency REAL,
                model TEXT,
                created_at REAL NOT NULL
            )
            """,
            """
            CREATE TABLE message_steps (
                message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                event_type TEXT NOT NULL,
                thought TEXT,
                observation TEXT,
                tool TEXT,
                tool_input TEXT,
                messages TEXT,
                prompt_tokens INTEGER NOT NULL DEFAULT 0,
                completion_tokens INTEGER NOT NULL DEFAULT 0,
                cost REAL,
                latency REAL,
                PRIMARY KEY (message_id, position)
            )
            """,
            "CREATE INDEX idx_messages_conversation ON messages(conversation_id, created_at)",
            "CREATE INDEX idx_conversations_updated ON conversations(updated_at)",
        ),
    ),
    Migration(
        version=2,
        description="conversation owner",
        statements=(
            "ALTER TABLE conversations ADD COLUMN owner TEXT",
            "CREATE INDEX idx_conversations_owner ON conversations(owner)",
        ),
    ),
)

LATEST_VERSION: int = MIGRATIONS[-1].version


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the database (0 for a database never migrated)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def _check_supported(version: int, where: str) -> None:
    if version > LATEST_VERSION:
        raise StateVersionError(
            f"session database {where} has schema version {version}, newer than the "
            f"{LATEST_VERSION} this release of praisonlike supports; upgrade praisonlike"
        )


def migrate(conn: sqlite3.Connection, *, where: str = "") -> int:
    """Apply every pending migration in one transaction; return the resulting version.

    ``conn`` must be in autocommit mode (``isolation_level=None``) with no open
    transaction. A database at the latest version is not write-locked.

    Raises:
        StateVersionError: the database was written by a newer release.
    """
    current = schema_version(conn)
    _check_supported(current, where)
    if current == LATEST_VERSION:
        return current
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = schema_version(conn)
        _check_supported(current, where)
        for migration in MIGRATIONS:
            if migration.version <= current:
                continue
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {migration.version:d}")
            current = migration.version
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return current
