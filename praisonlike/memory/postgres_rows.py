"""Text in and out of the PostgreSQL session tables, and URLs fit to show.

PostgreSQL ``TEXT`` cannot hold the NUL character, which the store must keep
like SQLite does. :func:`encode_text` therefore stores a string containing NUL
(or one that happens to start with the escape marker) as the marker followed
by its JSON encoding; every other string is stored unchanged, so the tables
stay readable with plain SQL. JSON columns hold JSON text, where NUL is
already escaped.
"""

from __future__ import annotations

import json
from typing import overload
from urllib.parse import urlsplit, urlunsplit

_ESCAPE_MARKER = "\x01praisonlike-json:"


@overload
def encode_text(value: str) -> str: ...
@overload
def encode_text(value: None) -> None: ...
@overload
def encode_text(value: str | None) -> str | None: ...
def encode_text(value: str | None) -> str | None:
    """``value`` as storable text; :func:`decode_text` gives it back exactly."""
    if value is None:
        return None
    if "\x00" in value or value.startswith(_ESCAPE_MARKER):
        return _ESCAPE_MARKER + json.dumps(value, ensure_ascii=False)
    return value


@overload
def decode_text(stored: str) -> str: ...
@overload
def decode_text(stored: None) -> None: ...
@overload
def decode_text(stored: str | None) -> str | None: ...
def decode_text(stored: str | None) -> str | None:
    """The string :func:`encode_text` stored as ``stored``."""
    if stored is not None and stored.startswith(_ESCAPE_MARKER):
        value = json.loads(stored[len(_ESCAPE_MARKER) :])
        return str(value)
    return stored


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***``, for messages and ``repr``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))
