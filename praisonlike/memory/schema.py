"""What the SQLite and PostgreSQL schemas share: migrations, their runner, two tables.

A :class:`Migration` takes a schema from ``version - 1`` to ``version``; each
database keeps its own ordered list (:mod:`praisonlike.memory.migrations`,
:mod:`praisonlike.memory.postgres_migrations`), its own version record and its
own lock, and applies the pending ones with :func:`apply_pending`. The
``messages`` and ``message_steps`` tables are the same SQL in both but for the
column types, so both lists build them from :func:`messages_table` and
:func:`message_steps_table`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from praisonlike.errors import StateVersionError


@dataclass(frozen=True)
class Migration:
    """The statements that take the schema from ``version - 1`` to ``version``."""

    version: int
    description: str
    statements: tuple[str, ...]


@dataclass(frozen=True)
class ColumnTypes:
    """A database's column types: ``count`` for token counts, ``real`` for times and costs.

    ``save_order`` is a column definition (with its trailing comma) that
    numbers rows in insertion order, or ``""`` where the database has one
    built in (SQLite's ``rowid``).
    """

    count: str
    real: str
    save_order: str = ""


def messages_table(types: ColumnTypes) -> str:
    """``CREATE TABLE messages``: one row per turn."""
    return f"""
            CREATE TABLE messages (
                id TEXT PRIMARY KEY,
                {types.save_order}conversation_id TEXT NOT NULL
                    REFERENCES conversations(id) ON DELETE CASCADE,
                query TEXT NOT NULL,
                answer TEXT NOT NULL,
                status TEXT NOT NULL,
                prompt_tokens {types.count} NOT NULL DEFAULT 0,
                completion_tokens {types.count} NOT NULL DEFAULT 0,
                cost {types.real},
                latency {types.real},
                model TEXT,
                created_at {types.real} NOT NULL
            )
            """


def message_steps_table(types: ColumnTypes) -> str:
    """``CREATE TABLE message_steps``: one row per step of a turn; JSON is stored as text."""
    return f"""
            CREATE TABLE message_steps (
                message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                event_type TEXT NOT NULL,
                thought TEXT,
                observation TEXT,
                tool TEXT,
                tool_input TEXT,
                messages TEXT,
                prompt_tokens {types.count} NOT NULL DEFAULT 0,
                completion_tokens {types.count} NOT NULL DEFAULT 0,
                cost {types.real},
                latency {types.real},
                PRIMARY KEY (message_id, position)
            )
            """


def check_supported(version: int, latest: int, where: str) -> None:
    """Raise :class:`StateVersionError` when ``version`` is newer than ``latest``."""
    if version > latest:
        raise StateVersionError(
            f"session database {where} has schema version {version}, newer than the "
            f"{latest} this release of praisonlike supports; upgrade praisonlike"
        )


def apply_pending(
    migrations: Sequence[Migration],
    found: int,
    execute: Callable[[str], object],
    *,
    where: str = "",
) -> int:
    """Run, through ``execute``, every migration after version ``found``; return the new version.

    Call it inside the transaction that holds the migration lock, then record
    the version it returns when that differs from ``found``.

    Raises:
        StateVersionError: ``found`` is newer than the last migration.
    """
    check_supported(found, migrations[-1].version, where)
    current = found
    for migration in migrations:
        if migration.version > current:
            for statement in migration.statements:
                execute(statement)
            current = migration.version
    return current
