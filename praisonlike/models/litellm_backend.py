"""The one module that imports LiteLLM.

Everything else in praisonlike reaches LiteLLM through :func:`load_litellm`, so
``import praisonlike`` stays light and the environment is prepared exactly once
before LiteLLM is imported: the local price map is used (no download) and
tiktoken is pointed at the encodings the LiteLLM wheel bundles.

praisonlike changes none of LiteLLM's process-wide settings an application may
rely on: options with a per-call form (``drop_params``) are passed per call. The
one exception is ``suppress_debug_info`` (LiteLLM's console banner on errors, which
has no per-call form): it is switched on only when praisonlike is the first to
import LiteLLM, never when the application imported it already.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from types import ModuleType

from praisonlike._runtime.progress import slow_step

WARMUP_DELAY = 0.05
"""Seconds the warmup thread waits before importing, so it does not compete for
the GIL with the start-up code that follows ``Agent()`` (a ``chat()`` in that
time imports LiteLLM itself, on its own thread, losing nothing)."""

NO_WARMUP_ENV = "PRAISONLIKE_NO_WARMUP"
"""Set to 1 (or true, yes, on) to keep :func:`warmup` from starting its thread."""

_lock = threading.Lock()
_module: ModuleType | None = None
_openai_lock = threading.Lock()
_openai: ModuleType | None = None
_warmup_thread: threading.Thread | None = None
_turn_thread: threading.Thread | None = None
_turns_begun = 0


_folder: list[Path | None] = []


def litellm_folder() -> Path | None:
    """The installed LiteLLM package's folder, found without importing LiteLLM
    (``None`` when it is not installed); looked up once."""
    if not _folder:
        spec = importlib.util.find_spec("litellm")
        locations = spec.submodule_search_locations if spec is not None else None
        _folder.append(Path(next(iter(locations))) if locations else None)
    return _folder[0]


def bundled_tiktoken_dir() -> Path | None:
    """The folder of tiktoken encodings inside the installed LiteLLM wheel.

    Found from the package's location, without importing LiteLLM.
    """
    package = litellm_folder()
    if package is None:
        return None
    folder = package / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


def prepare_environment() -> None:
    """Set the environment LiteLLM and tiktoken read, without overriding the user's.

    LiteLLM then reads its model map and its table of Anthropic beta headers from
    the copies in its wheel: otherwise it fetches both from GitHub at run time
    (the map at import, the table at the first Anthropic call that needs a beta
    header, such as structured output), which leaks the use and stalls offline.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = bundled_tiktoken_dir()
        if folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)


def load_openai() -> ModuleType:
    """Import the ``openai`` SDK once (thread-safe) and return the module.

    LiteLLM imports it too, and :func:`load_litellm` imports it through here
    first: two threads importing the SDK at once can each see the other's
    half-initialised modules. ``httpx`` (LiteLLM's HTTP client; the SDK's own is
    ``httpx2``) is imported here too when installed: the SDK reads
    ``sys.modules["httpx"]`` all through a call, so a LiteLLM import begun on
    another thread in the middle of a direct call would show it a module with no
    attributes yet (``AttributeError: partially initialized module 'httpx'``).
    Complete before the first call, that import is a dictionary lookup for
    LiteLLM later (see :func:`_import_httpx` for its cost).
    """
    global _openai
    if _openai is None:
        with _openai_lock:
            if _openai is None:
                import openai

                _import_httpx()
                _openai = openai
    return _openai


def _import_httpx() -> None:
    """Import ``httpx`` complete, leaving its command-line tool for when it is run.

    ``httpx/__init__`` imports ``httpx._main``, the ``httpx`` command, which
    imports ``rich.console`` and ``click`` when they are installed: about 40 of
    the 47 ms the import takes here. That module is held back while ``httpx``
    loads, and ``httpx.main`` then loads it at its first call, so the package
    behaves as before for anyone who uses it. Nothing happens when ``httpx`` is
    not installed or already imported.
    """
    if "httpx" in sys.modules:
        return
    hold_back = "httpx._main" not in sys.modules
    if hold_back:
        sys.modules["httpx._main"] = None  # type: ignore[assignment]
    try:
        httpx = importlib.import_module("httpx")
    except ImportError:
        return
    finally:
        if hold_back and "httpx._main" in sys.modules and sys.modules["httpx._main"] is None:
            del sys.modules["httpx._main"]
    if hold_back:
        setattr(httpx, "main", _httpx_command)  # noqa: B010


def _httpx_command(*args: object, **kwargs: object) -> object:
    """``httpx.main``, the ``httpx`` command, imported when it is first run."""
    command = importlib.import_module("httpx._main").main
    setattr(sys.modules["httpx"], "main", command)  # noqa: B010
    return command(*args, **kwargs)


def settle_httpx() -> None:
    """Wait while another thread is importing ``httpx`` (LiteLLM's import brings it).

    The openai SDK reads ``sys.modules["httpx"]`` when it builds a client or a
    request; a module another thread is still initialising there has no
    attributes yet. Importing it here blocks on that module's import lock until
    it is complete; when no import is under way this is a dictionary lookup.
    """
    module = sys.modules.get("httpx")
    if module is not None and getattr(getattr(module, "__spec__", None), "_initializing", False):
        importlib.import_module("httpx")


def load_litellm() -> ModuleType:
    """Import LiteLLM once (thread-safe) and return the module."""
    global _module
    if _module is not None:
        return _module
    waiting = threading.current_thread() is not _warmup_thread
    with slow_step("Loading LiteLLM") if waiting else nullcontext(), _lock:
        if _module is None:
            prepare_environment()
            first_import = "litellm" not in sys.modules
            load_openai()
            import litellm

            if first_import:
                litellm.suppress_debug_info = True
            _module = litellm
    return _module


def is_loaded() -> bool:
    """True once LiteLLM has been imported through :func:`load_litellm`."""
    return _module is not None


def imported() -> bool:
    """True once LiteLLM is imported, by praisonlike or by the application (which may
    then have registered models or changed its map): what is told without LiteLLM
    is then asked of it instead."""
    return _module is not None or "litellm" in sys.modules


def warmup_disabled() -> bool:
    """True when ``PRAISONLIKE_NO_WARMUP`` asks for no background import."""
    return os.environ.get(NO_WARMUP_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def warmup(*, litellm: bool = True) -> None:
    """Start importing LiteLLM on a background thread; returns at once.

    The thread waits :data:`WARMUP_DELAY`, imports praisonlike's own turn
    machinery (:data:`TURN_MODULES`), then LiteLLM. A program that
    builds its agent and then does other work pays little of LiteLLM's
    multi-second import at the first ``chat()``. With ``litellm=False`` (an
    agent whose calls never need LiteLLM, see
    :func:`praisonlike.models.transport.warm_up_for`) the thread imports the turn
    machinery and the ``openai`` SDK instead. When a turn begins before the
    delay is out (see :func:`turn_begins`), the thread imports nothing and the
    turn imports what it needs itself. Idempotent. Does nothing when
    ``PRAISONLIKE_NO_WARMUP=1``: LiteLLM is then imported by the first model
    call that needs it, on the caller's thread.
    """
    global _warmup_thread, _turn_thread
    if _module is not None or _warmup_thread is not None or warmup_disabled():
        return
    if not litellm and _turn_thread is not None:
        return
    with _lock:
        if litellm and _warmup_thread is None:
            _warmup_thread = threading.Thread(
                target=_warm,
                args=(_turns_begun, load_litellm),
                name="praisonlike-warmup",
                daemon=True,
            )
            _warmup_thread.start()
        elif not litellm and _turn_thread is None and _warmup_thread is None:
            _turn_thread = threading.Thread(
                target=_warm,
                args=(_turns_begun, load_openai),
                name="praisonlike-warmup-turn",
                daemon=True,
            )
            _turn_thread.start()


TURN_MODULES = (
    "praisonlike.events",
    "praisonlike.loop.run",
    "praisonlike.context.manager",
    "praisonlike.context.seam",
    "praisonlike.tools.executor",
    "praisonlike.tools.schema",
    "praisonlike._runtime.run_ids",
)
"""What the first turn imports besides LiteLLM (pydantic and the event models among
them); the warmup thread imports these first. Not tiktoken nor ``regex``: a
request whose upper bound fits the context budget is not counted (see
:mod:`praisonlike.context.tokens`), so most first turns never encode."""


def turn_begins() -> None:
    """Note that a turn has begun (each turn calls this as it opens).

    A warm-up thread still waiting out :data:`WARMUP_DELAY` then imports
    nothing: the turn imports what it needs on its own thread, and a second
    thread importing the same packages meanwhile only slows it (by about 90 ms
    of a first direct turn here, measured with ``benchmarks/first_turn.py``).
    """
    global _turns_begun
    _turns_begun += 1


def _warm(turns: int, load: Callable[[], ModuleType]) -> None:
    """After the delay, import :data:`TURN_MODULES` and then ``load()``; nothing
    when a turn began since :func:`warmup` saw ``turns`` begun."""
    time.sleep(WARMUP_DELAY)
    if _turns_begun != turns:
        return
    for name in TURN_MODULES:
        importlib.import_module(name)
    load()
