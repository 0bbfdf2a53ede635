"""Serving an agent over HTTP: ``agent.to_asgi()`` and ``praisonlike serve`` (docs/serving.md).

Importing this package is light; Starlette, Uvicorn and sse-starlette
(``praisonlike[serve]``) are imported by :func:`praisonlike.serve.app.create_app`.
"""

from __future__ import annotations

from praisonlike.serve.config import ServeConfig

__all__ = ["ServeConfig"]
