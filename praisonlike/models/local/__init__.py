"""The real local model of ``praisonlike[local]``: GGUF file assembly and its llama.cpp server.

Importing this package is light: names are imported on first use (so
``import praisonlike.models.local.model_file`` does not load the server
modules), and ``xllamacpp`` is imported only when a server starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from praisonlike._runtime.lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "DEFAULT_LOCAL_MODEL": ".model_file",
    "LOCAL_MODELS": ".model_file",
    "LocalModelSpec": ".model_file",
    "ModelFileError": ".model_file",
    "default_cache_dir": ".model_file",
    "ensure_model_file": ".model_file",
    "verify_model_file": ".model_file",
    "LlamaCppServer": ".server",
    "LocalModelServer": ".server",  # the old name; warns
    "LocalServerError": ".server",
    "is_local_available": ".server",
    "local_endpoint": ".server",
    "resolve_local_model": ".server",
    "stop_local_servers": ".server",
}

if TYPE_CHECKING:
    from praisonlike.models.local.model_file import (
        DEFAULT_LOCAL_MODEL,
        LOCAL_MODELS,
        LocalModelSpec,
        ModelFileError,
        default_cache_dir,
        ensure_model_file,
        verify_model_file,
    )
    from praisonlike.models.local.server import (
        LlamaCppServer,
        LocalServerError,
        is_local_available,
        local_endpoint,
        resolve_local_model,
        stop_local_servers,
    )

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODELS",
    "LlamaCppServer",
    "LocalModelSpec",
    "LocalServerError",
    "ModelFileError",
    "default_cache_dir",
    "ensure_model_file",
    "is_local_available",
    "local_endpoint",
    "resolve_local_model",
    "stop_local_servers",
    "verify_model_file",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
