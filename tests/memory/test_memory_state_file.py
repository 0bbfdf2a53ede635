"""atomic_write_json / read_json: round trips, and never a partial file."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from praisonlike.memory import atomic_write_json, read_json
from praisonlike.memory import state_file as state_file_module


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_round_trip(tmp_path: Path) -> None:
    data: dict[str, Any] = {
        "name": "agent",
        "unicode": "héllo 世界",
        "nested": [1, 2.5, None, True, {"x": []}],
    }
    path = tmp_path / "state.json"
    atomic_write_json(path, data)
    assert read_json(path) == data
    atomic_write_json(str(path), [1, 2, 3])
    assert read_json(str(path)) == [1, 2, 3]
    assert _leftovers(tmp_path) == []


def test_creates_missing_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "state.json"
    atomic_write_json(path, {"ok": True})
    assert read_json(path) == {"ok": True}


def test_unserialisable_data_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    atomic_write_json(path, {"v": 1})
    with pytest.raises(TypeError):
        atomic_write_json(path, {"v": object()})
    with pytest.raises(ValueError):
        atomic_write_json(path, {"v": float("nan")})
    assert read_json(path) == {"v": 1}
    assert _leftovers(tmp_path) == []


def test_writes_a_complete_temp_file_in_the_same_folder_then_renames(
    tmp_path: Path, monkeypatch
) -> None:
    path = tmp_path / "state.json"
    atomic_write_json(path, {"v": "old"})
    seen: list[tuple[Path, object, object]] = []
    real_replace = os.replace

    def spying_replace(src, dst) -> None:
        seen.append((Path(src), read_json(src), read_json(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(state_file_module.os, "replace", spying_replace)
    atomic_write_json(path, {"v": "new"})
    ((temp, temp_content, target_content_before),) = seen
    assert temp.parent == tmp_path and temp != path
    assert temp_content == {"v": "new"}
    assert target_content_before == {"v": "old"}
    assert read_json(path) == {"v": "new"}


def test_a_failed_rename_keeps_the_old_file_and_cleans_up(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "state.json"
    atomic_write_json(path, {"v": "old"})

    def failing_replace(src, dst) -> None:
        raise OSError("rename failed")

    monkeypatch.setattr(state_file_module.os, "replace", failing_replace)
    with pytest.raises(OSError, match="rename failed"):
        atomic_write_json(path, {"v": "new"})
    assert read_json(path) == {"v": "old"}
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_permissions(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.json"
    atomic_write_json(fresh, {})
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    shared = tmp_path / "shared.json"
    shared.write_text("{}")
    shared.chmod(0o644)
    atomic_write_json(shared, {"v": 1})
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644


def test_read_json_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"half": ')
    with pytest.raises(json.JSONDecodeError):
        read_json(broken)


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_a_killed_writer_never_leaves_a_partial_file(
    tmp_path: Path, start_worker, wait_for_line
) -> None:
    path = tmp_path / "state.json"
    for attempt in range(6):
        worker = start_worker("json-forever", str(path))
        wait_for_line(worker, "ready")
        time.sleep(0.015 * attempt)
        os.kill(worker.pid, signal.SIGKILL)
        worker.communicate(timeout=30)
        data = read_json(path)
        assert data["index"] in (0, 1)
        assert len(data["items"]) == 5000
        assert all(item.startswith(f"{data['index']}-") for item in data["items"])
