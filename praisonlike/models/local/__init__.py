"""The real local model of ``praisonlike[local]``: GGUF file assembly and its llama.cpp server.

Importing this package is light; ``xllamacpp`` is imported only when a server starts.
"""

from praisonlike._runtime.deprecation import renamed_attributes
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

__getattr__ = renamed_attributes(
    __name__, {"LocalModelServer": ("LlamaCppServer", LlamaCppServer)}
)
