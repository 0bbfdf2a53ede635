"""What one SQL database contributes to :class:`~praisonlike.memory.sql_store.SQLStore`.

The store writes its statements once, in SQL both databases accept, with ``?``
placeholders; a :class:`Dialect` supplies the rest: how a connection is opened
(configured and migrated), whether an open one is still usable, how a read or
write transaction is begun, the placeholder style, the column that keeps save
order, the name of the two-argument maximum, and how text is stored and read
back. :class:`Transaction` runs the store's statements inside one transaction
through the driver's DB-API cursor.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol, TypeVar

from praisonlike.errors import ConfigurationError

ConnT = TypeVar("ConnT")
Row = tuple[Any, ...]


class Transaction:
    """Statements inside one open transaction, written with ``?`` placeholders.

    ``cursor`` is a DB-API cursor whose rows are tuples (the default of both
    ``sqlite3`` and ``psycopg``).

    With ``paramstyle="format"`` every ``?`` is sent as ``%s``, so statements
    must hold no literal ``?`` or ``%`` (the store's never do).
    """

    def __init__(self, cursor: Any, *, paramstyle: str = "qmark") -> None:
        self._cursor = cursor
        self._format = paramstyle == "format"

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s") if self._format else statement

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        """Run one statement, discarding any rows."""
        self._cursor.execute(self._sql(statement), params)

    def execute_many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters (nothing for no rows)."""
        if rows:
            self._cursor.executemany(self._sql(statement), rows)

    def fetch_all(self, statement: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of one query."""
        self._cursor.execute(self._sql(statement), params)
        rows: list[Row] = self._cursor.fetchall()
        return rows

    def fetch_one(self, statement: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of one query, or ``None`` when it has none."""
        self._cursor.execute(self._sql(statement), params)
        row: Row | None = self._cursor.fetchone()
        return row


class Dialect(Protocol[ConnT]):
    """One database's side of a :class:`~praisonlike.memory.sql_store.SQLStore`.

    ``save_order`` names a column that increases in insertion order (it breaks
    ties of equal times); ``greatest`` is the SQL function of the larger of two
    values; ``survives_fork`` says a forked child may keep using a connection
    its parent opened (true only for a private in-memory database).
    """

    save_order: str
    greatest: str
    survives_fork: bool

    def connect(self) -> ConnT:
        """Open, configure and migrate a connection in autocommit mode.

        Raises:
            ConfigurationError: the database cannot be opened or set up.
            StateVersionError: the schema was written by a newer praisonlike.
        """
        ...

    def usable(self, conn: ConnT) -> bool:
        """Whether ``conn`` can still run statements (false once it broke)."""
        ...

    def close(self, conn: ConnT) -> None:
        """Close ``conn``."""
        ...

    def transaction(self, conn: ConnT, *, write: bool) -> AbstractContextManager[Transaction]:
        """One transaction on ``conn``: committed when the block ends, rolled back if it raises.

        A write transaction takes the write lock at once; a read transaction
        sees one consistent snapshot.
        """
        ...

    def encode_text(self, value: str | None) -> str | None:
        """``value`` as the database stores it; :meth:`decode_text` gives it back exactly."""
        ...

    def decode_text(self, stored: Any) -> Any:
        """The string :meth:`encode_text` stored as ``stored`` (``None`` stays ``None``)."""
        ...


@contextmanager
def closed_on_failure(
    conn: Any, errors: tuple[type[Exception], ...], message: str
) -> Iterator[None]:
    """Close ``conn`` when the block raises; ``errors`` become ``ConfigurationError(message)``.

    For a dialect's :meth:`Dialect.connect`: a connection that cannot be set
    up is never left open, and a database error reads as a setup problem.
    """
    try:
        yield
    except errors as exc:
        conn.close()
        raise ConfigurationError(f"{message}: {exc}") from exc
    except BaseException:
        conn.close()
        raise
