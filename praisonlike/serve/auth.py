"""Who is asking: the owner behind a request's bearer token.

With tokens configured every protected request needs ``Authorization: Bearer
<token>`` for a known token, else 401. Without tokens there is no auth, and
the app then answers only when the server is bound to a loopback address
(else 403), so an app started without tokens is never open to a network;
and only requests addressed to a loopback name (the ``Host`` header) from no
web page or a page served on this machine (the ``Origin`` header, which
browsers send with every cross-site POST), so neither a web page the user
visits nor a DNS-rebinding page can drive it. Tokens are compared in
constant time and never logged or echoed.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from praisonlike.serve.http_errors import ApiError


def is_loopback(host: str | None) -> bool:
    """True for ``localhost`` and loopback IP addresses (127.0.0.0/8, ::1)."""
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Authenticator:
    """Maps a request's bearer token to its owner (``None`` when there is no auth)."""

    def __init__(self, tokens: Mapping[str, str] | None) -> None:
        self._tokens = [(t.encode(), owner) for t, owner in (tokens or {}).items()]

    @property
    def enabled(self) -> bool:
        return bool(self._tokens)

    def owner(self, headers: Mapping[str, str], scope: Mapping[str, Any]) -> str | None:
        """The requester's owner name; raises :class:`ApiError` (401/403) when refused."""
        if not self._tokens:
            server = scope.get("server")
            if not is_loopback(server[0] if server else None):
                raise ApiError(
                    403,
                    "this server has no tokens configured, so it answers only on a loopback "
                    "address; configure tokens (to_asgi(tokens=...) or --tokens FILE)",
                )
            _check_local_request(headers)
            return None
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "send 'Authorization: Bearer <token>' with a configured token")
        given = token.strip().encode()
        found = None
        for known, owner in self._tokens:
            if hmac.compare_digest(known, given):
                found = owner
        if found is None:
            raise ApiError(401, "the bearer token does not map to an owner")
        return found


def _check_local_request(headers: Mapping[str, str]) -> None:
    """Refuse (403) a request for another host name, or from a web page of another host."""
    if not is_loopback(urlsplit(f"//{headers.get('host', '')}").hostname):
        raise ApiError(
            403,
            "this server has no tokens configured, so it answers only requests addressed "
            "to a loopback name (Host: 127.0.0.1, localhost or [::1]); configure tokens "
            "to serve other names",
        )
    origin = headers.get("origin")
    if origin is not None and not is_loopback(urlsplit(origin).hostname):
        raise ApiError(
            403,
            "this server has no tokens configured, so it refuses requests from web pages "
            "served by other hosts; configure tokens to allow them",
        )


def check_owner(owner: str | None, requester: str | None, what: str) -> None:
    """Refuse (403) a requester other than ``owner``; an unowned thing is anyone's."""
    if owner is not None and owner != requester:
        raise ApiError(403, f"{what} belongs to another owner")
