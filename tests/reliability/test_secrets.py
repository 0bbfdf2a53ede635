"""A canary API key never leaks: not into logs, events, stored steps, errors, repr or the CLI.

The agent talks to LocalLLMServer with ``api_key=CANARY`` through every fault
path of the fault matrix. The server sees the key in its ``Authorization``
header (the one place it must appear, checked as the positive control);
everything else is searched for it: log records of the ``praisonlike``,
LiteLLM, httpx and openai loggers at DEBUG, whatever reached stdout/stderr,
every event serialised, the SQLite files read as raw bytes, the error's
``str``/``repr``/traceback and its causes, ``repr(agent)`` and the result.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_support import FAULTS, SLOW, WAYS, add, call_timeout, run_turn

from praisonlike import Agent, ExecutionConfig, MemoryConfig
from praisonlike.events import LLMRequest
from praisonlike.testing import Call, LocalLLMServer, RecordedRequest, Text, ToolCalls
from praisonlike.testing.script import Response

CANARY = f"sk-canary-{uuid.uuid4().hex}"
LOGGERS = (
    "praisonlike",
    "LiteLLM",
    "LiteLLM Router",
    "LiteLLM Proxy",
    "httpx",
    "httpcore",
    "openai",
)


class Collecting(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def logs() -> Iterator[Collecting]:
    """Every record of the relevant loggers at DEBUG (message, arguments and traceback).

    The loggers' own handlers (LiteLLM's print to stderr) are swapped for the
    collecting one meanwhile, so nothing is written to a stream the test closes.
    """
    handler = Collecting()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    loggers = [logging.getLogger(name) for name in LOGGERS]
    saved = [(logger.level, list(logger.handlers)) for logger in loggers]
    for logger in loggers:
        logger.handlers = [handler]
        logger.setLevel(logging.DEBUG)
    yield handler
    for logger, (level, handlers) in zip(loggers, saved, strict=True):
        logger.handlers = handlers
        logger.setLevel(level)


def authorised(server: LocalLLMServer) -> bool:
    return any(r.headers.get("authorization") == f"Bearer {CANARY}" for r in server.requests)


def error_texts(error: BaseException | None) -> list[str]:
    texts: list[str] = []
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        texts += [str(error), repr(error), "".join(traceback.format_exception(error))]
        error = error.__cause__ or error.__context__
    return texts


def event_texts(events: list[Any]) -> list[str]:
    texts = [event.model_dump_json() for event in events] + [repr(event) for event in events]
    texts += [str(event.messages) for event in events if isinstance(event, LLMRequest)]
    return texts


class PrimaryFails:
    """A tool round, then the primary fails with ``fault`` every time; the fallback answers."""

    def __init__(self, fault: Response) -> None:
        self._fault = fault
        self._requests = 0

    def __call__(self, request: RecordedRequest) -> Response:
        if request.model != "test-model":
            return Text("the fallback answered")
        self._requests += 1
        if self._requests == 1:
            return ToolCalls([Call("add", {"a": 1, "b": 2})])
        return self._fault


def leaks(texts: list[str]) -> list[str]:
    return [text for text in texts if CANARY in text or CANARY[:20] in text]


def fault_paths() -> list[Any]:
    """Every fault x fallback x entry point under PRAISONLIKE_SLOW_TESTS=1; in CI one entry
    point per fault and fallback setting, rotated through all four."""
    params = []
    for number, (fault_id, fallback) in enumerate(
        (fault_id, fallback) for fault_id in [*FAULTS, "no-fault"] for fallback in (False, True)
    ):
        ways = WAYS if SLOW else [WAYS[number % len(WAYS)]]
        label = "with-fallback" if fallback else "alone"
        params += [
            pytest.param(fault_id, way, fallback, id=f"{fault_id}-{label}-{way}") for way in ways
        ]
    return params


@pytest.mark.parametrize(("fault_id", "way", "fallback"), fault_paths())
def test_the_key_never_leaks(
    server: LocalLLMServer,
    tmp_path: Path,
    logs: Collecting,
    capfd: pytest.CaptureFixture[str],
    fault_id: str,
    way: str,
    fallback: bool,
) -> None:
    if fault_id == "no-fault":
        server.extend([ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")])
    else:
        server.default = PrimaryFails(FAULTS[fault_id])
    events: list[Any] = []
    db = tmp_path / "sessions.db"
    agent = Agent(
        instructions="You answer.",
        llm={**server.llm_config(), "api_key": CANARY},
        tools=[add],
        fallback_models=["openai/other-model"] if fallback else None,
        execution=ExecutionConfig(max_retries=1, retry_base=0.01, timeout=call_timeout(fault_id)),
        session_id="secrets",
        memory=MemoryConfig(store=str(db), long_term=False),
        on_event=events.append,
    )

    run = run_turn(agent, way, "what is 1 + 2?")
    texts = [
        *logs.lines,
        *event_texts(events),
        *event_texts(run.events),
        *error_texts(run.error),
        repr(agent),
        repr(agent.llm_config),
        str(agent.llm_config),
        str(dataclasses.asdict(agent.llm_config) if agent.llm_config else None),
        agent.last_result.model_dump_json() if agent.last_result else "",
        str(agent.cost_summary()),
        str(agent.chat_history),
    ]
    agent.close()
    captured = capfd.readouterr()
    texts += [captured.out, captured.err]
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("sessions.db*"))

    assert authorised(server)
    assert logs.lines
    assert leaks(texts) == []
    assert CANARY.encode() not in stored
    assert stored, "the session store was not written"


def run_cli(
    server: LocalLLMServer, tmp_path: Path, *arguments: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PRAISONLIKE_HOME": str(tmp_path / "home"),
        "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0",
    }
    command = [sys.executable, "-m", "praisonlike", "--debug", "chat", "what is 1 + 2?"]
    command += ["--model", "openai/test-model", "--api-base", server.url, *arguments]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path
    )


CLI_CASES: dict[str, tuple[list[Response], list[str]]] = {
    "answer-streamed": ([Text("3")], ["--api-key", CANARY]),
    "auth-fault-json": ([FAULTS["authentication"]], ["--api-key", CANARY, "--json"]),
    "bad-request-no-stream": ([FAULTS["bad_request"]], ["--api-key", CANARY, "--no-stream"]),
}


@pytest.mark.parametrize(("script", "arguments"), CLI_CASES.values(), ids=CLI_CASES.keys())
def test_the_cli_never_prints_the_key(
    server: LocalLLMServer, tmp_path: Path, script: list[Response], arguments: list[str]
) -> None:
    server.extend(script)

    finished = run_cli(server, tmp_path, "--session", "cli", *arguments)

    assert authorised(server)
    assert CANARY not in finished.stdout + finished.stderr
    assert CANARY[:20] not in finished.stdout + finished.stderr
    assert finished.returncode == (0 if isinstance(script[0], Text) else 1), finished.stderr
    stored = b"".join(path.read_bytes() for path in (tmp_path / "home").rglob("sessions.db*"))
    assert stored and CANARY.encode() not in stored


def test_the_cli_reads_the_key_from_the_environment_without_printing_it(
    server: LocalLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAISONLIKE_API_KEY", CANARY)
    server.add(FAULTS["authentication"])

    finished = run_cli(server, tmp_path)

    assert authorised(server)
    assert finished.returncode == 1
    assert CANARY not in finished.stdout + finished.stderr


@pytest.mark.parametrize("way", WAYS)
def test_a_key_quoted_in_a_tool_error_never_reaches_the_model(
    server: LocalLLMServer, way: str
) -> None:
    """A tool calling another service may raise with that service's key in the text:
    the model's provider gets the error with the key replaced."""
    other_key = f"sk-proj-{uuid.uuid4().hex}"

    def fetch(url: str) -> str:
        """Fetch a page.

        Args:
            url: The page.
        """
        raise RuntimeError(f"upstream refused api_key={other_key} (key {other_key})")

    server.extend([ToolCalls([Call("fetch", {"url": "https://example.invalid"})]), Text("ok")])
    agent = Agent(instructions="Use tools.", llm=server.llm_config(), tools=[fetch])

    run = run_turn(agent, way, "go")

    assert run.error is None, repr(run.error)
    sent = server.requests[1].messages[-1]["content"]
    assert sent.startswith("Error: tool 'fetch' raised RuntimeError: upstream refused")
    assert "[REDACTED]" in sent and other_key not in str(server.requests[1].body)
    assert other_key not in str(agent.chat_history)
