"""The warm local model server: shared by processes, token-guarded, stopped on demand or when idle.

Each test starts the real model at most once, in separate client processes,
with its own state folder; the fixture stops whatever it started, also when the
test fails.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from praisonlike.models.local import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, is_local_available
from praisonlike.models.local.state_file import (
    STATE_DIR_ENV,
    ServerState,
    pid_alive,
    state_key,
    wait_for_exit,
    write_state,
)
from praisonlike.models.local.warm_server import KEEP_ALIVE_ENV

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not is_local_available(), reason="needs pip install 'praisonlike[local]'"),
    pytest.mark.skipif(os.name != "posix", reason="warm servers need POSIX"),
]

CLIENT = """
import json
from praisonlike.models.local import local_endpoint
from praisonlike.models.local.warm_server import endpoint_token
model, api_base = local_endpoint("local")
print(json.dumps({"model": model, "api_base": api_base, "token": endpoint_token(api_base)}))
"""
KEY = state_key(LOCAL_MODELS[DEFAULT_LOCAL_MODEL].sha256)
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture
def state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "servers"
    monkeypatch.setenv(STATE_DIR_ENV, str(folder))
    monkeypatch.setenv("PRAISONLIKE_PROGRESS", "0")
    try:
        yield folder
    finally:
        cli(["local", "stop"], folder)


def environment(folder: Path, keep_alive: str = "2m") -> dict[str, str]:
    return {**os.environ, STATE_DIR_ENV: str(folder), KEEP_ALIVE_ENV: keep_alive}


def start_client(folder: Path, keep_alive: str = "2m") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLIENT],
        env=environment(folder, keep_alive),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def client_result(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def cli(argv: list[str], folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "praisonlike.cli", *argv],
        env=environment(folder),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def state_on_disk(folder: Path) -> dict[str, Any]:
    return json.loads((folder / f"{KEY}.json").read_text())


def status_of(url: str, token: str | None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with NO_PROXY.open(urllib.request.Request(url, headers=headers), timeout=30) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_processes_share_one_server_that_needs_the_token_and_stops_on_demand(
    state_folder: Path,
) -> None:
    racing = [start_client(state_folder), start_client(state_folder)]
    first, second = (client_result(process) for process in racing)
    assert first == second
    assert first["model"] == f"openai/{DEFAULT_LOCAL_MODEL}"
    on_disk = state_on_disk(state_folder)
    assert first["api_base"] == f"http://127.0.0.1:{on_disk['port']}/v1"
    assert first["token"] == on_disk["token"]
    assert pid_alive(on_disk["pid"])

    assert client_result(start_client(state_folder)) == first
    answer = cli(["chat", "What is the capital of France?", "--model", "local"], state_folder)
    assert "Paris" in answer
    assert state_on_disk(state_folder)["pid"] == on_disk["pid"]

    assert stat.S_IMODE(state_folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((state_folder / f"{KEY}.json").stat().st_mode) == 0o600
    models = f"{first['api_base']}/models"
    assert status_of(models, None) == 401
    assert status_of(models, "not-the-token") == 401
    assert status_of(models, first["token"]) == 200

    shown = cli(["local", "status"], state_folder)
    assert DEFAULT_LOCAL_MODEL in shown and str(on_disk["pid"]) in shown
    assert first["token"] not in shown

    stopped = cli(["local", "stop"], state_folder)
    assert f"pid {on_disk['pid']}" in stopped
    assert not pid_alive(on_disk["pid"])
    assert not (state_folder / f"{KEY}.json").exists()
    assert "no warm local model server" in cli(["local", "status"], state_folder)


def test_a_stale_state_file_is_replaced_and_an_idle_server_leaves(state_folder: Path) -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    stale = ServerState(
        pid=ended.pid,
        port=9,
        alias=DEFAULT_LOCAL_MODEL,
        sha256=LOCAL_MODELS[DEFAULT_LOCAL_MODEL].sha256,
        model_path="/nowhere.gguf",
        n_ctx=4096,
        token="stale",
        keep_alive=120.0,
        started_at=0.0,
    )
    write_state(stale)

    found = client_result(start_client(state_folder, keep_alive="3s"))

    on_disk = state_on_disk(state_folder)
    assert on_disk["pid"] != ended.pid and pid_alive(on_disk["pid"])
    assert found["api_base"] == f"http://127.0.0.1:{on_disk['port']}/v1"
    assert found["token"] == on_disk["token"] != "stale"
    assert on_disk["keep_alive"] == 3.0
    assert wait_for_exit(on_disk["pid"], timeout=120), "the idle server did not exit"
    deadline = time.monotonic() + 10
    while (state_folder / f"{KEY}.json").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (state_folder / f"{KEY}.json").exists()


AGENT_CLIENT = """
import json, sys
from praisonlike import Agent
from praisonlike.models.local.state_file import all_states
from praisonlike.models.local.warm_server import stop_servers

llm = sys.argv[1] or None  # None: the default model, PRAISONLIKE_MODEL=local
agent = Agent(instructions="Answer in a few words.", llm=llm)
first = agent.chat("What is the capital of France?")
(before,) = all_states()
stop_servers()  # as `praisonlike local stop` in another terminal
second = agent.chat("What is the capital of Italy?")
(after,) = all_states()
print(json.dumps({"answers": [first, second], "pids": [before.pid, after.pid]}))
"""


@pytest.mark.parametrize("llm", ["local", ""], ids=["llm=local", "default model"])
def test_an_agent_whose_warm_server_was_stopped_starts_a_new_one_at_its_next_turn(
    state_folder: Path, llm: str
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", AGENT_CLIENT, llm],
        env={
            **environment(state_folder),
            "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "1",
            "PRAISONLIKE_MODEL": "local",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    result = client_result(process)
    first, second = result["answers"]
    assert "Paris" in first
    assert "Rome" in second
    before, after = result["pids"]
    assert before != after
    assert not pid_alive(before) and pid_alive(after)
    assert state_on_disk(state_folder)["pid"] == after
