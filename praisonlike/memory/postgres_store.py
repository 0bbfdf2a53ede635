"""A :class:`~praisonlike.memory.store.SessionStore` on PostgreSQL, shared by processes.

Same records, schema and behaviour as
:class:`~praisonlike.memory.sqlite_store.SQLiteStore`, through ``psycopg`` 3
(the optional extra ``praisonlike[postgres]``). One connection per store,
guarded by a lock, serves every thread; each write is one transaction, so a
turn is stored whole or not at all, and reads see one consistent snapshot.
Several processes (on several machines) can share sessions through one
database; :meth:`PostgresStore.request_stop` and
:meth:`PostgresStore.poll_control` let one process ask the process running a
session's turn to stop it, once the requester is checked against the
session's owner.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any

from praisonlike.errors import ConfigurationError
from praisonlike.memory import postgres_control as control
from praisonlike.memory import postgres_rows as rows
from praisonlike.memory.postgres_control import ControlKind, ControlSignal, StopRequestRefused
from praisonlike.memory.postgres_migrations import migrate
from praisonlike.memory.records import ConversationRecord, MessageStatus, StepRecord, TurnRecord

if TYPE_CHECKING:
    import psycopg

__all__ = ["ControlKind", "ControlSignal", "PostgresStore", "StopRequestRefused"]

_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_URL_SCHEMES = ("postgresql://", "postgres://")

# Connections inherited across fork(): never closed in the child, since closing
# would end the parent's session on the shared socket.
_inherited_connections: list[Any] = []


class PostgresStore:
    """Session store on a PostgreSQL database; safe to share between threads and processes.

    ``url`` is a libpq URL (``postgresql://user:password@host:port/database``).
    Tables live in the PostgreSQL schema ``schema`` (created when missing), so
    several independent stores can share one database. Constructing a store
    does no I/O: the connection is opened, and the schema created or migrated,
    on first use. After :meth:`close` the next call connects again, and so does
    the call after one whose connection broke (the failing call raises).

    Raises (on first use):
        ConfigurationError: ``psycopg`` is not installed, or the database cannot
            be reached or set up (the message shows the URL without password).
        StateVersionError: the schema was written by a newer praisonlike.
    """

    def __init__(self, url: str, *, schema: str = "public", connect_timeout: float = 10.0) -> None:
        if not isinstance(url, str) or not url.startswith(_URL_SCHEMES):
            raise ConfigurationError(f"a PostgreSQL store needs a postgresql:// URL, got {url!r}")
        if not isinstance(schema, str) or not _SCHEMA_NAME.fullmatch(schema):
            raise ConfigurationError(
                f"invalid PostgreSQL schema name {schema!r}: use up to 63 letters, digits or '_'"
            )
        if not connect_timeout > 0:
            raise ConfigurationError(f"connect_timeout must be > 0, got {connect_timeout!r}")
        self._url = url
        self._schema = schema
        self._connect_timeout = connect_timeout
        self._lock = threading.RLock()
        self._conn: psycopg.Connection | None = None
        self._pid = 0

    @property
    def url(self) -> str:
        """The database URL with any password replaced by ``***``."""
        return rows.redact_url(self._url)

    @property
    def schema(self) -> str:
        """The PostgreSQL schema holding the tables."""
        return self._schema

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r}, schema={self._schema!r})"

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- connection --------------------------------------------------------------------

    def _open(self) -> psycopg.Connection:
        try:
            import psycopg
        except ImportError as exc:
            raise ConfigurationError(
                "PostgresStore needs psycopg: pip install 'praisonlike[postgres]'"
            ) from exc
        where = f"{self.url} (schema {self._schema})"
        try:
            conn = psycopg.connect(
                self._url,
                autocommit=True,
                connect_timeout=max(1, round(self._connect_timeout)),
                application_name="praisonlike",
            )
        except psycopg.Error as exc:
            raise ConfigurationError(f"cannot connect to session database {where}: {exc}") from exc
        try:
            migrate(conn, self._schema, where=where)
        except psycopg.Error as exc:
            conn.close()
            raise ConfigurationError(f"cannot set up session database {where}: {exc}") from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def _connection(self) -> psycopg.Connection:
        conn = self._conn
        if conn is not None and self._pid != os.getpid():
            _inherited_connections.append(conn)
            conn = self._conn = None
        if conn is not None and (conn.closed or conn.broken):
            conn.close()
            conn = self._conn = None
        if conn is None:
            conn = self._conn = self._open()
            self._pid = os.getpid()
        return conn

    @contextmanager
    def _transaction(self, *, read_only: bool = False) -> Iterator[psycopg.Connection]:
        with self._lock:
            conn = self._connection()
            with conn.transaction():
                if read_only:
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield conn

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
        with self._transaction() as conn:
            row = conn.execute(
                "INSERT INTO conversations (id, agent_name, owner, created_at, updated_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (id) DO UPDATE SET "
                "agent_name = COALESCE(conversations.agent_name, EXCLUDED.agent_name), "
                "owner = COALESCE(conversations.owner, EXCLUDED.owner) "
                f"RETURNING {rows.CONVERSATION_COLUMNS}",
                (
                    conversation_id,
                    rows.encode_text(agent_name),
                    rows.encode_text(owner),
                    now,
                    now,
                ),
            ).fetchone()
        assert row is not None
        return rows.conversation_from_row(row)

    def save_turn(self, turn: TurnRecord) -> None:
        """Store the turn and all its steps in one transaction.

        Creates the conversation when missing and sets its ``updated_at``.
        Saving a turn whose id is already stored replaces that turn and its steps.
        """
        step_rows = [rows.step_row(turn.id, step) for step in turn.steps]
        with self._transaction() as conn:
            self._touch(conn, turn.conversation_id, time.time())
            conn.execute(
                f"INSERT INTO messages ({rows.MESSAGE_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET "
                "conversation_id = EXCLUDED.conversation_id, query = EXCLUDED.query, "
                "answer = EXCLUDED.answer, status = EXCLUDED.status, "
                "prompt_tokens = EXCLUDED.prompt_tokens, "
                "completion_tokens = EXCLUDED.completion_tokens, cost = EXCLUDED.cost, "
                "latency = EXCLUDED.latency, model = EXCLUDED.model, "
                "created_at = EXCLUDED.created_at",
                rows.message_row(turn),
            )
            conn.execute("DELETE FROM message_steps WHERE message_id = %s", (turn.id,))
            if step_rows:
                with conn.cursor() as cursor:
                    cursor.executemany(
                        f"INSERT INTO message_steps (message_id, {rows.STEP_COLUMNS}) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                        step_rows,
                    )

    @staticmethod
    def _touch(conn: psycopg.Connection, conversation_id: str, now: float) -> None:
        conn.execute(
            "INSERT INTO conversations (id, created_at, updated_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (id) DO UPDATE SET "
            "updated_at = GREATEST(conversations.updated_at, EXCLUDED.updated_at)",
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
        With ``include_steps=False`` every turn's ``steps`` is empty. Turns
        with equal ``created_at`` keep the order they were first saved in.
        """
        if limit is not None and limit < 0:
            raise ConfigurationError(f"limit must be >= 0, got {limit}")
        where = "conversation_id = %s"
        params: list[Any] = [conversation_id]
        if statuses is not None:
            values = sorted({MessageStatus(status).value for status in statuses})
            if not values:
                return []
            where += " AND status = ANY(%s)"
            params.append(values)
        query = f"SELECT {rows.MESSAGE_COLUMNS} FROM messages WHERE {where} "
        query += "ORDER BY created_at DESC, seq DESC"
        if limit is not None:
            query += " LIMIT %s"
            params.append(limit)
        steps: dict[str, list[StepRecord]] = {}
        with self._transaction(read_only=True) as conn:
            found = conn.execute(query, params).fetchall()
            if include_steps and found:
                for step in conn.execute(
                    f"SELECT message_id, {rows.STEP_COLUMNS} FROM message_steps "
                    "WHERE message_id = ANY(%s) ORDER BY message_id, position",
                    ([row[0] for row in found],),
                ):
                    steps.setdefault(step[0], []).append(rows.step_from_row(step[1:]))
        return [rows.turn_from_row(row, steps.get(row[0], [])) for row in reversed(found)]

    def get_steps(self, turn_id: str) -> list[StepRecord]:
        """The turn's steps by position; ``[]`` for an unknown turn."""
        with self._transaction(read_only=True) as conn:
            found = conn.execute(
                f"SELECT {rows.STEP_COLUMNS} FROM message_steps WHERE message_id = %s "
                "ORDER BY position",
                (turn_id,),
            ).fetchall()
        return [rows.step_from_row(row) for row in found]

    def get_summary(self, conversation_id: str) -> str | None:
        """The conversation's summary; ``None`` when it has none or does not exist."""
        with self._transaction(read_only=True) as conn:
            row = conn.execute(
                "SELECT summary FROM conversations WHERE id = %s", (conversation_id,)
            ).fetchone()
        return None if row is None else rows.decode_text(row[0])

    def set_summary(self, conversation_id: str, summary: str) -> None:
        """Replace the conversation's summary, creating the conversation when missing."""
        with self._transaction() as conn:
            self._touch(conn, conversation_id, time.time())
            conn.execute(
                "UPDATE conversations SET summary = %s WHERE id = %s",
                (rows.encode_text(summary), conversation_id),
            )

    def list_conversations(self, *, limit: int = 100) -> list[ConversationRecord]:
        """Up to ``limit`` conversations, the most recently updated first."""
        if limit < 0:
            raise ConfigurationError(f"limit must be >= 0, got {limit}")
        with self._transaction(read_only=True) as conn:
            found = conn.execute(
                f"SELECT {rows.CONVERSATION_COLUMNS} FROM conversations "
                "ORDER BY updated_at DESC, seq DESC LIMIT %s",
                (limit,),
            ).fetchall()
        return [rows.conversation_from_row(row) for row in found]

    def get_conversation(self, conversation_id: str) -> ConversationRecord | None:
        """The conversation, or ``None`` when there is no such conversation."""
        with self._transaction(read_only=True) as conn:
            row = conn.execute(
                f"SELECT {rows.CONVERSATION_COLUMNS} FROM conversations WHERE id = %s",
                (conversation_id,),
            ).fetchone()
        return None if row is None else rows.conversation_from_row(row)

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation with its turns, steps and pending signals; no-op when missing."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM conversations WHERE id = %s", (conversation_id,))

    def close(self) -> None:
        """Close the connection; the next call opens a new one."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and self._pid == os.getpid():
                conn.close()

    # -- cross-process control ---------------------------------------------------------

    def request_stop(
        self, session_id: str, requester: str | None, *, reason: str = ""
    ) -> ControlSignal:
        """Ask the process running ``session_id``'s turn to stop it; return the stored signal.

        ``requester`` must be the session's owner (``ConversationRecord.owner``);
        a session without an owner accepts a stop from anyone. The signal waits
        until :meth:`poll_control` takes it, even when no turn is running.

        Raises:
            StopRequestRefused: (a ``PermissionError``) the session does not
                exist, or ``requester`` is not its owner.
        """
        with self._transaction() as conn:
            return control.request_signal(conn, session_id, requester, reason, time.time())

    def request_steer(self, session_id: str, requester: str | None, text: str) -> ControlSignal:
        """Send a steering message to the process running ``session_id``'s turn.

        Checked against the session's owner like :meth:`request_stop`; the
        message is added at the running turn's next model call, or at the next
        turn of any process polling the session.
        """
        with self._transaction() as conn:
            return control.request_signal(
                conn, session_id, requester, text, time.time(), ControlKind.STEER
            )

    def poll_control(self, session_id: str) -> ControlSignal | None:
        """Take the oldest pending signal of the session, or ``None`` when there is none.

        A signal is taken once: two processes polling the same session never
        both receive it.
        """
        with self._transaction() as conn:
            return control.take_signal(conn, session_id)
