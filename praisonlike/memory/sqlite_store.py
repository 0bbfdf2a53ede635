"""A :class:`~praisonlike.memory.store.SessionStore` on one SQLite file.

:class:`SQLiteStore` is the shared :class:`~praisonlike.memory.sql_store.SQLStore`
with :class:`SQLiteDialect`: the standard library's ``sqlite3`` in WAL mode. One
connection per store, guarded by a lock, serves every thread; other processes
use their own connections and wait up to ``busy_timeout`` seconds for a lock
rather than fail. Each write is one transaction, so a process killed mid-write
leaves either the whole turn or none of it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from praisonlike.errors import ConfigurationError
from praisonlike.memory.dialect import Transaction, closed_on_failure
from praisonlike.memory.location import MEMORY, resolve_sqlite_target
from praisonlike.memory.migrations import migrate
from praisonlike.memory.sql_store import SQLStore


class SQLiteDialect:
    """SQLite's side of the store: WAL file (or private in-memory database), text as is."""

    save_order = "rowid"
    greatest = "MAX"

    def __init__(self, target: str, busy_timeout: float) -> None:
        self.target = target
        self.busy_timeout = busy_timeout
        self.survives_fork = target == MEMORY

    def connect(self) -> sqlite3.Connection:
        """Open the file (creating its folders) in WAL mode and migrate it."""
        try:
            if self.target != MEMORY:
                Path(self.target).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.target,
                timeout=self.busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as exc:
            raise ConfigurationError(f"cannot open session database {self.target}: {exc}") from exc
        with closed_on_failure(
            conn, (sqlite3.Error,), f"cannot open session database {self.target}"
        ):
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000):d}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            migrate(conn, where=self.target)
        return conn

    def usable(self, conn: sqlite3.Connection) -> bool:
        """Always: a SQLite connection does not break on its own."""
        return True

    def close(self, conn: sqlite3.Connection) -> None:
        conn.close()

    @contextmanager
    def transaction(self, conn: sqlite3.Connection, *, write: bool) -> Iterator[Transaction]:
        """``BEGIN IMMEDIATE`` (the write lock at once) for a write, ``BEGIN`` for a read."""
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            with closing(conn.cursor()) as cursor:
                yield Transaction(cursor)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def encode_text(self, value: str | None) -> str | None:
        return value

    def decode_text(self, stored: Any) -> Any:
        return stored


class SQLiteStore(SQLStore[sqlite3.Connection]):
    """Session store on a SQLite file (or in memory); safe to share between threads.

    Constructing a store does no I/O: the file, its parent folders and the
    schema are created on first use, and an older schema is migrated then.
    After :meth:`close` the next call opens the database again.

    Raises (on first use):
        ConfigurationError: the path cannot be opened as a SQLite database.
        StateVersionError: the database was written by a newer praisonlike.
    """

    def __init__(self, path: str | Path | None = None, *, busy_timeout: float = 30.0) -> None:
        self._sqlite = SQLiteDialect(resolve_sqlite_target(path), busy_timeout)
        super().__init__(self._sqlite)

    @property
    def path(self) -> Path | None:
        """The database file, or ``None`` for an in-memory store."""
        return None if self._sqlite.target == MEMORY else Path(self._sqlite.target)

    def __repr__(self) -> str:
        return f"SQLiteStore({self._sqlite.target!r})"
