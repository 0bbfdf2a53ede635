"""Reading the chain of exceptions behind a failed model call.

LiteLLM wraps the transport's exception (``openai``, ``httpx``, ``aiohttp``, the
socket's ``OSError``) in its own, sometimes twice. These functions walk that
chain: what it holds, where the failed request went, and the operating system's
words for a socket failure. None of them raises.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from praisonlike.models.network_guard import endpoint_label, is_loopback_url

MAX_CHAIN = 9
"""How many exceptions of a chain are read at most."""


def safe_attr(obj: object, name: str) -> Any:
    """``obj.name``, or ``None`` when it is missing or its getter raises."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps, outermost first: LiteLLM's ``original_exception``
    where there is one, else the cause or context. Stops at a cycle."""
    found: list[BaseException] = []
    inner: BaseException | None = exc
    while inner is not None and len(found) < MAX_CHAIN and all(inner is not f for f in found):
        found.append(inner)
        nested = safe_attr(inner, "original_exception")
        inner = (
            nested if isinstance(nested, BaseException) else (inner.__cause__ or inner.__context__)
        )
    return found


def request_endpoint(exc: BaseException) -> str | None:
    """``scheme://host:port`` of the request the transport made (no credentials,
    path or query); ``None`` when no exception in the chain carries one. LiteLLM's
    own exceptions carry a placeholder request, so they are skipped."""
    for inner in exception_chain(exc):
        if type(inner).__module__.split(".")[0] == "litellm":
            continue
        url = safe_attr(safe_attr(inner, "request"), "url")
        if url is not None:
            return endpoint_label(str(url))
    return None


def socket_reason(exc: BaseException) -> str | None:
    """The operating system's words for the deepest ``OSError`` in the chain
    (``Connection refused``), if any."""
    reasons = [
        inner.strerror
        for inner in exception_chain(exc)
        if isinstance(inner, OSError) and isinstance(inner.strerror, str) and inner.strerror
    ]
    return reasons[-1] if reasons else None


def refused_on_this_machine(exc: BaseException) -> bool:
    """Whether the chain holds a connection refused by a loopback endpoint: nothing
    listens at that port of this machine."""
    refused = any(
        isinstance(inner, ConnectionRefusedError)
        or (isinstance(inner, OSError) and inner.errno == errno.ECONNREFUSED)
        for inner in exception_chain(exc)
    )
    return refused and is_loopback_url(request_endpoint(exc))


_NO_SUCH_NAME = frozenset(
    code
    for code in (getattr(socket, "EAI_NONAME", None), getattr(socket, "EAI_NODATA", None))
    if code is not None
)
"""``getaddrinfo`` errors that say the host name has no address (not a failure to reach
the name server, ``EAI_AGAIN``, which may pass)."""


def name_not_found(exc: BaseException) -> bool:
    """Whether the chain holds a host name that does not resolve (``Name or service not
    known``): a misspelt host, or a machine without name service."""
    return any(
        isinstance(inner, socket.gaierror) and inner.errno in _NO_SUCH_NAME
        for inner in exception_chain(exc)
    )


__all__ = [
    "MAX_CHAIN",
    "exception_chain",
    "name_not_found",
    "refused_on_this_machine",
    "request_endpoint",
    "safe_attr",
    "socket_reason",
]
