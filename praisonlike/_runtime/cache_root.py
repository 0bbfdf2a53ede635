"""Where praisonlike keeps files it can rebuild (``$PRAISONLIKE_CACHE_DIR``)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV_VAR = "PRAISONLIKE_CACHE_DIR"


def cache_root() -> Path:
    """The cache folder (not created here): the local model files, the warm
    servers' state and the model map's index live under it."""
    root = os.environ.get(CACHE_ENV_VAR)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "praisonlike"
