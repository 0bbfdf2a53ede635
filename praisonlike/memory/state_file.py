"""Files that are replaced atomically: a reader sees the old or the new file, never half."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _fsync_directory(folder: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_json(path: str | Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path``, replacing any existing file atomically.

    ``data`` is serialised first (``TypeError``/``ValueError`` for values JSON
    cannot hold, NaN included, and then nothing is written); then as
    :func:`atomic_write_bytes`.
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, indent=2)
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | Path, content: bytes) -> None:
    """Write ``content`` to ``path``, replacing any existing file atomically.

    The bytes go to a temporary file in the same folder, are flushed and
    fsynced, and renamed over ``path``; the folder is created when missing. A
    new file is readable by its owner only; a replaced file keeps its
    permission bits. If the process dies midway, ``path`` holds the previous
    content and a hidden ``.<name>.*.tmp`` file may be left beside it. Raises
    OSError when the folder cannot be written (and leaves no temporary file).
    """
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp_name, target.stat().st_mode & 0o7777)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_directory(folder)


def read_json(path: str | Path) -> Any:
    """The JSON value stored at ``path``.

    Raises:
        FileNotFoundError: there is no such file.
        json.JSONDecodeError: the file is not valid JSON.
    """
    return json.loads(Path(path).read_text(encoding="utf-8"))
