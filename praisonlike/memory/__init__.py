"""Persistence: session stores, the history window and atomically written state files."""

from praisonlike.memory.history_window import estimate_tokens, history_window
from praisonlike.memory.location import default_store_path
from praisonlike.memory.migrations import LATEST_VERSION as SCHEMA_VERSION
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
