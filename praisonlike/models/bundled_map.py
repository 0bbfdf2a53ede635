"""LiteLLM's bundled price map, read one entry at a time through an index kept on disk.

The map is a 3.5 MB JSON object of some 5,000 entries; decoding all of it
takes 20-40 ms, while a turn looks up two or three models. So the first
process to read a given file records where each top-level entry starts and
ends (an index of a few hundred kB, written under
:func:`~praisonlike._runtime.cache_root.cache_root`), and every later one
reads the index and then only the bytes of the entries it is asked for. The index
names the file's path, size and modification time; a LiteLLM upgrade writes
a new one. When the index cannot be read or written (a read-only home, a
full disk) the map still works: the file is decoded whole, as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
import re
from array import array
from collections.abc import ItemsView, Iterator, Mapping
from pathlib import Path
from typing import Any

from praisonlike._runtime.cache_root import cache_root
from praisonlike.memory.state_file import atomic_write_bytes

INDEX_FORMAT = 2
_SPACE = re.compile(r"\s*")
_SEPARATOR = "\x00"


class _Index:
    """Top-level key -> where its value lies in the file (byte offsets)."""

    def __init__(self, keys: list[str], bounds: array[int]) -> None:
        self.position = {key: i for i, key in enumerate(keys)}
        self.bounds = bounds

    def span(self, key: str) -> tuple[int, int]:
        i = 2 * self.position[key]
        return self.bounds[i], self.bounds[i + 1]

    def dump(self, identity: tuple[Any, ...]) -> bytes:
        return marshal.dumps((identity, _SEPARATOR.join(self.position), self.bounds.tobytes()))

    @classmethod
    def load(cls, stored: bytes, identity: tuple[Any, ...]) -> _Index | None:
        try:
            found, keys, bounds = marshal.loads(stored)
        except (EOFError, ValueError, TypeError):
            return None
        if found != identity or not isinstance(keys, str) or not isinstance(bounds, bytes):
            return None
        names = keys.split(_SEPARATOR)
        offsets = array("q")
        offsets.frombytes(bounds)
        return cls(names, offsets) if len(offsets) == 2 * len(names) else None

    @classmethod
    def scan(cls, data: bytes) -> _Index | None:
        """The index of ``data``, one JSON object; ``None`` when it is not one.

        The bytes are read as Latin-1, one character per byte, so positions in
        the text are positions in the file (JSON's structure is ASCII, and no
        byte of a UTF-8 sequence is).
        """
        text, decoder = data.decode("latin-1"), json.JSONDecoder()
        keys: list[str] = []
        bounds = array("q")
        try:
            pos = _skip(text, 0)
            if text[pos] != "{":
                return None
            pos = _skip(text, pos + 1)
            while text[pos] != "}":
                if text[pos] != '"':
                    return None
                key, pos = decoder.raw_decode(text, pos)
                pos = _skip(text, pos)
                if text[pos] != ":":
                    return None
                start = _skip(text, pos + 1)
                end = decoder.raw_decode(text, start)[1]
                keys.append(key.encode("latin-1").decode("utf-8"))
                bounds.extend((start, end))
                pos = _skip(text, end)
                if text[pos] == ",":
                    pos = _skip(text, pos + 1)
                elif text[pos] != "}":
                    return None
        except (ValueError, IndexError, UnicodeError):
            return None
        if _skip(text, pos + 1) != len(text) or any(_SEPARATOR in key for key in keys):
            return None
        if len(set(keys)) != len(keys):  # a repeated key: the last one counts, as in json.loads
            return None
        return cls(keys, bounds)


class BundledMap(Mapping[str, Any]):
    """The JSON object in ``path`` as a read-only mapping; each entry is read from
    the file and decoded when first looked up. An unreadable or malformed file is
    an empty map; should the file change after the map was made (LiteLLM upgraded
    under a running process), entries not read yet read as missing."""

    def __init__(self, path: Path, index_dir: Path | None = None) -> None:
        self._path = path
        self._identity: tuple[Any, ...] = ()
        self._index: _Index | None = None
        self._decoded: dict[str, Any] = {}
        try:
            stat = path.stat()
        except OSError:
            return
        self._identity = (INDEX_FORMAT, str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        stored = _index_path(index_dir, self._identity)
        if stored is not None:
            with contextlib.suppress(OSError):
                self._index = _Index.load(stored.read_bytes(), self._identity)
        if self._index is not None:
            return
        try:
            data = path.read_bytes()
        except OSError:
            return
        self._index = _Index.scan(data)
        if self._index is None:
            self._decoded = _decode_whole(data)
        elif stored is not None:
            _write(stored, self._index.dump(self._identity))

    @property
    def indexed(self) -> bool:
        """Whether entries are decoded one at a time (False: the file was decoded whole)."""
        return self._index is not None

    def __getitem__(self, key: str) -> Any:
        try:
            return self._decoded[key]
        except KeyError:
            if self._index is None:
                raise
        start, end = self._index.span(key)
        try:
            value = json.loads(self._read(start, end))
        except (OSError, ValueError):
            raise KeyError(key) from None
        self._decoded[key] = value
        return value

    def items(self) -> ItemsView[str, Any]:
        """Every entry, the file decoded whole first: one read and one ``json.loads``
        (tens of milliseconds) instead of a read per entry (a few hundred). Should
        the file have changed since it was indexed, only the entries read before."""
        if self._index is not None:
            with contextlib.suppress(OSError):
                whole = _decode_whole(self._read(0, self._identity[2]))
                if whole:
                    self._decoded, self._index = whole, None
        return self._decoded.items()

    def __contains__(self, key: object) -> bool:
        if self._index is None:
            return key in self._decoded
        return key in self._index.position

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded if self._index is None else self._index.position)

    def __len__(self) -> int:
        return len(self._decoded if self._index is None else self._index.position)

    def _read(self, start: int, end: int) -> bytes:
        """Bytes ``start:end`` of the file; OSError if it is not the file indexed."""
        with self._path.open("rb") as source:
            stat = os.fstat(source.fileno())
            if (stat.st_size, stat.st_mtime_ns) != self._identity[2:]:
                raise OSError(f"{self._path} changed after it was indexed")
            source.seek(start)
            return source.read(end - start)


def _decode_whole(data: bytes) -> dict[str, Any]:
    try:
        loaded = json.loads(data)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _index_path(folder: Path | None, identity: tuple[Any, ...]) -> Path | None:
    """Where the index of ``identity`` is kept; ``None`` without a folder for it (no
    home directory, as for a container's user with no passwd entry and no HOME)."""
    if folder is None:
        try:
            folder = cache_root()
        except RuntimeError:
            return None
    digest = hashlib.sha256(repr(identity).encode()).hexdigest()[:24]
    return folder / "model-map" / f"{digest}.index"


def _write(path: Path, content: bytes) -> None:
    """Write the index; a folder that cannot be written is left alone."""
    with contextlib.suppress(OSError):
        atomic_write_bytes(path, content)


__all__ = ["INDEX_FORMAT", "BundledMap"]
