"""Fixtures of the memory tests.

``store`` runs every contract test once per entry of ``STORE_FACTORIES``; a new
backend (a PostgreSQL store, say) joins the whole suite by adding an entry.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from postgres_support import fresh_store

import praisonlike.memory
from praisonlike.memory import MessageStatus, SessionStore, SQLiteStore, StepRecord, TurnRecord

WORKER_SCRIPT = Path(__file__).with_name("store_worker.py")
REPO_ROOT = Path(praisonlike.memory.__file__).resolve().parents[2]

StoreFactory = Callable[[Path], SessionStore]

STORE_FACTORIES: dict[str, StoreFactory] = {
    "sqlite-file": lambda tmp: SQLiteStore(tmp / "sessions.db"),
    "sqlite-memory": lambda tmp: SQLiteStore(":memory:"),
    "postgres": lambda tmp: fresh_store(),
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: long-running stress test, run with PRAISONLIKE_SLOW_TESTS=1"
    )


@pytest.fixture(params=sorted(STORE_FACTORIES))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    made = STORE_FACTORIES[request.param](tmp_path)
    yield made
    made.close()


TurnFactory = Callable[..., TurnRecord]


@pytest.fixture
def make_turn() -> TurnFactory:
    """Build a turn with ``n_steps`` distinguishable steps and increasing ``created_at``."""
    counter = iter(range(1_000_000))

    def build(
        conversation_id: str = "conv",
        *,
        n_steps: int = 2,
        status: MessageStatus = MessageStatus.NORMAL,
        answer: str | None = None,
        **fields: Any,
    ) -> TurnRecord:
        index = next(counter)
        steps = [
            StepRecord(
                position=position,
                event_type="tool_call" if position % 2 == 0 else "tool_result",
                thought=f"thought {index}.{position}",
                observation=f"observation {index}.{position}",
                tool="search",
                tool_input={"query": f"q{index}", "page": position, "tags": ["a", "b"]},
                messages=[{"role": "user", "content": f"message {index}.{position}"}],
                prompt_tokens=10 + position,
                completion_tokens=5 + position,
                cost=0.001 * (position + 1),
                latency=0.25 * (position + 1),
            )
            for position in range(n_steps)
        ]
        values: dict[str, Any] = {
            "id": f"turn-{index:06d}",
            "conversation_id": conversation_id,
            "query": f"query {index}",
            "answer": f"answer {index}" if answer is None else answer,
            "status": status,
            "prompt_tokens": 100 + index,
            "completion_tokens": 50 + index,
            "cost": 0.01 * (index + 1),
            "latency": 1.5,
            "model": "gpt-4o-mini",
            "created_at": 1_700_000_000.0 + index,
            "steps": steps,
        }
        values.update(fields)
        return TurnRecord(**values)

    return build


@pytest.fixture
def start_worker() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start ``store_worker.py`` with the given arguments; kills leftovers at teardown."""
    started: list[subprocess.Popen[str]] = []
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))

    def start(*args: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, str(WORKER_SCRIPT), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


LineWaiter = Callable[[subprocess.Popen[str], str], None]


def _wait_for_line(process: subprocess.Popen[str], expected: str, timeout: float = 60.0) -> None:
    stdout = process.stdout
    assert stdout is not None
    found = threading.Event()

    def scan() -> None:
        for line in stdout:
            if line.strip() == expected:
                found.set()
                return

    scanner = threading.Thread(target=scan, daemon=True)
    scanner.start()
    scanner.join(timeout)
    if found.is_set():
        return
    if scanner.is_alive():
        pytest.fail(f"worker did not print {expected!r} within {timeout} s")
    process.wait(timeout=30)
    stderr = process.stderr.read() if process.stderr else ""
    pytest.fail(f"worker exited with {process.returncode} before {expected!r}: {stderr}")


@pytest.fixture
def wait_for_line() -> LineWaiter:
    """Block until a worker prints a line (fail if it exits first, or after a minute)."""
    return _wait_for_line
