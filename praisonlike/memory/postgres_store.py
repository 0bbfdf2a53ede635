"""A :class:`~praisonlike.memory.store.SessionStore` on PostgreSQL, shared by processes.

:class:`PostgresStore` is the shared :class:`~praisonlike.memory.sql_store.SQLStore`
with :class:`PostgresDialect`, through ``psycopg`` 3 (the optional extra
``praisonlike[postgres]``): same records, statements and behaviour as
:class:`~praisonlike.memory.sqlite_store.SQLiteStore`. One connection per
store, guarded by a lock, serves every thread; each write is one transaction,
so a turn is stored whole or not at all, and reads see one consistent
snapshot. Several processes (on several machines) can share sessions through
one database; :meth:`PostgresStore.request_stop` and
:meth:`PostgresStore.poll_control` let one process ask the process running a
session's turn to stop it, once the requester is checked against the
session's owner.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from praisonlike.errors import ConfigurationError
from praisonlike.memory import postgres_control as control
from praisonlike.memory.dialect import Transaction, closed_on_failure
from praisonlike.memory.postgres_control import ControlKind, ControlSignal, StopRequestRefused
from praisonlike.memory.postgres_migrations import migrate
from praisonlike.memory.postgres_rows import decode_text, encode_text, redact_url
from praisonlike.memory.sql_store import SQLStore

if TYPE_CHECKING:
    import psycopg

__all__ = ["ControlKind", "ControlSignal", "PostgresDialect", "PostgresStore", "StopRequestRefused"]

_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_URL_SCHEMES = ("postgresql://", "postgres://")


class PostgresDialect:
    """PostgreSQL's side of the store: one schema, ``REPEATABLE READ`` reads, NUL-safe text."""

    save_order = "seq"
    greatest = "GREATEST"
    survives_fork = False

    def __init__(self, url: str, schema: str, connect_timeout: float) -> None:
        self.url = url
        self.schema = schema
        self.connect_timeout = connect_timeout

    def connect(self) -> psycopg.Connection:
        """Connect in autocommit mode, create or migrate the schema and put it on the path."""
        try:
            import psycopg
        except ImportError as exc:
            raise ConfigurationError(
                "PostgresStore needs psycopg: pip install 'praisonlike[postgres]'"
            ) from exc
        where = f"{redact_url(self.url)} (schema {self.schema})"
        try:
            conn = psycopg.connect(
                self.url,
                autocommit=True,
                connect_timeout=max(1, round(self.connect_timeout)),
                application_name="praisonlike",
            )
        except psycopg.Error as exc:
            raise ConfigurationError(f"cannot connect to session database {where}: {exc}") from exc
        with closed_on_failure(conn, (psycopg.Error,), f"cannot set up session database {where}"):
            migrate(conn, self.schema, where=where)
        return conn

    def usable(self, conn: psycopg.Connection) -> bool:
        """False once the connection was closed or broke (the server went away)."""
        return not (conn.closed or conn.broken)

    def close(self, conn: psycopg.Connection) -> None:
        conn.close()

    @contextmanager
    def transaction(self, conn: psycopg.Connection, *, write: bool) -> Iterator[Transaction]:
        """A read runs as one ``REPEATABLE READ, READ ONLY`` snapshot."""
        with conn.transaction(), conn.cursor() as cursor:
            if not write:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield Transaction(cursor, paramstyle="format")

    def encode_text(self, value: str | None) -> str | None:
        return encode_text(value)

    def decode_text(self, stored: Any) -> Any:
        return decode_text(stored)


class PostgresStore(SQLStore["psycopg.Connection"]):
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
        self._postgres = PostgresDialect(url, schema, connect_timeout)
        super().__init__(self._postgres)

    @property
    def url(self) -> str:
        """The database URL with any password replaced by ``***``."""
        return redact_url(self._postgres.url)

    @property
    def schema(self) -> str:
        """The PostgreSQL schema holding the tables."""
        return self._postgres.schema

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r}, schema={self.schema!r})"

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
        with self._transaction(write=True) as tx:
            return control.request_signal(tx, session_id, requester, reason, time.time())

    def request_steer(self, session_id: str, requester: str | None, text: str) -> ControlSignal:
        """Send a steering message to the process running ``session_id``'s turn.

        Checked against the session's owner like :meth:`request_stop`; the
        message is added at the running turn's next model call, or at the next
        turn of any process polling the session.
        """
        with self._transaction(write=True) as tx:
            return control.request_signal(
                tx, session_id, requester, text, time.time(), ControlKind.STEER
            )

    def poll_control(self, session_id: str) -> ControlSignal | None:
        """Take the oldest pending signal of the session, or ``None`` when there is none.

        A signal is taken once: two processes polling the same session never
        both receive it.
        """
        with self._transaction(write=True) as tx:
            return control.take_signal(tx, session_id)
