"""Control signals between processes sharing a PostgreSQL session store.

A process that does not run a session's turn (a web handler, a CLI, another
worker) stores a signal for it; the process running the turn polls and acts.
Signals are rows of ``session_controls``; a stop is accepted only from the
session's owner. The functions run inside a transaction the store opened,
with the store's ``?`` placeholders.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from praisonlike.errors import PraisonlikeError
from praisonlike.memory.dialect import Transaction
from praisonlike.memory.postgres_rows import decode_text, encode_text

_COLUMNS = "id, conversation_id, kind, requester, reason, created_at"


class StopRequestRefused(PraisonlikeError, PermissionError):
    """A stop request was not accepted: no such session, or the requester is not its owner."""

    def __init__(self, message: str, *, session_id: str, requester: str | None) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.requester = requester


class ControlKind(str, Enum):
    """What a control signal asks of the process running a session."""

    STOP = "stop"
    STEER = "steer"


class ControlSignal(BaseModel):
    """A request, stored for the process running the session's turn to act on.

    ``id`` increases in the order signals were requested; ``requested_at`` is
    the requester's unix time.
    """

    model_config = ConfigDict(frozen=True)

    id: int
    session_id: str
    kind: ControlKind
    requester: str | None = None
    reason: str = ""
    requested_at: float


def _signal_from_row(row: Any) -> ControlSignal:
    return ControlSignal(
        id=row[0],
        session_id=row[1],
        kind=ControlKind(row[2]),
        requester=decode_text(row[3]),
        reason=decode_text(row[4]),
        requested_at=row[5],
    )


def request_signal(
    tx: Transaction,
    session_id: str,
    requester: str | None,
    reason: str,
    now: float,
    kind: ControlKind = ControlKind.STOP,
) -> ControlSignal:
    """Check ``requester`` against the session's owner, then store a signal.

    For a steer signal ``reason`` is the steering text.

    Raises:
        StopRequestRefused: no such session, or an owner other than ``requester``.
    """
    row = tx.fetch_one("SELECT owner FROM conversations WHERE id = ? FOR SHARE", (session_id,))
    if row is None:
        raise StopRequestRefused(
            f"cannot {kind.value} session {session_id!r}: there is no such session",
            session_id=session_id,
            requester=requester,
        )
    owner = decode_text(row[0])
    if owner is not None and owner != requester:
        raise StopRequestRefused(
            f"{requester!r} may not {kind.value} session {session_id!r}: only its owner may",
            session_id=session_id,
            requester=requester,
        )
    stored = tx.fetch_one(
        "INSERT INTO session_controls (conversation_id, kind, requester, reason, created_at) "
        f"VALUES (?, ?, ?, ?, ?) RETURNING {_COLUMNS}",
        (session_id, kind.value, encode_text(requester), encode_text(reason), now),
    )
    assert stored is not None
    return _signal_from_row(stored)


def take_signal(tx: Transaction, session_id: str) -> ControlSignal | None:
    """Delete and return the session's oldest signal; ``None`` when there is none."""
    row = tx.fetch_one(
        "DELETE FROM session_controls WHERE id = ("
        "SELECT id FROM session_controls WHERE conversation_id = ? "
        "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
        f"RETURNING {_COLUMNS}",
        (session_id,),
    )
    return None if row is None else _signal_from_row(row)
