"""The on-disk records of the warm local model servers (POSIX only).

Everything lives in one folder owned by the user with mode 0700
(:func:`state_dir`): per model, keyed by the first 16 hex digits of its hash,

- ``<key>.json``: the running server (:class:`ServerState`), mode 0600, written
  atomically by the server process once it answers; its modification time is the
  server's last activity;
- ``<key>.lock``: the file lock (``fcntl.flock``) that starting, reusing and the
  idle exit take, so two processes never start the same model twice;
- ``<key>.log``: the server process's output, overwritten at each start;
- ``clients/<key>.<pid>``: one empty lease per process using the server; a
  server does not count as idle while a lease names a live process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from praisonlike.errors import ConfigurationError
from praisonlike.models.local.model_file import default_cache_dir

STATE_DIR_ENV = "PRAISONLIKE_LOCAL_STATE_DIR"
KEEPALIVE_MODULE = "praisonlike.models.local.keepalive"


class StateDirError(ConfigurationError):
    """The state folder cannot be used safely (not ours, or not a folder)."""


@dataclass(frozen=True)
class ServerState:
    """What a warm server's state file holds.

    Attributes:
        pid: the server process.
        port: its port on 127.0.0.1.
        alias: the model name it serves (``openai/<alias>`` for clients).
        sha256: the model's hash (the pinned SHA-256, or a fingerprint of a
            user's GGUF file's path, size and modification time).
        model_path: the GGUF file.
        n_ctx: the context size it was started with.
        token: the API key every request must carry as ``Authorization: Bearer``.
        keep_alive: seconds without requests or clients before it exits (<0: never).
        started_at: Unix time it became ready.
    """

    pid: int
    port: int
    alias: str
    sha256: str
    model_path: str
    n_ctx: int
    token: str
    keep_alive: float
    started_at: float

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def key(self) -> str:
        return state_key(self.sha256)


def state_key(sha256: str) -> str:
    """The file-name key of the model with hash ``sha256``."""
    return sha256[:16]


def state_dir() -> Path:
    """``$PRAISONLIKE_LOCAL_STATE_DIR``, else ``servers`` next to the model cache
    (``~/.cache/praisonlike/servers``); not created here."""
    configured = os.environ.get(STATE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    return default_cache_dir().parent / "servers"


def private_state_dir() -> Path:
    """:func:`state_dir`, created with mode 0700 (and ``clients/`` in it).

    An existing folder of this user is narrowed to 0700; one owned by another
    user, a file in its place, or a folder that cannot be created raises
    :class:`StateDirError`.
    """
    folder = state_dir()
    for path in (folder, folder / "clients"):
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = path.lstat()
        except OSError as exc:
            raise StateDirError(
                f"cannot create {path} ({exc}); set {STATE_DIR_ENV} to another folder, "
                "or PRAISONLIKE_LOCAL_KEEP_ALIVE=0 to run the local model in this process"
            ) from exc
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            raise StateDirError(
                f"{path} is not a folder of this user; set {STATE_DIR_ENV} to another folder"
            )
        if stat.S_IMODE(info.st_mode) != 0o700:
            path.chmod(0o700)
    return folder


def state_path(key: str) -> Path:
    return state_dir() / f"{key}.json"


def log_path(key: str) -> Path:
    return state_dir() / f"{key}.log"


@contextlib.contextmanager
def locked(key: str, *, blocking: bool = True) -> Iterator[bool]:
    """Hold the model's file lock for the block; yields False when ``blocking``
    is off and another process holds it (the block then runs unlocked)."""
    import fcntl

    fd = os.open(private_state_dir() / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def read_state(key: str) -> ServerState | None:
    """The state file of ``key``; None when absent or unreadable (a torn or foreign file)."""
    try:
        raw = json.loads(state_path(key).read_text(encoding="utf-8"))
        fields = {f.name for f in dataclasses.fields(ServerState)}
        return ServerState(**{name: raw[name] for name in fields})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def all_states() -> list[ServerState]:
    """Every readable state file in the state folder (none when it does not exist)."""
    folder = state_dir()
    if not folder.is_dir():
        return []
    found = (read_state(path.stem) for path in sorted(folder.glob("*.json")))
    return [state for state in found if state is not None]


def write_state(state: ServerState) -> None:
    """Write ``state`` atomically with mode 0600 (temporary file, then rename)."""
    folder = private_state_dir()
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{state.key}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(dataclasses.asdict(state), handle)
        os.replace(temporary, folder / f"{state.key}.json")
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def remove_state(key: str, pid: int) -> None:
    """Delete the state file of ``key`` if it still names process ``pid``."""
    current = read_state(key)
    if current is not None and current.pid == pid:
        with contextlib.suppress(FileNotFoundError):
            state_path(key).unlink()


def mark_active(key: str) -> None:
    """Set the state file's modification time to now (the last activity)."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(state_path(key))


def last_active(key: str) -> float | None:
    """Unix time of the server's last activity; None without a state file."""
    try:
        return state_path(key).stat().st_mtime
    except FileNotFoundError:
        return None


def add_lease(key: str, pid: int) -> Path:
    """Record that process ``pid`` uses the server of ``key``; returns the lease file."""
    lease = private_state_dir() / "clients" / f"{key}.{pid}"
    lease.touch(mode=0o600)
    return lease


def live_leases(key: str) -> int:
    """How many processes hold a lease on ``key``; leases of ended processes are removed."""
    folder = state_dir() / "clients"
    count = 0
    for lease in folder.glob(f"{key}.*"):
        pid = lease.suffix[1:]
        if pid.isdigit() and pid_alive(int(pid)):
            count += 1
        else:
            with contextlib.suppress(FileNotFoundError):
                lease.unlink()
    return count


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return True
    return fields[0] != "Z"


def is_server_process(pid: int, sha256: str | None = None) -> bool | None:
    """Whether ``pid`` runs :mod:`praisonlike.models.local.keepalive` (for the model
    with hash ``sha256``, when given); None where the command line cannot be
    read (no ``/proc``)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return None if not Path("/proc/self").exists() else False
    except OSError:
        return None
    arguments = command.split(b"\0")
    wanted = sha256 is None or sha256.encode() in arguments
    return KEEPALIVE_MODULE.encode() in arguments and wanted


def wait_for_exit(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``pid`` to end; True when it did."""
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True
