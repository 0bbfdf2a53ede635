"""The warm local model server process: ``python -m praisonlike.models.local.keepalive``.

Started detached by :func:`praisonlike.models.local.warm_server.warm_endpoint`
(its own session, output to the model's log file). It loads the model into a
llama.cpp server on 127.0.0.1 and a free port that accepts only requests
carrying a token it makes up, writes the state file (pid, port, model, hash,
token; see :mod:`praisonlike.models.local.state_file`), and then watches:

- activity is a change in llama.cpp's ``/metrics`` counters or a request in
  progress; each sets the state file's modification time;
- it exits once nothing happened for ``--keep-alive`` seconds and no process
  holds a lease (a negative value: never), taking the model's file lock first
  so no client picks it up as it goes;
- it exits at SIGTERM/SIGINT (``praisonlike local stop``), or when its state
  file is gone or names another process.

It removes its state file (when it still names it) before the model is freed.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from praisonlike._runtime.loggers import get_logger
from praisonlike._runtime.loopback_http import LOOPBACK_OPENER
from praisonlike.models.local import state_file
from praisonlike.models.local.server import LlamaCppServer
from praisonlike.models.local.state_file import ServerState

_COUNTERS = (
    "llamacpp:prompt_tokens_total",
    "llamacpp:prompt_tokens_cached_total",
    "llamacpp:tokens_predicted_total",
    "llamacpp:n_decode_total",
    "llamacpp:requests_processing",
    "llamacpp:requests_deferred",
)
_IN_PROGRESS = ("llamacpp:requests_processing", "llamacpp:requests_deferred")


def poll_interval(keep_alive: float) -> float:
    """Seconds between two looks at the server: a tenth of a short keep-alive, else 1."""
    if keep_alive < 0 or keep_alive >= 10:
        return 1.0
    return max(0.1, keep_alive / 10)


def read_metrics(state: ServerState) -> dict[str, float] | None:
    """The activity counters of ``state``'s server; None when it does not answer."""
    request = urllib.request.Request(
        f"{state.base_url}/metrics", headers={"Authorization": f"Bearer {state.token}"}
    )
    try:
        with LOOPBACK_OPENER.open(request, timeout=30) as response:
            text = response.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return None
    values: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in _COUNTERS:
            try:
                values[name] = float(value)
            except ValueError:
                continue
    return values


class Watcher:
    """The idle clock of one server; :meth:`run` returns when the process should exit."""

    def __init__(self, state: ServerState, stop: threading.Event) -> None:
        self.state = state
        self.stop = stop
        self._counters: dict[str, float] | None = None
        self._busy_at = time.monotonic()

    def run(self) -> None:
        interval = poll_interval(self.state.keep_alive)
        while not self.stop.wait(interval):
            current = state_file.read_state(self.state.key)
            if current is None or current.pid != self.state.pid:
                return
            if self._requests_seen():
                state_file.mark_active(self.state.key)
                self._busy_at = time.monotonic()
            elif state_file.live_leases(self.state.key):
                self._busy_at = time.monotonic()
            elif self._idle_long_enough() and self._leave_if_still_idle():
                return

    def _requests_seen(self) -> bool:
        counters = read_metrics(self.state)
        if counters is None:
            return True
        previous, self._counters = self._counters, counters
        in_progress = any(counters.get(name, 0) > 0 for name in _IN_PROGRESS)
        return in_progress or (previous is not None and previous != counters)

    def _idle_long_enough(self) -> bool:
        keep_alive = self.state.keep_alive
        return keep_alive >= 0 and time.monotonic() - self._busy_at >= keep_alive

    def _leave_if_still_idle(self) -> bool:
        with state_file.locked(self.state.key, blocking=False) as held:
            if not held or state_file.live_leases(self.state.key) or self._requests_seen():
                return False
            state_file.remove_state(self.state.key, self.state.pid)
            return True


def serve(args: argparse.Namespace) -> int:
    """Load the model, publish the state file, watch until it is time to go."""
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    token = secrets.token_urlsafe(32)
    server = LlamaCppServer(
        Path(args.model_path), alias=args.alias, n_ctx=args.n_ctx, api_key=token, metrics=True
    )
    server.start()
    state = ServerState(
        pid=os.getpid(),
        port=_port_of(server.url),
        alias=server.alias,
        sha256=args.sha256,
        model_path=str(server.model_path),
        n_ctx=args.n_ctx,
        token=token,
        keep_alive=args.keep_alive,
        started_at=time.time(),
    )
    try:
        if not stop.is_set():
            state_file.write_state(state)
            get_logger("praisonlike.local.keepalive").info(
                "ready at %s, pid %d", state.base_url, state.pid
            )
            Watcher(state, stop).run()
    finally:
        state_file.remove_state(state.key, state.pid)
        server.stop()
    return 0


def _port_of(url: str) -> int:
    from urllib.parse import urlsplit

    port = urlsplit(url).port
    if port is None:
        raise ValueError(f"no port in {url}")
    return port


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m praisonlike.models.local.keepalive")
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--sha256", required=True)
    parser.add_argument("--n-ctx", type=int, required=True)
    parser.add_argument("--keep-alive", type=float, required=True, help="seconds; <0: never")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The process's entry point; its log (standard output, the model's log file)
    gets praisonlike's records from INFO on."""
    import logging

    os.umask(0o077)
    logging.basicConfig(
        stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s"
    )
    return serve(_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
