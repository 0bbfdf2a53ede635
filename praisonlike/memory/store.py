"""The :class:`SessionStore` protocol the agent persists its turns through.

Any object with these methods is a store; :func:`open_store` turns a path or a
URL into one of the bundled stores, :class:`~praisonlike.memory.sqlite_store.SQLiteStore`
or :class:`~praisonlike.memory.postgres_store.PostgresStore` (both
:class:`~praisonlike.memory.sql_store.SQLStore` over a dialect).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Protocol, runtime_checkable

from praisonlike.errors import ConfigurationError
from praisonlike.memory.records import (
    ConversationRecord,
    MessageStatus,
    StepRecord,
    TurnRecord,
)
from praisonlike.memory.sqlite_store import SQLiteStore


@runtime_checkable
class SessionStore(Protocol):
    """Where conversations, their turns and the turns' steps are kept.

    Implementations are safe to call from several threads. Lookups of
    something missing return ``None`` or ``[]``; failures raise.
    """

    def ensure_conversation(
        self,
        conversation_id: str,
        *,
        agent_name: str | None = None,
        owner: str | None = None,
    ) -> ConversationRecord:
        """Return the conversation, creating it when missing (keeps existing fields)."""
        ...

    def save_turn(self, turn: TurnRecord) -> None:
        """Store the turn and all its steps atomically: all of it or nothing.

        Creates the conversation when missing; a turn id already stored is replaced.
        """
        ...

    def load_turns(
        self,
        conversation_id: str,
        *,
        limit: int | None = None,
        statuses: Collection[MessageStatus] | None = None,
    ) -> list[TurnRecord]:
        """Turns oldest first; ``statuses`` filters, then ``limit`` keeps the last n."""
        ...

    def get_steps(self, turn_id: str) -> list[StepRecord]:
        """The turn's steps by position; ``[]`` for an unknown turn."""
        ...

    def get_summary(self, conversation_id: str) -> str | None:
        """The conversation's summary, or ``None`` when there is none."""
        ...

    def set_summary(self, conversation_id: str, summary: str) -> None:
        """Replace the conversation's summary (creating the conversation when missing)."""
        ...

    def list_conversations(self, *, limit: int = 100) -> list[ConversationRecord]:
        """Up to ``limit`` conversations, the most recently updated first."""
        ...

    def get_conversation(self, conversation_id: str) -> ConversationRecord | None:
        """The conversation, or ``None`` when there is no such conversation."""
        ...

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation, its turns and steps; a no-op when missing."""
        ...

    def close(self) -> None:
        """Release the store's connections."""
        ...


def open_store(spec: SessionStore | str | Path | None) -> SessionStore:
    """The store ``spec`` names.

    A store passes through unchanged; ``None`` is the default SQLite file
    (``$PRAISONLIKE_HOME/sessions.db``); a path, ``":memory:"`` or a
    ``sqlite://`` URL opens a :class:`SQLiteStore`, a ``postgresql://`` URL a
    :class:`PostgresStore` (both lazily: no I/O here).

    Raises:
        ConfigurationError: a URL of an unsupported scheme, or an object that
            is not a store.
    """
    if isinstance(spec, str) and spec.startswith(("postgresql://", "postgres://")):
        from praisonlike.memory.postgres_store import PostgresStore

        return PostgresStore(spec)
    if spec is None or isinstance(spec, (str, Path)):
        return SQLiteStore(spec)
    if isinstance(spec, SessionStore):
        return spec
    raise ConfigurationError(
        f"a session store must be a SessionStore, a path or a sqlite:// URL, "
        f"not {type(spec).__name__}"
    )
