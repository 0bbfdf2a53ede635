"""praisonlike's loggers, obtained when first needed.

:func:`get_logger` imports :mod:`logging` on its first call (keeping it out of
``import praisonlike``) and gives the ``praisonlike`` logger a
:class:`logging.NullHandler` before any record can be emitted, so a library
user sees nothing unless they configure logging.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

LOGGER_NAME = "praisonlike"


def get_logger(name: str = LOGGER_NAME) -> logging.Logger:
    """The logger ``name`` (``praisonlike`` or one of its children)."""
    import logging

    root = logging.getLogger(LOGGER_NAME)
    if not any(isinstance(handler, logging.NullHandler) for handler in root.handlers):
        root.addHandler(logging.NullHandler())
    return logging.getLogger(name)
