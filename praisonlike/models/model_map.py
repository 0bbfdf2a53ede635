"""LiteLLM's model map (prices, context windows, features), readable without importing LiteLLM.

Once LiteLLM is imported (see :mod:`praisonlike.models.litellm_backend`) the map is its
``litellm.model_cost``, models an application registered included. Before
that, it is the price map bundled in the installed LiteLLM wheel
(``model_prices_and_context_window_backup.json``), read as a file: the same
entries LiteLLM loads with ``LITELLM_LOCAL_MODEL_COST_MAP=True``, which
praisonlike sets. So a turn on a model that never needs LiteLLM (see
:mod:`praisonlike.models.transport`) reads prices and windows without its
multi-second import; the file is read through an index kept on disk, so only
the entries looked up are decoded (:mod:`praisonlike.models.bundled_map`). An
empty map when LiteLLM is not installed.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from praisonlike.models import litellm_backend
from praisonlike.models.bundled_map import BundledMap

MAP_FILE = "model_prices_and_context_window_backup.json"

_lock = threading.Lock()
_bundled: Mapping[str, Any] | None = None
_registered: dict[str, Any] = {}


def bundled_map_path() -> Path | None:
    """The price map file inside the installed LiteLLM wheel, found without importing it."""
    folder = litellm_backend.litellm_folder()
    if folder is None:
        return None
    path = folder / MAP_FILE
    return path if path.is_file() else None


def _live_map() -> Mapping[str, Any]:
    """LiteLLM's ``model_cost`` once it is imported, else the bundled file."""
    litellm = sys.modules.get("litellm") if litellm_backend.is_loaded() else None
    return litellm.model_cost if litellm is not None else _bundled_map()


def register(name: str, info: Mapping[str, Any]) -> None:
    """Add ``name`` to the map for this process, without importing LiteLLM (as
    ``litellm.register_model`` would, for the readers of this module: prices,
    context windows, model features). Does nothing when the map has ``name``."""
    if entry(name) is None:
        _registered[name] = dict(info)


def _bundled_map() -> Mapping[str, Any]:
    global _bundled
    if _bundled is not None:
        return _bundled
    with _lock:
        if _bundled is None:
            path = bundled_map_path()
            _bundled = BundledMap(path) if path is not None else {}
    return _bundled


def bundled() -> Mapping[str, Any]:
    """The map LiteLLM ships, as a read-only mapping (each entry decoded when read;
    empty when LiteLLM is not installed). Models registered in this process are
    not in it."""
    return _bundled_map()


def entry(model: str) -> Mapping[str, Any] | None:
    """The map's entry for ``model`` by its exact name, or ``None``: an entry given
    to :func:`register` first, then LiteLLM's live map once it is imported (models
    an application registered there included), else the map bundled with it."""
    found = _registered.get(model)
    if found is None:
        found = _live_map().get(model)
    return found if isinstance(found, Mapping) else None


def provider_entry(model: str) -> Mapping[str, Any] | None:
    """The entry for ``<provider>/<name>``: by that name, else ``<name>`` when the
    map lists it under that provider (``anthropic/claude-haiku-4-5`` ->
    ``claude-haiku-4-5``, what ``litellm.get_model_info`` finds for it); ``None``
    otherwise (a name LiteLLM may still resolve by its own rules)."""
    found = entry(model)
    if found is not None:
        return found
    provider, slash, name = model.partition("/")
    if not slash:
        return None
    bare = entry(name)
    return bare if bare is not None and bare.get("litellm_provider") == provider else None


def bundled_provider(model: str) -> str | None:
    """The ``litellm_provider`` of ``model``'s entry in the map LiteLLM ships, by
    its exact name (models registered in this process not counted), or ``None``."""
    found = _bundled_map().get(model)
    provider = found.get("litellm_provider") if isinstance(found, Mapping) else None
    return provider if isinstance(provider, str) else None


@functools.lru_cache(maxsize=1024)
def is_openai_own_model(model: str) -> bool:
    """Whether ``openai/<name>`` names one of OpenAI's own models in the map LiteLLM
    ships (``openai/gpt-4o``, ``openai/o3-mini``), not counting models registered
    in this process (:func:`register`, ``litellm.register_model``). Remembered per
    model: that map is a file that does not change."""
    bundled = _bundled_map()
    if model in bundled:
        return True
    bare = bundled.get(model.split("/", 1)[-1])
    return isinstance(bare, Mapping) and bare.get("litellm_provider") == "openai"


__all__ = [
    "MAP_FILE",
    "bundled",
    "bundled_map_path",
    "bundled_provider",
    "entry",
    "is_openai_own_model",
    "provider_entry",
    "register",
]
