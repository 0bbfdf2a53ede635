"""The PostgreSQL session schema, as an ordered list of migrations.

The tables mirror the SQLite schema of :mod:`praisonlike.memory.migrations`
(``conversations``, ``messages``, ``message_steps``, the latter two built from
the same SQL in :mod:`praisonlike.memory.schema`), with PostgreSQL types, an
identity column ``seq`` that keeps save order, and ``session_controls`` for
cross-process control signals. They live in one PostgreSQL schema (the
store's ``schema=``, default ``public``); its version is the single row of
``praisonlike_schema``. :func:`migrate` runs in one transaction under an
advisory lock, so concurrent processes opening a new database apply each
migration exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike.memory.schema import (
    ColumnTypes,
    Migration,
    apply_pending,
    message_steps_table,
    messages_table,
)

if TYPE_CHECKING:
    import psycopg

_TYPES = ColumnTypes(
    count="BIGINT",
    real="DOUBLE PRECISION",
    save_order="seq BIGINT GENERATED ALWAYS AS IDENTITY,\n                ",
)

POSTGRES_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        version=1,
        description="conversations, messages, message steps and session controls",
        statements=(
            """
            CREATE TABLE conversations (
                id TEXT PRIMARY KEY,
                seq BIGINT GENERATED ALWAYS AS IDENTITY,
                agent_name TEXT,
                owner TEXT,
                created_at DOUBLE PRECISION NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL,
                summary TEXT
            )
            """,
            messages_table(_TYPES),
            message_steps_table(_TYPES),
            """
            CREATE TABLE session_controls (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                conversation_id TEXT NOT NULL
                    REFERENCES conversations(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                requester TEXT,
                reason TEXT NOT NULL DEFAULT '',
                created_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX idx_messages_conversation ON messages(conversation_id, created_at, seq)",
            "CREATE INDEX idx_conversations_updated ON conversations(updated_at, seq)",
            "CREATE INDEX idx_conversations_owner ON conversations(owner)",
            "CREATE INDEX idx_session_controls ON session_controls(conversation_id, id)",
        ),
    ),
)

POSTGRES_LATEST_VERSION: int = POSTGRES_MIGRATIONS[-1].version


def migrate(conn: psycopg.Connection, schema: str, *, where: str = "") -> int:
    """Create ``schema`` if needed and apply every pending migration; return the version.

    ``conn`` must be in autocommit mode with no open transaction; its
    ``search_path`` is set to ``schema``. Everything happens in one
    transaction: a failed migration leaves the database as it was.

    Raises:
        StateVersionError: the database was written by a newer release.
    """
    from psycopg import sql

    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"praisonlike:{schema}",))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        conn.execute("CREATE TABLE IF NOT EXISTS praisonlike_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM praisonlike_schema").fetchone()
        found = int(row[0]) if row is not None and row[0] is not None else 0
        current = apply_pending(POSTGRES_MIGRATIONS, found, conn.execute, where=where)
        if current != found:
            conn.execute("DELETE FROM praisonlike_schema")
            conn.execute("INSERT INTO praisonlike_schema (version) VALUES (%s)", (current,))
    conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
    return current
