"""Warnings shown at the caller's line, not at a line inside praisonlike."""

from __future__ import annotations

import os
import sys
import warnings

_SKIPPED = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
    os.path.join(os.path.dirname(os.path.abspath(os.__file__)), "asyncio") + os.sep,
)
"""praisonlike's folder, and asyncio's (between an ``await agent.achat()`` and the loop)."""


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the nearest frame outside praisonlike and asyncio
    (the application's call into it), as Python 3.12's ``skip_file_prefixes`` does."""
    frame = sys._getframe(1)
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_SKIPPED):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
