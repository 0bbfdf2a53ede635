"""A stdio "MCP server" that stalls, for the startup_timeout tests.

    python stalled_server.py handshake RECORD_DIR   reads stdin, never writes
    python stalled_server.py list RECORD_DIR        answers the handshake, never tools/list

It writes its pid to ``RECORD_DIR/pid`` before anything else. It appends
``stdin closed`` to ``RECORD_DIR/events`` when its stdin ends and ``SIGTERM``
when it gets one (which it ignores), and goes on running: a server killed
outright records neither. The test's HTTP stub imports :func:`handshake_answer`.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any


def handshake_answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to a handshake request (a legacy server), else ``None``."""
    if message.get("method") == "server/discover":
        error = {"code": -32601, "message": "Method not found"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    if message.get("method") == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stalled", "version": "1"},
        }
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}
    return None


def main(stage: str, record_dir: Path) -> None:
    (record_dir / "pid").write_text(str(os.getpid()))

    def record(event: str) -> None:
        with open(record_dir / "events", "a", encoding="utf-8") as events:
            events.write(event + "\n")

    signal.signal(signal.SIGTERM, lambda signum, frame: record("SIGTERM"))
    for line in sys.stdin:
        answer = handshake_answer(json.loads(line)) if stage == "list" else None
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
    record("stdin closed")
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
