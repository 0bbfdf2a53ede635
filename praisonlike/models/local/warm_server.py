"""Find, start, reuse and stop the warm local model servers (the client side).

A warm server is a detached ``python -m praisonlike.models.local.keepalive``
process that outlives the process that started it, as Ollama's ``keep_alive``
does. :func:`warm_endpoint` takes the model's file lock, leases the server for
this process, and reuses the server its state file names when that process is
alive and answers with the token for the same model; otherwise (no file, a dead
pid, a server that does not answer) it starts a new one and waits for it. One
server runs per model (per hash): a second model gets a server of its own, and
each leaves on its own idle clock.

How long a server stays after its last request and its last client process is
:func:`keep_alive_seconds` (``PRAISONLIKE_LOCAL_KEEP_ALIVE``, 5 minutes by
default, 0 for a server inside the calling process instead).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from praisonlike._runtime.loopback_http import LOOPBACK_OPENER
from praisonlike._runtime.progress import slow_step
from praisonlike.errors import ConfigurationError
from praisonlike.models.local import state_file
from praisonlike.models.local.model_file import DEFAULT_LOCAL_MODEL, LOCAL_MODELS
from praisonlike.models.local.server import DEFAULT_STARTUP_TIMEOUT, LocalServerError
from praisonlike.models.local.state_file import ServerState

KEEP_ALIVE_ENV = "PRAISONLIKE_LOCAL_KEEP_ALIVE"
DEFAULT_KEEP_ALIVE = 300.0
"""Seconds a warm server stays after its last request and last client process."""
STOP_TIMEOUT = 15.0
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
_leases: dict[tuple[str, int], Path] = {}
_endpoints: dict[str, ServerState] = {}
_lock = threading.Lock()
_start_lock = threading.Lock()


def keep_alive_seconds() -> float:
    """``PRAISONLIKE_LOCAL_KEEP_ALIVE`` in seconds: ``300`` when unset.

    Accepts ``30s``, ``5m``, ``1h`` or a plain number of minutes; ``0`` runs the
    server inside the calling process (stopped at its exit); a negative value
    keeps a warm server until ``praisonlike local stop`` (returned as ``-1``).
    Anything else raises :class:`ConfigurationError` naming the variable.
    """
    raw = os.environ.get(KEEP_ALIVE_ENV, "").strip().lower()
    if not raw:
        return DEFAULT_KEEP_ALIVE
    number, scale = (raw[:-1], _UNITS[raw[-1]]) if raw[-1] in _UNITS else (raw, 60.0)
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ConfigurationError(
            f"{KEEP_ALIVE_ENV}={raw!r} is not a duration; use e.g. 30s, 5m, 1h, 0 or -1"
        )
    return -1.0 if value < 0 else value * scale


def warm_servers_supported() -> bool:
    """Warm servers need POSIX file locks and sessions (not Windows)."""
    return os.name == "posix"


def model_hash(model: str, path: Path) -> str:
    """The pinned SHA-256 of a bundled model; for a user's GGUF file, a SHA-256
    of its resolved path, size and modification time (hashing gigabytes at every
    start would cost more than the load it saves)."""
    name = DEFAULT_LOCAL_MODEL if model == "local" else model.removeprefix("local/")
    spec = LOCAL_MODELS.get(name)
    if spec is not None:
        return spec.sha256
    info = path.stat()
    identity = f"{path.resolve()}\0{info.st_size}\0{info.st_mtime_ns}"
    return hashlib.sha256(identity.encode()).hexdigest()


def warm_endpoint(
    model: str,
    alias: str,
    path: Path,
    n_ctx: int,
    *,
    keep_alive: float | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
) -> ServerState:
    """The state of a running warm server for this model, started when needed.

    Thread- and process-safe: concurrent callers, here or in other processes,
    share one server. The calling process holds a lease on it until it exits.
    Raises :class:`LocalServerError` when a server cannot be started.
    """
    sha256 = model_hash(model, path)
    key = state_file.state_key(sha256)
    with _start_lock, state_file.locked(key):
        _take_lease(key)
        state = state_file.read_state(key)
        same = state is not None and (state.sha256, state.n_ctx) == (sha256, n_ctx)
        if state is not None and same and _answers(state, alias):
            found = state
        else:
            if state is not None:
                _terminate(state)
                state_file.state_path(key).unlink(missing_ok=True)
            seconds = keep_alive_seconds() if keep_alive is None else keep_alive
            with slow_step(f"Starting the local model server ({alias})"):
                found = _start(alias, path, n_ctx, sha256, seconds, startup_timeout)
    with _lock:
        _endpoints[f"{found.base_url}/v1"] = found
    return found


def endpoint_token(api_base: str) -> str | None:
    """The token of the warm server at ``api_base`` this process found, else None."""
    with _lock:
        state = _endpoints.get(api_base.rstrip("/"))
    return state.token if state is not None else None


def endpoint_ended(api_base: str) -> bool:
    """True when ``api_base`` is a warm server this process found and its process has
    ended since (stopped with ``praisonlike local stop``, crashed, killed): a new
    :func:`warm_endpoint` call starts another."""
    with _lock:
        state = _endpoints.get(api_base.rstrip("/"))
    return state is not None and not _running(state)


def endpoint_aliases() -> frozenset[str]:
    """The model aliases of the warm servers this process found."""
    with _lock:
        return frozenset(state.alias for state in _endpoints.values())


@dataclass(frozen=True)
class ServerStatus:
    """One warm server as ``praisonlike local status`` shows it."""

    state: ServerState
    alive: bool
    idle_seconds: float
    clients: int


def server_statuses() -> list[ServerStatus]:
    """Every warm server with a state file (a dead one with ``alive=False``)."""
    statuses = []
    for state in state_file.all_states():
        active = state_file.last_active(state.key) or state.started_at
        statuses.append(
            ServerStatus(
                state=state,
                alive=state_file.pid_alive(state.pid),
                idle_seconds=max(0.0, time.time() - active),
                clients=state_file.live_leases(state.key),
            )
        )
    return statuses


def stop_servers(alias: str | None = None) -> list[ServerState]:
    """Stop the warm servers (of model ``alias`` only, when given) and remove
    their state files; returns the states of those that were running."""
    stopped = []
    for listed in state_file.all_states():
        if alias is not None and listed.alias != alias:
            continue
        with state_file.locked(listed.key):
            state = state_file.read_state(listed.key)
            if state is None:
                continue
            if _terminate(state):
                stopped.append(state)
            state_file.state_path(state.key).unlink(missing_ok=True)
    return stopped


def _take_lease(key: str) -> None:
    pid = os.getpid()
    if (key, pid) not in _leases:
        _leases[(key, pid)] = state_file.add_lease(key, pid)


def _drop_leases() -> None:
    pid = os.getpid()
    for (_, owner), lease in list(_leases.items()):
        if owner == pid:
            with contextlib.suppress(OSError):
                lease.unlink()


atexit.register(_drop_leases)


def _answers(state: ServerState, alias: str) -> bool:
    """``state``'s process is alive, runs the server for its hash, and serves
    ``alias`` with the token."""
    if state.alias != alias or not _running(state):
        return False
    request = urllib.request.Request(
        f"{state.base_url}/v1/models", headers={"Authorization": f"Bearer {state.token}"}
    )
    try:
        with LOOPBACK_OPENER.open(request, timeout=30) as response:
            body = json.loads(response.read() or b"{}")
    except (urllib.error.URLError, OSError, ValueError):
        return False
    served = {entry.get("id") for entry in body.get("data", []) if isinstance(entry, dict)}
    return alias in served


def _running(state: ServerState) -> bool:
    """``state``'s process is alive and (where that can be told) the keepalive server
    for its model's hash, not another process that took the pid since."""
    return state_file.pid_alive(state.pid) and (
        state_file.is_server_process(state.pid, state.sha256) is not False
    )


def _terminate(state: ServerState) -> bool:
    """End ``state``'s process if it is a keepalive server; True when one was running."""
    if not state_file.pid_alive(state.pid) or state_file.is_server_process(state.pid) is False:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(state.pid, signal.SIGTERM)
    if not state_file.wait_for_exit(state.pid, STOP_TIMEOUT):
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGKILL)
        state_file.wait_for_exit(state.pid, 5.0)
    return True


def _start(
    alias: str, path: Path, n_ctx: int, sha256: str, keep_alive: float, timeout: float
) -> ServerState:
    key = state_file.state_key(sha256)
    process = _spawn(alias, path, n_ctx, sha256, keep_alive)
    deadline = time.monotonic() + timeout
    while True:
        state = state_file.read_state(key)
        if state is not None and state.pid == process.pid and _answers(state, alias):
            threading.Thread(
                target=process.wait, name="praisonlike-keepalive-reaper", daemon=True
            ).start()
            return state
        code = process.poll()
        if code is not None or time.monotonic() >= deadline:
            if code is None:
                process.kill()
                process.wait()
            reason = (
                f"exited with code {code}"
                if code is not None
                else f"not ready after {timeout:.0f}s"
            )
            raise LocalServerError(
                f"the local model server for {alias} {reason}; see {state_file.log_path(key)}: "
                f"{_log_tail(key)}"
            )
        time.sleep(0.1)


def _spawn(
    alias: str, path: Path, n_ctx: int, sha256: str, keep_alive: float
) -> subprocess.Popen[bytes]:
    folder = state_file.private_state_dir()
    key = state_file.state_key(sha256)
    env = dict(os.environ)
    env[state_file.STATE_DIR_ENV] = str(folder)
    package_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-m",
        state_file.KEEPALIVE_MODULE,
        "--model-path",
        str(path),
        "--alias",
        alias,
        "--sha256",
        sha256,
        "--n-ctx",
        str(n_ctx),
        "--keep-alive",
        repr(keep_alive),
    ]
    log = os.open(state_file.log_path(key), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    finally:
        os.close(log)


def _log_tail(key: str, limit: int = 600) -> str:
    try:
        text = state_file.log_path(key).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-3:])[-limit:] or "(empty log)"
