"""Refuse model requests that would leave the machine, when asked to.

With ``PRAISONLIKE_ALLOW_MODEL_REQUESTS=0`` (the test suite's setting) a model
call is only sent when its endpoint is on the loopback (127.0.0.0/8, ::1,
localhost). Anything else raises :class:`ModelRequestBlockedError` before a
byte is sent, so a test can never reach a real provider by accident.

The variable is read at each consultation (one ``os.environ`` lookup and a set
membership test, so setting it takes effect on the next request). Unset or
empty, or ``1``/``true``/``yes``/``on``, allows every request;
``0``/``false``/``no``/``off`` restricts them (any case, surrounding spaces
ignored). Any other value raises :class:`~praisonlike.errors.ConfigurationError`
naming the variable and these values, whatever the endpoint: a typo must not
silently leave the guard off.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from urllib.parse import urlsplit

from praisonlike.errors import ConfigurationError, ModelRequestBlockedError

ENV_VAR = "PRAISONLIKE_ALLOW_MODEL_REQUESTS"
ALLOW_VALUES = ("1", "true", "yes", "on")
DENY_VALUES = ("0", "false", "no", "off")
_ALLOW = frozenset(ALLOW_VALUES) | {""}
_DENY = frozenset(DENY_VALUES)


def model_requests_allowed() -> bool:
    """False when the environment forbids non-loopback model requests.

    Raises :class:`ConfigurationError` for a value of ``PRAISONLIKE_ALLOW_MODEL_REQUESTS``
    that is neither an allowing nor a restricting one (see the module docstring).
    """
    raw = os.environ.get(ENV_VAR)
    if raw is None:
        return True
    value = raw.strip().lower()
    if value in _DENY:
        return False
    if value in _ALLOW:
        return True
    raise ConfigurationError(
        f"{ENV_VAR}={raw!r} is not a recognised value: use "
        f"{'/'.join(DENY_VALUES)} to allow only loopback model endpoints, or "
        f"{'/'.join(ALLOW_VALUES)} (or leave it unset) to allow every request"
    )


@functools.lru_cache(maxsize=256)
def is_loopback_url(url: str | None) -> bool:
    """Whether ``url`` (or a bare host[:port]) names the loopback; remembered per URL."""
    if not url:
        return False
    host = urlsplit(url if "//" in url else f"//{url}").hostname
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_label(url: str) -> str | None:
    """``url`` reduced to ``scheme://host:port``: no user, password, path or query,
    so it can go in an error message. ``None`` when ``url`` has no scheme or host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not parts.scheme or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    port = port if port is not None else _DEFAULT_PORTS.get(parts.scheme.lower())
    return f"{parts.scheme}://{host}:{port}" if port is not None else f"{parts.scheme}://{host}"


def check_model_request(model: str, api_base: str | None) -> None:
    """Raise :class:`ModelRequestBlockedError` if requests are restricted and
    ``api_base`` is not on the loopback; :class:`ConfigurationError` when the
    variable's value is not recognised (for any endpoint)."""
    if model_requests_allowed() or is_loopback_url(api_base):
        return
    where = api_base or "the provider's default endpoint"
    raise ModelRequestBlockedError(
        f"model request to {where} for {model!r} refused: {ENV_VAR}=0 allows only "
        "loopback endpoints (use praisonlike.testing.LocalLLMServer in tests)"
    )
