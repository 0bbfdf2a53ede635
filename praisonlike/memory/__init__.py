"""Persistence: session stores, the history window and atomically written state files.

Names are imported on first use, so ``import praisonlike.memory.config``
does not open SQLite or read migrations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike._runtime.lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "SCHEMA_VERSION": ".migrations",
    "ConversationRecord": ".records",
    "MemoryConfig": ".config",
    "MessageStatus": ".records",
    "SQLiteStore": ".sqlite_store",
    "SessionStore": ".store",
    "StepRecord": ".records",
    "TurnRecord": ".records",
    "atomic_write_json": ".state_file",
    "default_store_path": ".location",
    "estimate_tokens": ".history",
    "history_window": ".history",
    "open_store": ".store",
    "read_json": ".state_file",
}

if TYPE_CHECKING:
    from praisonlike.memory.config import MemoryConfig
    from praisonlike.memory.history import estimate_tokens, history_window
    from praisonlike.memory.location import default_store_path
    from praisonlike.memory.migrations import SCHEMA_VERSION
    from praisonlike.memory.records import (
        ConversationRecord,
        MessageStatus,
        StepRecord,
        TurnRecord,
    )
    from praisonlike.memory.sqlite_store import SQLiteStore
    from praisonlike.memory.state_file import atomic_write_json, read_json
    from praisonlike.memory.store import SessionStore, open_store

__all__ = [
    "SCHEMA_VERSION",
    "ConversationRecord",
    "MemoryConfig",
    "MessageStatus",
    "SQLiteStore",
    "SessionStore",
    "StepRecord",
    "TurnRecord",
    "atomic_write_json",
    "default_store_path",
    "estimate_tokens",
    "history_window",
    "open_store",
    "read_json",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
