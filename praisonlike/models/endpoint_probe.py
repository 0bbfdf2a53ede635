"""Finding a model server that is not running on this machine before LiteLLM is imported.

A call that goes through LiteLLM waits for its import (seconds of CPU) before
LiteLLM connects; to a local server that was never started (Ollama, llama.cpp,
vLLM) that is a long wait for a refusal the operating system gives at once.
While LiteLLM is not imported yet, the pre-flight
(:func:`~praisonlike.models.preflight.check_call`) has :func:`check_listening`
connect to a loopback endpoint first, which raises :class:`ServerNotListening`
when the connection is refused. The error is read like any refused connection: an
``APIConnectionError`` naming the endpoint, not retried (nothing listens
there). Anything else (the server accepts, a timeout, another socket error)
leaves the call to LiteLLM.
"""

from __future__ import annotations

import errno
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from praisonlike.models.config import LLMConfig
from praisonlike.models.network_guard import endpoint_label, is_loopback_url
from praisonlike.models.providers import LOCAL_SERVER_PROVIDERS

PROBE_TIMEOUT = 1.0
"""Seconds the probe's connect may take (a loopback connect takes microseconds)."""


@dataclass(frozen=True)
class ProbedRequest:
    """The request a probe stood for; ``url`` is where it connected, ``scheme://host:port``
    only (what an httpx error's ``request.url`` is, so the error names the endpoint
    the same way)."""

    url: str


class ServerNotListening(ConnectionRefusedError):
    """The connection to a loopback model endpoint was refused: nothing listens there."""

    def __init__(self, endpoint: str) -> None:
        super().__init__(errno.ECONNREFUSED, os.strerror(errno.ECONNREFUSED))
        self.request = ProbedRequest(endpoint)


def endpoint_of(config: LLMConfig) -> str | None:
    """The endpoint LiteLLM will connect to for ``config``, where praisonlike can tell
    without LiteLLM: its ``api_base``, or a local provider's default address."""
    if config.api_base:
        return config.api_base
    provider = config.model.split("/", 1)[0] if "/" in config.model else ""
    default = LOCAL_SERVER_PROVIDERS.get(provider)
    if default is None:
        return None
    variable, address = default
    return os.environ.get(variable) or address


def check_listening(config: LLMConfig) -> None:
    """Raise :class:`ServerNotListening` when ``config``'s endpoint is on the loopback
    and refuses a connection; otherwise return (nothing is sent: the probe connects
    and closes)."""
    url = endpoint_of(config)
    endpoint = endpoint_label(url) if url is not None and is_loopback_url(url) else None
    if endpoint is None:
        return
    parts = urlsplit(endpoint)
    if parts.hostname is None or parts.port is None:
        return
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=PROBE_TIMEOUT).close()
    except ConnectionRefusedError:
        raise ServerNotListening(endpoint) from None
    except OSError:
        return


__all__ = ["ServerNotListening", "check_listening", "endpoint_of"]
