"""A :class:`~praisonlike.memory.store.SessionStore` on one SQLite file.

Uses the standard library's ``sqlite3`` in WAL mode. One connection per store,
guarded by a lock, serves every thread; other processes use their own
connections and wait up to ``busy_timeout`` seconds for a lock rather than fail.
Each write is one transaction, so a process killed mid-write leaves either the
whole turn or none of it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from praisonlike.errors import ConfigurationError
from praisonlike.memory.location import MEMORY, resolve_sqlite_target
from praisonlike.memory.migrations import migrate
from praisonlike.memory.records import (
    ConversationRecord,
    MessageStatus,
    StepRecord,
    TurnRecord,
)
from praisonlike.memory.rows import (
    conversation_from_row,
    dump_json,
    step_from_row,
    turn_from_row,
)

_CONVERSATION_COLUMNS = "id, agent_name, owner, created_at, updated_at, summary"
_MESSAGE_COLUMNS = (
    "id, conversation_id, query, answer, status, prompt_tokens, completion_tokens, "
    "cost, latency, model, created_at"
)
_STEP_COLUMNS = (
    "position, event_type, thought, observation, tool, tool_input, messages, "
    "prompt_tokens, completion_tokens, cost, latency"
)


class SQLiteStore:
    """Session store on a SQLite file (or in memory); safe to share between threads.

    Constructing a store does no I/O: the file, its parent folders and the
    schema are created on first use, and an older schema is migrated then.
    After :meth:`close` the next call opens the database again.

    Raises (on first use):
        ConfigurationError: the path cannot be opened as a SQLite database.
        StateVersionError: the database was written by a newer praisonlike.
    """

    def __init__(self, path: str | Path | None = None, *, busy_timeout: float = 30.0) -> None:
        self._target = resolve_sqlite_target(path)
        self._busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    @property
    def path(self) -> Path | None:
        """The database file, or ``None`` for an in-memory store."""
        return None if self._target == MEMORY else Path(self._target)

    def __repr__(self) -> str:
        return f"SQLiteStore({self._target!r})"

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _open(self) -> sqlite3.Connection:
        try:
            if self._target != MEMORY:
                Path(self._target).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self._target,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as exc:
            raise ConfigurationError(f"cannot open session database {self._target}: {exc}") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000):d}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            migrate(conn, where=self._target)
        except sqlite3.Error as exc:
            conn.close()
            raise ConfigurationError(f"cannot open session database {self._target}: {exc}") from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._target != MEMORY and self._pid != os.getpid():
            self._conn = None
        if self._conn is None:
            self._conn = self._open()
            self._pid = os.getpid()
        return self._conn

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def ensure_conversation(
        self,
        conversation_id: str,
        *,
        agent_name: str | None = None,
        owner: str | None = None,
    ) -> ConversationRecord:
        """Return the conversation, creating it when missing.

        An existing conversation keeps its agent name and owner; only a missing
        one is filled in from the arguments.
        """
        now = time.time()
        with self._transaction(write=True) as conn:
            conn.execute(
                "INSERT INTO conversations (id, agent_name, owner, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "agent_name = COALESCE(conversations.agent_name, excluded.agent_name), "
                "owner = COALESCE(conversations.owner, excluded.owner)",
                (conversation_id, agent_name, owner, now, now),
            )
            row = conn.execute(
                f"SELECT {_CONVERSATION_COLUMNS} FROM conversations WHERE id = ?",
                (conversation_id,),
            ).fetchone()
        return conversation_from_row(row)

    def save_turn(self, turn: TurnRecord) -> None:
        """Store the turn and all its steps in one transaction.

        Creates the conversation when missing and sets its ``updated_at``.
        Saving a turn whose id is already stored replaces that turn and its steps.
        """
        now = time.time()
        step_rows = [
            (
                turn.id,
                step.position,
                step.event_type,
                step.thought,
                step.observation,
                step.tool,
                dump_json(step.tool_input),
                dump_json(step.messages),
                step.prompt_tokens,
                step.completion_tokens,
                step.cost,
                step.latency,
            )
            for step in turn.steps
        ]
        with self._transaction(write=True) as conn:
            self._touch(conn, turn.conversation_id, now)
            conn.execute(
                f"INSERT INTO messages ({_MESSAGE_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "conversation_id = excluded.conversation_id, query = excluded.query, "
                "answer = excluded.answer, status = excluded.status, "
                "prompt_tokens = excluded.prompt_tokens, "
                "completion_tokens = excluded.completion_tokens, cost = excluded.cost, "
                "latency = excluded.latency, model = excluded.model, "
                "created_at = excluded.created_at",
                (
                    turn.id,
                    turn.conversation_id,
                    turn.query,
                    turn.answer,
                    turn.status.value,
                    turn.prompt_tokens,
                    turn.completion_tokens,
                    turn.cost,
                    turn.latency,
                    turn.model,
                    turn.created_at,
                ),
            )
            conn.execute("DELETE FROM message_steps WHERE message_id = ?", (turn.id,))
            conn.executemany(
                f"INSERT INTO message_steps (message_id, {_STEP_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                step_rows,
            )

    @staticmethod
    def _touch(conn: sqlite3.Connection, conversation_id: str, now: float) -> None:
        conn.execute(
            "INSERT INTO conversations (id, created_at, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET "
            "updated_at = MAX(conversations.updated_at, excluded.updated_at)",
            (conversation_id, now, now),
        )

    def load_turns(
        self,
        conversation_id: str,
        *,
        limit: int | None = None,
        statuses: Collection[MessageStatus] | None = None,
        include_steps: bool = True,
    ) -> list[TurnRecord]:
        """The conversation's turns, oldest first, each with its steps.

        ``statuses`` keeps only turns with one of those statuses (an empty
        collection keeps none); ``limit`` then keeps the last ``limit`` turns.
        With ``include_steps=False`` every turn's ``steps`` is empty, which
        saves reading the steps' messages. An unknown conversation has no turns.
        """
        if limit is not None and limit < 0:
            raise ConfigurationError(f"limit must be >= 0, got {limit}")
        where = "conversation_id = ?"
        params: list[Any] = [conversation_id]
        if statuses is not None:
            values = sorted({MessageStatus(status).value for status in statuses})
            if not values:
                return []
            where += f" AND status IN ({', '.join('?' for _ in values)})"
            params.extend(values)
        selection = f"FROM messages WHERE {where} ORDER BY created_at DESC, rowid DESC"
        if limit is not None:
            selection += " LIMIT ?"
            params.append(limit)
        with self._transaction(write=False) as conn:
            rows = conn.execute(f"SELECT {_MESSAGE_COLUMNS} {selection}", params).fetchall()
            steps: dict[str, list[StepRecord]] = {}
            if include_steps and rows:
                for step_row in conn.execute(
                    f"SELECT message_id, {_STEP_COLUMNS} FROM message_steps "
                    f"WHERE message_id IN (SELECT id {selection}) ORDER BY message_id, position",
                    params,
                ):
                    steps.setdefault(step_row[0], []).append(step_from_row(step_row[1:]))
        return [turn_from_row(row, steps.get(row[0], [])) for row in reversed(rows)]

    def get_steps(self, turn_id: str) -> list[StepRecord]:
        """The turn's steps by position; ``[]`` for an unknown turn."""
        with self._lock:
            rows = (
                self._connection()
                .execute(
                    f"SELECT {_STEP_COLUMNS} FROM message_steps WHERE message_id = ? "
                    "ORDER BY position",
                    (turn_id,),
                )
                .fetchall()
            )
        return [step_from_row(row) for row in rows]

    def get_summary(self, conversation_id: str) -> str | None:
        """The conversation's summary; ``None`` when it has none or does not exist."""
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT summary FROM conversations WHERE id = ?", (conversation_id,))
                .fetchone()
            )
        return None if row is None else row[0]

    def set_summary(self, conversation_id: str, summary: str) -> None:
        """Replace the conversation's summary, creating the conversation when missing."""
        now = time.time()
        with self._transaction(write=True) as conn:
            self._touch(conn, conversation_id, now)
            conn.execute(
                "UPDATE conversations SET summary = ? WHERE id = ?", (summary, conversation_id)
            )

    def list_conversations(self, *, limit: int = 100) -> list[ConversationRecord]:
        """Up to ``limit`` conversations, the most recently updated first."""
        if limit < 0:
            raise ConfigurationError(f"limit must be >= 0, got {limit}")
        with self._lock:
            rows = (
                self._connection()
                .execute(
                    f"SELECT {_CONVERSATION_COLUMNS} FROM conversations "
                    "ORDER BY updated_at DESC, rowid DESC LIMIT ?",
                    (limit,),
                )
                .fetchall()
            )
        return [conversation_from_row(row) for row in rows]

    def get_conversation(self, conversation_id: str) -> ConversationRecord | None:
        """The conversation, or ``None`` when there is no such conversation."""
        with self._lock:
            row = (
                self._connection()
                .execute(
                    f"SELECT {_CONVERSATION_COLUMNS} FROM conversations WHERE id = ?",
                    (conversation_id,),
                )
                .fetchone()
            )
        return None if row is None else conversation_from_row(row)

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation with its turns and steps; a no-op when missing."""
        with self._transaction(write=True) as conn:
            conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def close(self) -> None:
        """Close the connection (an in-memory store loses its data)."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and (self._target == MEMORY or self._pid == os.getpid()):
                conn.close()
