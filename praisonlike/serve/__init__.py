"""Serving an agent over HTTP: ``agent.to_asgi()`` and ``praisonlike serve`` (docs/serving.md).

Importing this package is light; Starlette, Uvicorn and sse-starlette
(``praisonlike[serve]``) are imported by :func:`praisonlike.serve.app.create_app`
and the command, after :func:`require_serve_extra` has checked them.
"""

from __future__ import annotations

import importlib

from praisonlike.errors import ConfigurationError
from praisonlike.serve.config import ServeConfig

SERVE_MODULES: tuple[str, ...] = ("starlette", "uvicorn", "sse_starlette")
"""The modules the ``serve`` extra provides."""
INSTALL_HINT = "install the serve extra: pip install 'praisonlike[serve]'"


def require_serve_extra(modules: tuple[str, ...] = SERVE_MODULES) -> None:
    """Import ``modules``; raise :class:`ConfigurationError` when one cannot be imported.

    The message names the missing module and ends with ``; `` and
    :data:`INSTALL_HINT`.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ConfigurationError(f"serving needs {exc.name or module}; {INSTALL_HINT}") from exc


__all__ = ["INSTALL_HINT", "SERVE_MODULES", "ServeConfig", "require_serve_extra"]
