"""startup_timeout bounds the whole start: spawn or connect, handshake, listing, and the cleanup."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from stalled_server import handshake_answer

from praisonlike.tools.mcp import MCPServerError, MCPTools

pytest.importorskip("mcp", reason="needs the mcp package (praisonlike[mcp])")

STALLED_SERVER = Path(__file__).with_name("stalled_server.py")


@pytest.mark.skipif(sys.platform == "win32", reason="the stub records SIGTERM")
@pytest.mark.parametrize(
    ("stage", "phase"),
    [("handshake", "complete the handshake"), ("list", "list its tools")],
)
def test_a_stalled_stdio_server_is_killed_at_the_startup_timeout(
    tmp_path: Path, stage: str, phase: str
) -> None:
    tools = MCPTools([sys.executable, str(STALLED_SERVER), stage, str(tmp_path)], startup_timeout=3)
    with pytest.raises(MCPServerError) as caught:
        tools.as_tools()

    assert f"did not {phase} within startup_timeout=3s" in str(caught.value)
    assert caught.value.server == tools.server
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not (tmp_path / "events").exists(), "killed outright: no stdin grace, no SIGTERM"
    tools.close()


def test_an_http_server_that_never_answers_fails_at_the_startup_timeout() -> None:
    accepted: list[socket.socket] = []
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def accept() -> None:
            while True:
                try:
                    accepted.append(listener.accept()[0])
                except OSError:
                    return

        threading.Thread(target=accept, daemon=True).start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        with pytest.raises(MCPServerError) as caught:
            MCPTools(url=url, startup_timeout=1).as_tools()

    assert "did not complete the handshake within startup_timeout=1s" in str(caught.value)
    assert caught.value.server == url
    assert accepted, "the client never connected"
    for connection in accepted:
        with connection:
            connection.settimeout(30)
            assert read_until_closed(connection), "the client left its connection open"


def read_until_closed(connection: socket.socket) -> bool:
    try:
        while connection.recv(65536):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


class HandshakeOnlyHandler(BaseHTTPRequestHandler):
    """Streamable HTTP that answers the handshake, then holds every request until released."""

    protocol_version = "HTTP/1.1"
    release = threading.Event()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in message:
            self.reply(202)
            return
        answer = handshake_answer(message)
        if answer is None:
            self.release.wait()
            return
        self.reply(200, answer)

    def do_GET(self) -> None:
        self.reply(405)

    def do_DELETE(self) -> None:
        self.release.wait()

    def reply(self, status: int, body: dict[str, Any] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Mcp-Session-Id", "stalled-session")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def handshake_only_url() -> Iterator[str]:
    HandshakeOnlyHandler.release.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), HandshakeOnlyHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        HandshakeOnlyHandler.release.set()
        server.shutdown()
        server.server_close()


def test_an_http_server_that_never_lists_fails_at_the_startup_timeout(
    handshake_only_url: str,
) -> None:
    with pytest.raises(MCPServerError) as caught:
        MCPTools(url=handshake_only_url, startup_timeout=2).as_tools()

    assert "did not list its tools within startup_timeout=2s" in str(caught.value)
