"""Where a SQLite session store lives: the default file and the specs that name one."""

from __future__ import annotations

import os
from pathlib import Path

from praisonlike.errors import ConfigurationError

MEMORY = ":memory:"
SQLITE_URL_PREFIX = "sqlite://"


def default_store_path() -> Path:
    """``$PRAISONLIKE_HOME/sessions.db``, or ``~/.praisonlike/sessions.db`` when unset."""
    home = os.environ.get("PRAISONLIKE_HOME") or "~/.praisonlike"
    return Path(home).expanduser() / "sessions.db"


def resolve_sqlite_target(path: str | Path | None) -> str:
    """The absolute file path (or ``":memory:"``) a store spec names; no I/O.

    Accepts ``None`` (the default path), a path, ``":memory:"`` and SQLAlchemy
    style URLs: ``sqlite:///relative.db``, ``sqlite:////absolute.db``,
    ``sqlite://`` and ``sqlite:///:memory:`` (in memory).

    Raises:
        ConfigurationError: a URL of another scheme, or an empty path.
    """
    if path is None:
        return os.path.abspath(default_store_path())
    if isinstance(path, Path):
        return os.path.abspath(path.expanduser())
    text = path.strip()
    if "://" in text:
        if not text.startswith(SQLITE_URL_PREFIX):
            raise ConfigurationError(f"not a SQLite URL: {text!r}")
        rest = text[len(SQLITE_URL_PREFIX) :]
        if rest in ("", "/", "/" + MEMORY):
            return MEMORY
        if not rest.startswith("/"):
            raise ConfigurationError(
                f"SQLite URL must look like sqlite:///relative.db or sqlite:////abs.db: {text!r}"
            )
        text = rest[1:]
    if text == MEMORY:
        return MEMORY
    if not text:
        raise ConfigurationError("empty SQLite database path")
    return os.path.abspath(os.path.expanduser(text))
