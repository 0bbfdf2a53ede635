"""The warm local server's settings and state files, without starting a model."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from praisonlike.cli import main
from praisonlike.errors import ConfigurationError
from praisonlike.models.local import state_file
from praisonlike.models.local.state_file import STATE_DIR_ENV, ServerState
from praisonlike.models.local.warm_server import (
    DEFAULT_KEEP_ALIVE,
    KEEP_ALIVE_ENV,
    keep_alive_seconds,
    server_statuses,
    stop_servers,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="warm servers need POSIX")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "servers"
    monkeypatch.setenv(STATE_DIR_ENV, str(path))
    return path


def a_state(pid: int, sha256: str = "ab" * 32) -> ServerState:
    return ServerState(
        pid=pid,
        port=9,
        alias="tiny",
        sha256=sha256,
        model_path="/nowhere.gguf",
        n_ctx=2048,
        token="secret-token",
        keep_alive=300.0,
        started_at=0.0,
    )


def ended_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        (None, DEFAULT_KEEP_ALIVE),
        ("", DEFAULT_KEEP_ALIVE),
        ("0", 0.0),
        ("10", 600.0),
        ("0.5", 30.0),
        ("30s", 30.0),
        ("2m", 120.0),
        ("1h", 3600.0),
        ("-1", -1.0),
        ("-5m", -1.0),
    ],
)
def test_keep_alive_reads_durations(
    monkeypatch: pytest.MonkeyPatch, raw: str | None, seconds: float
) -> None:
    if raw is None:
        monkeypatch.delenv(KEEP_ALIVE_ENV, raising=False)
    else:
        monkeypatch.setenv(KEEP_ALIVE_ENV, raw)
    assert keep_alive_seconds() == seconds


@pytest.mark.parametrize("raw", ["soon", "5 minutes", "nan", "infm", "m"])
def test_a_bad_keep_alive_names_the_variable(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(KEEP_ALIVE_ENV, raw)
    with pytest.raises(ConfigurationError, match=KEEP_ALIVE_ENV):
        keep_alive_seconds()


def test_the_state_file_is_private(folder: Path) -> None:
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    state_file.write_state(a_state(12345))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    written = folder / f"{state_file.state_key('ab' * 32)}.json"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert state_file.read_state(state_file.state_key("ab" * 32)) == a_state(12345)


def test_a_torn_state_file_reads_as_none(folder: Path) -> None:
    state_file.private_state_dir()
    (folder / "abababababababab.json").write_text('{"pid": 1')
    assert state_file.read_state("abababababababab") is None
    assert state_file.all_states() == []


def test_stop_removes_a_stale_state_file_without_killing_anything(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state_file.write_state(a_state(ended_pid()))
    state_file.write_state(a_state(os.getpid(), sha256="cd" * 32))
    assert [status.alive for status in server_statuses()] == [False, True]
    assert stop_servers() == []
    assert state_file.all_states() == []
    assert main(["local", "stop"]) == 0
    assert "no warm local model server is running" in capsys.readouterr().out


def test_status_with_no_server(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["local", "status"]) == 0
    assert capsys.readouterr().out.strip() == "no warm local model server is running"


def test_a_lease_counts_while_its_process_lives(folder: Path) -> None:
    state_file.add_lease("k" * 16, os.getpid())
    dead = state_file.add_lease("k" * 16, ended_pid())
    assert state_file.live_leases("k" * 16) == 1
    assert not dead.exists()


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_only_a_keepalive_process_of_the_same_model_counts_as_its_server() -> None:
    code = "import time; print('up', flush=True); time.sleep(30)"
    argv = ["-c", code, "-m", state_file.KEEPALIVE_MODULE, "--sha256", "ab" * 32]
    fake = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, text=True)
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "up"
        assert state_file.is_server_process(fake.pid, "ab" * 32)
        assert state_file.is_server_process(fake.pid, "cd" * 32) is False
        assert state_file.is_server_process(os.getpid()) is False
    finally:
        fake.kill()
        fake.communicate()


def test_a_state_folder_that_cannot_be_made_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(STATE_DIR_ENV, str(blocker / "servers"))
    with pytest.raises(state_file.StateDirError, match=STATE_DIR_ENV):
        state_file.private_state_dir()
