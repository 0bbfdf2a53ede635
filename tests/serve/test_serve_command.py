"""``praisonlike serve``: a real Uvicorn process serving MODULE:AGENT or the quickstart agent."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from serve_support import Running, stream_run

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
