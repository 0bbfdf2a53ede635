"""One :class:`~praisonlike.memory.store.SessionStore` on a SQL database, over a dialect.

:class:`SQLStore` holds every statement and rule of the session protocol once;
a :class:`~praisonlike.memory.dialect.Dialect` supplies what differs between
databases. :class:`~praisonlike.memory.sqlite_store.SQLiteStore` and
:class:`~praisonlike.memory.postgres_store.PostgresStore` are this store with
the SQLite and PostgreSQL dialects.

One connection per store, guarded by a lock, serves every thread. Each call is
one transaction: a write stores all of it or nothing, a read sees one
consistent snapshot. The connection is opened (and the schema created or
migrated) on first use, opened again after :meth:`SQLStore.close` or after it
broke, and a forked child opens its own; a connection inherited across
``fork()`` is never closed in the child, since that could end the parent's
session with the database.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Generic, TypeVar

from praisonlike.errors import ConfigurationError
from praisonlike.memory import rows
from praisonlike.memory.dialect import ConnT, Dialect, Transaction
from praisonlike.memory.records import ConversationRecord, MessageStatus, StepRecord, TurnRecord

# Connections inherited across fork(): kept referenced so the child never closes them.
_inherited_connections: list[Any] = []

_StoreT = TypeVar("_StoreT", bound="SQLStore[Any]")


class SQLStore(Generic[ConnT]):
    """The session store on the database of ``dialect``; safe to share between threads."""

    def __init__(self, dialect: Dialect[ConnT]) -> None:
        self._dialect = dialect
        self._lock = threading.RLock()
        self._conn: ConnT | None = None
        self._pid = 0

    def __enter__(self: _StoreT) -> _StoreT:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- connection --------------------------------------------------------------------

    def _connection(self) -> ConnT:
        conn = self._conn
        if conn is not None and self._pid != os.getpid() and not self._dialect.survives_fork:
            _inherited_connections.append(conn)
            conn = self._conn = None
        if conn is not None and not self._dialect.usable(conn):
            self._dialect.close(conn)
            conn = self._conn = None
        if conn is None:
            conn = self._conn = self._dialect.connect()
            self._pid = os.getpid()
        return conn

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Transaction]:
        with self._lock, self._dialect.transaction(self._connection(), write=write) as tx:
            yield tx

    def close(self) -> None:
        """Close the connection; the next call opens a new one (an in-memory database is lost)."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and (self._pid == os.getpid() or self._dialect.survives_fork):
                self._dialect.close(conn)

    # -- the SessionStore protocol -----------------------------------------------------

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
        text = self._dialect.encode_text
        with self._transaction(write=True) as tx:
            tx.execute(
                "INSERT INTO conversations (id, agent_name, owner, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                "agent_name = COALESCE(conversations.agent_name, excluded.agent_name), "
                "owner = COALESCE(conversations.owner, excluded.owner)",
                (conversation_id, text(agent_name), text(owner), now, now),
            )
            row = tx.fetch_one(
                f"SELECT {rows.CONVERSATION_COLUMNS} FROM conversations WHERE id = ?",
                (conversation_id,),
            )
        assert row is not None
        return rows.conversation_from_row(row, self._dialect.decode_text)

    def save_turn(self, turn: TurnRecord) -> None:
        """Store the turn and all its steps in one transaction.

        Creates the conversation when missing and sets its ``updated_at``.
        Saving a turn whose id is already stored replaces that turn and its steps.
        """
        text = self._dialect.encode_text
        step_rows = [rows.step_row(turn.id, step, text) for step in turn.steps]
        with self._transaction(write=True) as tx:
            self._touch(tx, turn.conversation_id)
            tx.execute(
                f"INSERT INTO messages ({rows.MESSAGE_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                "conversation_id = excluded.conversation_id, query = excluded.query, "
                "answer = excluded.answer, status = excluded.status, "
                "prompt_tokens = excluded.prompt_tokens, "
                "completion_tokens = excluded.completion_tokens, cost = excluded.cost, "
                "latency = excluded.latency, model = excluded.model, "
                "created_at = excluded.created_at",
                rows.message_row(turn, text),
            )
            tx.execute("DELETE FROM message_steps WHERE message_id = ?", (turn.id,))
            tx.execute_many(
                f"INSERT INTO message_steps (message_id, {rows.STEP_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                step_rows,
            )

    def _touch(self, tx: Transaction, conversation_id: str) -> None:
        now = time.time()
        tx.execute(
            "INSERT INTO conversations (id, created_at, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET updated_at = "
            f"{self._dialect.greatest}(conversations.updated_at, excluded.updated_at)",
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
        Turns with equal ``created_at`` keep the order they were first saved
        in. With ``include_steps=False`` every turn's ``steps`` is empty, which
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
        selection = (
            f"FROM messages WHERE {where} ORDER BY created_at DESC, {self._dialect.save_order} DESC"
        )
        if limit is not None:
            selection += " LIMIT ?"
            params.append(limit)
        steps: dict[str, list[StepRecord]] = {}
        decode = self._dialect.decode_text
        with self._transaction(write=False) as tx:
            found = tx.fetch_all(f"SELECT {rows.MESSAGE_COLUMNS} {selection}", params)
            if include_steps and found:
                for step in tx.fetch_all(
                    f"SELECT message_id, {rows.STEP_COLUMNS} FROM message_steps "
                    f"WHERE message_id IN (SELECT id {selection}) ORDER BY message_id, position",
                    params,
                ):
                    steps.setdefault(step[0], []).append(rows.step_from_row(step[1:], decode))
        return [rows.turn_from_row(row, steps.get(row[0], []), decode) for row in reversed(found)]

    def get_steps(self, turn_id: str) -> list[StepRecord]:
        """The turn's steps by position; ``[]`` for an unknown turn."""
        with self._transaction(write=False) as tx:
            found = tx.fetch_all(
                f"SELECT {rows.STEP_COLUMNS} FROM message_steps WHERE message_id = ? "
                "ORDER BY position",
                (turn_id,),
            )
        return [rows.step_from_row(row, self._dialect.decode_text) for row in found]

    def get_summary(self, conversation_id: str) -> str | None:
        """The conversation's summary; ``None`` when it has none or does not exist."""
        with self._transaction(write=False) as tx:
            row = tx.fetch_one("SELECT summary FROM conversations WHERE id = ?", (conversation_id,))
        return None if row is None else self._dialect.decode_text(row[0])

    def set_summary(self, conversation_id: str, summary: str) -> None:
        """Replace the conversation's summary, creating the conversation when missing."""
        with self._transaction(write=True) as tx:
            self._touch(tx, conversation_id)
            tx.execute(
                "UPDATE conversations SET summary = ? WHERE id = ?",
                (self._dialect.encode_text(summary), conversation_id),
            )

    def list_conversations(self, *, limit: int = 100) -> list[ConversationRecord]:
        """Up to ``limit`` conversations, the most recently updated first."""
        if limit < 0:
            raise ConfigurationError(f"limit must be >= 0, got {limit}")
        with self._transaction(write=False) as tx:
            found = tx.fetch_all(
                f"SELECT {rows.CONVERSATION_COLUMNS} FROM conversations "
                f"ORDER BY updated_at DESC, {self._dialect.save_order} DESC LIMIT ?",
                (limit,),
            )
        return [rows.conversation_from_row(row, self._dialect.decode_text) for row in found]

    def get_conversation(self, conversation_id: str) -> ConversationRecord | None:
        """The conversation, or ``None`` when there is no such conversation."""
        with self._transaction(write=False) as tx:
            row = tx.fetch_one(
                f"SELECT {rows.CONVERSATION_COLUMNS} FROM conversations WHERE id = ?",
                (conversation_id,),
            )
        return None if row is None else rows.conversation_from_row(row, self._dialect.decode_text)

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation with all that belongs to it; a no-op when missing."""
        with self._transaction(write=True) as tx:
            tx.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
