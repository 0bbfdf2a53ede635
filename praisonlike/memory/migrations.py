"""The SQLite session schema, as an ordered list of migrations.

The schema version lives in ``PRAGMA user_version`` (0 for a new file).
:func:`migrate` brings a database to :data:`LATEST_VERSION` in one write
transaction, so a database is either fully upgraded or left as it was, and two
processes opening the same new file do not both apply the same migration.
:class:`Migration` and the runner are shared with PostgreSQL
(:mod:`praisonlike.memory.schema`).
"""

from __future__ import annotations

import sqlite3

from praisonlike.memory.schema import (
    ColumnTypes,
    Migration,
    apply_pending,
    check_supported,
    message_steps_table,
    messages_table,
)

__all__ = [
    "LATEST_VERSION",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Migration",
    "migrate",
    "schema_version",
]

_TYPES = ColumnTypes(count="INTEGER", real="REAL")

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
            messages_table(_TYPES),
            message_steps_table(_TYPES),
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
SCHEMA_VERSION: int = LATEST_VERSION


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the database (0 for a database never migrated)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, *, where: str = "") -> int:
    """Apply every pending migration in one transaction; return the resulting version.

    ``conn`` must be in autocommit mode (``isolation_level=None``) with no open
    transaction. A database at the latest version is not write-locked.

    Raises:
        StateVersionError: the database was written by a newer release.
    """
    current = schema_version(conn)
    check_supported(current, LATEST_VERSION, where)
    if current == LATEST_VERSION:
        return current
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = schema_version(conn)
        current = apply_pending(MIGRATIONS, found, conn.execute, where=where)
        if current != found:
            conn.execute(f"PRAGMA user_version = {current:d}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return current
