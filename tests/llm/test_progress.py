"""Progress of slow first-use steps: shown on a terminal (or when forced), silent otherwise."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from praisonlike._runtime.progress import PROGRESS_ENV, progress_enabled, slow_step
from praisonlike.models.local.model_file import LocalModelSpec, ensure_model_file


def make_part(root: Path, data: bytes, monkeypatch: pytest.MonkeyPatch, name: str) -> str:
    package = root / name
    package.mkdir()
    (package / "part.bin").write_bytes(data)
    (package / "__init__.py").write_text(
        "import os\ndef get_part_path():\n"
        "    return os.path.join(os.path.dirname(__file__), 'part.bin')\n"
    )
    monkeypatch.syspath_prepend(str(root))
    return name


def two_part_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalModelSpec:
    chunks = [b"GGUF" + b"x" * 100, b"y" * 50]
    parts = tuple(
        make_part(tmp_path, chunk, monkeypatch, f"progress_part_{i}")
        for i, chunk in enumerate(chunks)
    )
    whole = b"".join(chunks)
    return LocalModelSpec(
        name="tiny-progress",
        parts=parts,
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )


def test_silent_when_stderr_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    assert not progress_enabled()
    with slow_step("Loading"):
        pass
    assert capsys.readouterr() == ("", "")


def test_forced_on_shows_the_step_and_its_duration_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(PROGRESS_ENV, "1")
    with slow_step("Loading the thing"):
        pass
    out, err = capsys.readouterr()
    assert out == ""
    assert "Loading the thing: done in" in err


def test_a_failing_step_says_so_and_raises(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(PROGRESS_ENV, "1")
    with pytest.raises(KeyError), slow_step("Loading"):
        raise KeyError("x")
    assert "Loading: failed after" in capsys.readouterr().err


def test_forced_off_beats_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROGRESS_ENV, "0")
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert not progress_enabled()


def test_assembling_a_model_shows_progress_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(PROGRESS_ENV, "1")
    spec = two_part_spec(tmp_path, monkeypatch)
    ensure_model_file(spec, cache_dir=tmp_path / "cache")
    assert "Assembling the local model tiny-progress" in capsys.readouterr().err
    ensure_model_file(spec, cache_dir=tmp_path / "cache")
    assert capsys.readouterr().err == ""
