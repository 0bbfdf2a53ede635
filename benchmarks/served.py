"""The benchmarks' LocalLLMServer, run in a process of its own.

Every benchmark talks to a :class:`~praisonlike.testing.LocalLLMServer` that
lives in a child process, so the server's work never competes for the
client's GIL and its allocations never show up in the client's memory
figures. The server answers a one-tool turn without a script: a request that
offers tools and does not end with a tool result gets a call of ``add``; any
other request gets :data:`ANSWER`. The call always has the id ``call_add``, so
two turns with the same prompt send identical messages.

:func:`server_round_trip` measures the server's own time: the round trip of a
request sent from a bare ``http.client`` connection, which is what a client
that costs nothing would wait for.

Run as a script it is the child: it prints the port, serves until its stdin
is closed, then prints a JSON summary (requests served, server-side errors).
"""

from __future__ import annotations

import compileall
import http.client
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

ANSWER = "The sum is 3."
MODEL = "gpt-4o-mini"
"""Sent as ``openai/gpt-4o-mini``: LiteLLM knows its window, so no context warning."""
ANTHROPIC_MODEL = "claude-haiku-4-5"
"""Sent as ``anthropic/claude-haiku-4-5`` on the server's Messages wire (through LiteLLM)."""
CHAT_PATH = "/v1/chat/completions"
MESSAGES_PATH = "/v1/messages"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def respond(request: Any) -> Any:
    """The answer to ``request`` (see the module docstring), on either wire."""
    from praisonlike.testing import Call, Text, ToolCalls

    messages = request.messages
    if request.tools and messages and not _is_tool_result(messages[-1]):
        return ToolCalls([Call("add", {"a": 1, "b": 2}, id="call_add")])
    return Text(ANSWER)


def _is_tool_result(message: Mapping[str, Any]) -> bool:
    """A tool message (OpenAI wire), or a user message of ``tool_result`` blocks (Anthropic)."""
    content = message.get("content")
    return message.get("role") == "tool" or (
        isinstance(content, list)
        and any(isinstance(part, dict) and part.get("type") == "tool_result" for part in content)
    )


def bench_env() -> dict[str, str]:
    """The environment every benchmark process runs with (no remote calls, local price map)."""
    env = dict(os.environ)
    env.setdefault("PRAISONLIKE_ALLOW_MODEL_REQUESTS", "0")
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return env


def compile_praisonlike() -> None:
    """Write the ``.pyc`` files of praisonlike, as ``pip install`` does for a wheel.

    The benchmarks that time a fresh process call this first: an editable
    checkout run with ``PYTHONDONTWRITEBYTECODE=1`` (as on this machine) would
    compile every praisonlike module from source at every start (about 80 ms)
    while the packages it is compared with were compiled when pip installed
    them.
    """
    spec = importlib.util.find_spec("praisonlike")
    assert spec is not None and spec.submodule_search_locations
    for folder in spec.submodule_search_locations:
        compileall.compile_dir(folder, quiet=1)


class ServerProcess:
    """A LocalLLMServer in a child process; use as a context manager."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self.port = 0
        self.summary: dict[str, Any] = {}
        """After the block: ``requests`` served and the server's ``errors`` (first ten)."""

    def __enter__(self) -> ServerProcess:
        process = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=bench_env(),
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip().isdigit():
            process.kill()
            raise RuntimeError(f"the benchmark server did not start (it printed {line!r})")
        self._process = process
        self.port = int(line)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        process = self._process
        if process is None:
            return
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        try:
            last = process.stdout.read().strip().splitlines()
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            last = []
        self._process = None
        if last:
            self.summary = json.loads(last[-1])

    def describe(self) -> str:
        """One line saying what the server saw (call after the ``with`` block)."""
        errors = self.summary.get("errors") or []
        shown = "; ".join(errors[:3])
        return (
            f"server: {self.summary.get('requests', '?')} requests, "
            f"{self.summary.get('error_count', '?')} server-side errors"
            + (f" ({shown})" if shown else "")
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def llm_config(self, *, anthropic: bool = False) -> dict[str, str]:
        """The ``llm=`` dict of an agent on this server (``anthropic``: ``anthropic/...`` on
        its Messages wire, always through LiteLLM)."""
        if anthropic:
            root = f"http://127.0.0.1:{self.port}"
            return {"model": f"anthropic/{ANTHROPIC_MODEL}", "api_base": root, "api_key": "sk-ant"}
        return {"model": f"openai/{MODEL}", "api_base": self.url, "api_key": "sk-test"}


def request_bodies(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]], *, stream: bool
) -> list[bytes]:
    """The JSON bodies of a one-tool turn's two requests, as a bare client would send them."""
    first: dict[str, Any] = {"model": MODEL, "messages": list(messages), "tools": list(tools)}
    if stream:
        first["stream"] = True
        first["stream_options"] = {"include_usage": True}
    call = {
        "id": "call_add",
        "type": "function",
        "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
    }
    second = dict(first)
    second["messages"] = [
        *messages,
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_add", "content": "3"},
    ]
    return [json.dumps(first).encode(), json.dumps(second).encode()]


def server_round_trip(
    port: int, bodies: Sequence[bytes], repeats: int, *, path: str = CHAT_PATH
) -> list[float]:
    """Seconds taken by ``bodies`` sent in turn to ``path`` on one kept-alive connection,
    per repeat."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-test"}
    times: list[float] = []
    try:
        for _ in range(repeats):
            started = time.perf_counter()
            for body in bodies:
                connection.request("POST", path, body=body, headers=headers)
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    raise RuntimeError(f"the benchmark server answered {response.status}")
            times.append(time.perf_counter() - started)
    finally:
        connection.close()
    return times


def median_round_trip(port: int, bodies: Sequence[bytes], repeats: int = 200) -> float:
    """The median of :func:`server_round_trip` after a short warm-up."""
    server_round_trip(port, bodies, 10)
    return statistics.median(server_round_trip(port, bodies, repeats))


def _serve() -> None:
    from praisonlike.testing import LocalLLMServer

    with LocalLLMServer(default=respond, max_recorded=0) as server:
        print(server.port, flush=True)
        sys.stdin.read()
        errors = server.errors
        summary = {
            "requests": server.request_count,
            "error_count": len(errors),
            "errors": errors[:10],
        }
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    _serve()
