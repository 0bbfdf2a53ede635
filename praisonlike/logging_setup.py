"""The ``praisonlike`` logger: silent by default, and scrubbed of secrets when enabled.

The logger is silent by default (see :func:`praisonlike._runtime.loggers.get_logger`).
:class:`RedactingFilter` removes API keys and
``Authorization: Bearer ...`` values from records (message, arguments,
traceback); :func:`debug_logging` (used by ``praisonlike --debug``) sends DEBUG
records to stderr through it for the duration of a ``with`` block.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from praisonlike._runtime.loggers import LOGGER_NAME, get_logger
from praisonlike.redaction import MIN_SECRET_LENGTH, REDACTED, redact_secrets

LITELLM_LOGGERS: tuple[str, ...] = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx")

logger = get_logger(LOGGER_NAME)


class Redactor:
    """Scrubs text of key-like tokens (see :func:`redact_secrets`) and of known secrets.

    ``secrets`` are literal values (an API key given on the command line) that
    are replaced wherever they appear, even when they do not look like a key.
    Values shorter than :data:`~praisonlike.redaction.MIN_SECRET_LENGTH` (8)
    characters are ignored: no real key is that short, and a placeholder key such
    as ``none`` (for a local server) would blank out ordinary words.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
        )

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return redact_secrets(text)


class RedactingFilter(logging.Filter):
    """A filter that never drops a record but rewrites it without secrets.

    The message is formatted once with its arguments, scrubbed, and stored back
    with no arguments; a traceback or stack is formatted and scrubbed too, so any
    handler that formats the record afterwards only sees redacted text.
    """

    def __init__(self, name: str = "", *, secrets: Iterable[str] = ()) -> None:
        super().__init__(name)
        self._redact = Redactor(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self._redact(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redact(record.stack_info)
        return True


@contextlib.contextmanager
def debug_logging(
    stream: TextIO | None = None, *, secrets: Iterable[str] = ()
) -> Iterator[logging.Handler]:
    """Within the block, log ``praisonlike`` at DEBUG to ``stream`` (stderr by default),
    secrets redacted; everything is put back as it was on exit.

    LiteLLM's and httpx's own loggers get the same filter meanwhile, so their
    records are scrubbed too whichever handler prints them. Yields the handler.
    """
    redacting = RedactingFilter(secrets=secrets)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(redacting)
    others = [logging.getLogger(name) for name in LITELLM_LOGGERS]
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    for other in others:
        other.addFilter(redacting)
    try:
        yield handler
    finally:
        for other in others:
            other.removeFilter(redacting)
        logger.setLevel(level)
        logger.removeHandler(handler)
        handler.close()


__all__ = [
    "LOGGER_NAME",
    "RedactingFilter",
    "Redactor",
    "debug_logging",
    "logger",
]
