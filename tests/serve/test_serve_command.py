"""``praisonlike serve``: a real Uvicorn process serving MODULE:AGENT or the quickstart agent."""

from __future__ import annotations

import os
import queue
import re
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from serve_support import Running, stream_run

from praisonlike import Agent
from praisonlike.errors import ConfigurationError
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "praisonlike", "serve", *arguments]


def environment(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PRAISONLIKE_HOME": str(tmp_path / "home"),
        "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0",
        "PYTHONPATH": str(tmp_path),
    }


@contextmanager
def serve(tmp_path: Path, *arguments: str) -> Iterator[tuple[Running, subprocess.Popen[str]]]:
    port = free_port()
    process = subprocess.Popen(
        command(*arguments, "--port", str(port)),
        cwd=tmp_path,
        env=environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            assert process.poll() is None, process.communicate()
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.1)
        yield Running(url=url, app=None), process
    finally:
        process.terminate()
        process.wait(30)


def test_serve_module_agent_answers_runs_and_says_it_has_no_auth(
    server: LocalLLMServer, tmp_path: Path
) -> None:
    (tmp_path / "myapp.py").write_text(
        textwrap.dedent(
            f"""
            from praisonlike import Agent

            agent = Agent(instructions="Echo.", llm={server.llm_config()!r})
            """
        )
    )
    server.add(Text("Hello from the module agent."))
    with serve(tmp_path, "myapp:agent") as (running, process), running.client() as client:
        messages = stream_run(client, {"input": "Hi"})
        page = client.get("/")
    assert messages[-1].data["termination_reason"] == "completed"
    text = "".join(m.data["text"] for m in messages if m.event == "text_delta")
    assert text == "Hello from the module agent."
    assert page.status_code == 200 and "<html" in page.text.lower()
    _, err = process.communicate(timeout=30)
    assert "no auth: loopback only" in err


def test_serve_model_runs_the_quickstart_weather_agent(
    server: LocalLLMServer, tmp_path: Path
) -> None:
    server.add(ToolCalls([Call("get_weather", {"city": "Paris"})]), Text("Sunny, 26c."))
    arguments = ("--model", "openai/test-model", "--api-base", server.url, "--api-key", "sk-test")
    with serve(tmp_path, *arguments) as (running, _), running.client() as client:
        messages = stream_run(client, {"input": "Weather in Paris?"})
    results = [m.data["result"] for m in messages if m.event == "tool_result"]
    assert results == ["Paris: sunny, 26c"]


def test_an_agent_on_the_direct_transport_is_served_without_litellm(
    server: LocalLLMServer, tmp_path: Path
) -> None:
    """Start-up waits for LiteLLM's import only when the agent's model needs it: an
    OpenAI-wire endpoint is served (and answers) with LiteLLM never imported."""
    (tmp_path / "direct.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            from praisonlike import Agent

            def litellm_imported() -> str:
                \"\"\"Whether LiteLLM is imported in this process.\"\"\"
                return str("litellm" in sys.modules)

            agent = Agent(
                instructions="Check.", llm={server.llm_config()!r}, tools=[litellm_imported]
            )
            """
        )
    )
    server.add(ToolCalls([Call("litellm_imported", {})]), Text("Checked."))
    with serve(tmp_path, "direct:agent") as (running, _), running.client() as client:
        messages = stream_run(client, {"input": "Is LiteLLM imported?"})
    results = [m.data["result"] for m in messages if m.event == "tool_result"]
    assert results == ["False"]
    assert messages[-1].data["termination_reason"] == "completed"


def run(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*arguments),
        cwd=tmp_path,
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_serving_off_loopback_without_tokens_is_refused(tmp_path: Path) -> None:
    proc = run(tmp_path, "--model", "openai/test-model", "--host", "0.0.0.0")
    assert proc.returncode == 2
    assert "without auth" in proc.stderr and "--tokens" in proc.stderr


def test_a_bad_tokens_file_is_refused_without_showing_it(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text('{"tok-secret-value": ')
    proc = run(tmp_path, "--model", "openai/test-model", "--tokens", str(tokens))
    assert proc.returncode == 2
    assert "not valid JSON" in proc.stderr
    assert "tok-secret-value" not in proc.stderr + proc.stdout


def test_a_target_that_is_not_an_agent_or_missing_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "notagent.py").write_text("thing = 42\n")
    wrong = run(tmp_path, "notagent:thing")
    missing = run(tmp_path, "notagent:agent")
    neither = run(tmp_path)
    assert (wrong.returncode, missing.returncode, neither.returncode) == (2, 2, 2)
    assert "not an Agent" in wrong.stderr
    assert "no attribute 'agent'" in missing.stderr
    assert "MODULE:AGENT" in neither.stderr


def test_a_target_without_its_agent_names_the_agents_the_module_has(tmp_path: Path) -> None:
    (tmp_path / "desk.py").write_text(
        "from praisonlike import Agent\n"
        "def helper(): pass\n"
        "support = Agent(instructions='You help.', llm='openai/test-model')\n"
        "sales = Agent(instructions='You sell.', llm='openai/test-model')\n"
    )
    (tmp_path / "plain.py").write_text("def helper(): pass\n")
    bare, misspelt, none = run(tmp_path, "desk"), run(tmp_path, "desk:sale"), run(tmp_path, "plain")
    assert (bare.returncode, misspelt.returncode, none.returncode) == (2, 2, 2)
    assert bare.stderr.strip() == (
        "praisonlike: error: 'desk': expected MODULE:AGENT or FILE.py:AGENT, e.g. myapp:agent; "
        "desk has sales, support: e.g. desk:sales"
    )
    assert "'desk' has no attribute 'sale' (did you mean 'sales'?)" in misspelt.stderr
    assert "plain has no Agent at its top level" in none.stderr


class StartedServe:
    """``praisonlike serve`` in a subprocess, its stderr read line by line on a thread."""

    def __init__(self, tmp_path: Path, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=tmp_path,
            env=environment(tmp_path),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def serving_line(self) -> str | None:
        """The ``serving ... on URL`` line, or None when the command ended without one."""
        while (line := self.lines.get(timeout=120)) is not None:
            self.seen.append(line)
            if line.startswith("praisonlike: serving "):
                return line
        return None

    def stop(self) -> str:
        """Stop the server (once); everything it wrote on stderr."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)
            self._reader.join(30)
            while (line := self.lines.get(timeout=30)) is not None:
                self.seen.append(line)
        return "\n".join(self.seen)


@contextmanager
def started(tmp_path: Path, *arguments: str) -> Iterator[StartedServe]:
    serving = StartedServe(tmp_path, command(*arguments))
    try:
        yield serving
    finally:
        serving.stop()


def url_of(line: str) -> str:
    found = re.search(r" on (http://\S+) ", line)
    assert found, line
    return found.group(1)


def test_the_url_answers_as_soon_as_the_serving_line_is_printed(tmp_path: Path) -> None:
    port = free_port()
    with started(tmp_path, "--model", "openai/test-model", "--port", str(port)) as serving:
        line = serving.serving_line()
        assert line is not None, serving.seen
        health = httpx.get(f"{url_of(line)}/v1/health", timeout=10)
    assert url_of(line) == f"http://127.0.0.1:{port}"
    assert health.json() == {"status": "ok"}


def test_an_ipv6_host_is_printed_in_brackets_and_port_0_as_the_port_it_got(
    tmp_path: Path,
) -> None:
    with started(
        tmp_path, "--model", "openai/test-model", "--host", "::1", "--port", "0"
    ) as serving:
        line = serving.serving_line()
        assert line is not None, serving.seen
        url = url_of(line)
        health = httpx.get(f"{url}/v1/health", timeout=10)
    assert re.fullmatch(r"http://\[::1\]:[1-9][0-9]*", url), url
    assert health.status_code == 200


def test_failures_are_logged_on_stderr_with_their_traceback_and_no_secret(
    tmp_path: Path,
) -> None:
    (tmp_path / "brokenapp.py").write_text(
        textwrap.dedent(
            """
            from praisonlike import Agent

            class Broken(Agent):
                def agent_for_run(self, **kwargs):
                    raise RuntimeError("factory broke, key sk-proj-abcdefghijklmnop1234")

            agent = Broken(instructions="Echo.", llm="openai/test-model")
            """
        )
    )
    with started(tmp_path, "brokenapp:agent", "--port", "0") as serving:
        line = serving.serving_line()
        assert line is not None, serving.seen
        response = httpx.post(f"{url_of(line)}/v1/runs", json={"input": "Hi"}, timeout=30)
        assert response.status_code == 500
        assert response.json()["error"]["message"] == "RuntimeError (see the server's log)"
        err = serving.stop()
    assert "praisonlike: warning: no tokens configured" in err
    logged = err[err.index("praisonlike: error: request failed") :]
    assert "Traceback (most recent call last):" in logged
    assert "RuntimeError: factory broke, key " in logged
    assert "abcdefghijklmnop1234" not in err


def test_a_port_out_of_range_is_refused_when_the_arguments_are_parsed(tmp_path: Path) -> None:
    proc = run(tmp_path, "--model", "openai/test-model", "--port", "99999")
    assert proc.returncode == 2
    assert "argument --port: 99999 is not a port: use 0..65535" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_port_in_use_is_one_line_and_exit_2_before_anything_is_served(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run(tmp_path, "--model", "openai/test-model", "--port", str(port))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"praisonlike: error: cannot listen on http://127.0.0.1:{port}: Address already in use; "
        "pass another --port (0 picks a free one)"
    ]


def test_a_file_path_target_is_loaded_from_the_file(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "myapp.py").write_text("agent = None\n")
    proc = run(tmp_path, "apps/myapp.py:agent")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "praisonlike: error: 'apps/myapp.py:agent' is a NoneType, not an Agent"
    ]


def test_a_missing_sse_starlette_stops_the_command_before_it_serves(tmp_path: Path) -> None:
    without_sse = (
        "import sys; sys.modules['sse_starlette'] = None; from praisonlike.cli import main; "
        "sys.exit(main(['serve', '--model', 'openai/test-model', '--port', '0']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", without_sse],
        cwd=tmp_path,
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "praisonlike: error: serving needs sse_starlette",
        "praisonlike: hint: install the serve extra: pip install 'praisonlike[serve]'",
    ]


def test_to_asgi_without_the_serve_extra_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "sse_starlette", None)
    agent = Agent(instructions="Echo.", llm="openai/test-model")
    with pytest.raises(
        ConfigurationError, match=r"sse_starlette.*pip install 'praisonlike\[serve\]'"
    ):
        agent.to_asgi()
