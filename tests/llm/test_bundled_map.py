"""LiteLLM's bundled model map, read entry by entry through an index kept on disk.

Every lookup must give what ``json.loads`` of the whole file gives; the index
is written once per file (path, size, modification time) under
``PRAISONLIKE_CACHE_DIR`` and read by later processes; a broken index, an
unwritable cache or an odd file never breaks a lookup.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from praisonlike.models import model_map
from praisonlike.models.bundled_map import BundledMap

# Unindented and nested entries, escapes, non-ASCII text: what a hand-edited map holds.
ODD_MAP = (
    "{\n"
    '    "gpt-test": {"max_input_tokens": 1000, "note": "caf\u00e9 \\u00e9t\u00e9"},\n'
    '"unindented-model": {\n        "litellm_provider": "anthropic",\n'
    '        "nested": {"gpt-test": {"max_input_tokens": 1}}\n    },\n'
    '    "with \\"quotes\\" and \\\\": {"mode": "chat"},\n'
    '    "mod\u00e8le-\u00e9": {"mode": "chat", "braces": "{}}{"},\n'
    '    "sample_spec": [1, 2, {"x": null}],\n'
    '    "plain": 3\n'
    "}\n"
)


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def test_every_entry_reads_as_json_loads_reads_it(tmp_path: Path) -> None:
    source = _write(tmp_path / "map.json", ODD_MAP)
    expected = json.loads(ODD_MAP)
    first = BundledMap(source, index_dir=tmp_path / "cache")
    again = BundledMap(source, index_dir=tmp_path / "cache")
    for table in (first, again):
        assert table.indexed
        assert list(table) == list(expected)
        assert len(table) == len(expected)
        assert {key: table[key] for key in table} == expected
        assert "unindented-model" in table
        assert "missing" not in table
        assert table.get("missing") is None
    assert again["gpt-test"] == {"max_input_tokens": 1000, "note": "café été"}
    assert dict(again.items()) == expected
    assert not again.indexed  # decoded whole for items(), then served from memory
    assert again["plain"] == 3


def test_the_real_map_matches_its_file_entry_for_entry(tmp_path: Path) -> None:
    path = model_map.bundled_map_path()
    if path is None:
        pytest.skip("LiteLLM is not installed")
    expected = json.loads(path.read_text(encoding="utf-8"))
    for _ in range(2):  # scanned, then read through the index
        table = BundledMap(path, index_dir=tmp_path)
        assert table.indexed
        assert list(table) == list(expected)
        assert all(table[key] == value for key, value in expected.items())


def test_the_index_is_reused_until_the_file_changes(tmp_path: Path) -> None:
    source = _write(tmp_path / "map.json", '{"a": {"n": 1}, "b": {"n": 2}}')
    cache = tmp_path / "cache"
    BundledMap(source, index_dir=cache)
    (index,) = (cache / "model-map").iterdir()
    stat = source.stat()
    # same size and modification time: the index is trusted, and it was used
    _write(source, '{"a": {"n": 7}, "b": {"n": 8}}')
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert BundledMap(source, index_dir=cache)["b"] == {"n": 8}
    # another size: a new index for the new file
    _write(source, '{"b": {"n": 2}, "a": {"n": 10}}')
    reread = BundledMap(source, index_dir=cache)
    assert (reread["a"], reread["b"]) == ({"n": 10}, {"n": 2})
    assert len(list((cache / "model-map").iterdir())) == 2
    assert index.exists()


def test_a_damaged_index_is_rebuilt(tmp_path: Path) -> None:
    source = _write(tmp_path / "map.json", ODD_MAP)
    BundledMap(source, index_dir=tmp_path)
    (index,) = (tmp_path / "model-map").iterdir()
    index.write_bytes(b"\x00garbage")
    table = BundledMap(source, index_dir=tmp_path)
    assert table["unindented-model"]["litellm_provider"] == "anthropic"
    assert index.read_bytes() != b"\x00garbage"


def test_an_unwritable_cache_still_reads_the_map(tmp_path: Path) -> None:
    source = _write(tmp_path / "map.json", ODD_MAP)
    blocked = _write(tmp_path / "not-a-folder", "")
    table = BundledMap(source, index_dir=blocked)
    assert table["gpt-test"]["max_input_tokens"] == 1000
    assert not list(tmp_path.glob("**/*.tmp"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": {"n": 1}, "a": {"n": 2}}', {"a": {"n": 2}}),  # a repeated key: the last one
        ('{"a": 1} trailing', {}),
        ("[1, 2]", {}),
        ('{"a": ', {}),
        ("", {}),
    ],
)
def test_files_the_index_cannot_describe_are_decoded_whole(
    tmp_path: Path, text: str, expected: dict[str, object]
) -> None:
    table = BundledMap(_write(tmp_path / "map.json", text), index_dir=tmp_path / "cache")
    assert not table.indexed
    assert dict(table) == expected
    assert not (tmp_path / "cache").exists()


def test_a_missing_file_is_an_empty_map(tmp_path: Path) -> None:
    table = BundledMap(tmp_path / "absent.json", index_dir=tmp_path)
    assert len(table) == 0
    assert "gpt-4o" not in table


def test_a_fresh_process_writes_the_index_under_the_cache_dir(tmp_path: Path) -> None:
    if model_map.bundled_map_path() is None:
        pytest.skip("LiteLLM is not installed")
    code = (
        "from praisonlike.context import ContextConfig, context_window\n"
        "print(context_window('gpt-4o', ContextConfig()))\n"
    )
    env = {**os.environ, "PRAISONLIKE_CACHE_DIR": str(tmp_path)}
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == "128000"
    assert len(list((tmp_path / "model-map").glob("*.index"))) == 1


def test_entries_of_a_file_changed_after_indexing_read_as_missing(tmp_path: Path) -> None:
    source = _write(tmp_path / "map.json", '{"a": {"n": 1}, "b": {"n": 2}}')
    BundledMap(source, index_dir=tmp_path)
    table = BundledMap(source, index_dir=tmp_path)
    assert table["a"] == {"n": 1}
    _write(source, '{"b": {"n": 2}, "a": {"n": 1}, "c": {}}')  # LiteLLM upgraded meanwhile
    assert table["a"] == {"n": 1}  # read before the change
    assert table.get("b") is None
    assert dict(table.items()) == {"a": {"n": 1}}
    assert BundledMap(source, index_dir=tmp_path)["b"] == {"n": 2}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX home-directory lookup")
def test_a_user_without_a_home_directory_still_reads_the_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A container's arbitrary user: no HOME and no passwd entry, so Path.home() raises.
    import pwd

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("PRAISONLIKE_CACHE_DIR", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    with pytest.raises(RuntimeError):
        Path.home()
    table = BundledMap(_write(tmp_path / "map.json", ODD_MAP))
    assert table.indexed
    assert table["unindented-model"]["litellm_provider"] == "anthropic"
