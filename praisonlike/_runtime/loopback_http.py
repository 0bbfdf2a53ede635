"""HTTP requests to servers on this machine, never through a proxy.

A proxy named by ``http_proxy`` / ``https_proxy`` cannot reach this machine's
loopback, so requests to the local model servers (their health, metrics and
model listings) use :data:`LOOPBACK_OPENER`, which ignores those variables.
"""

from __future__ import annotations

import urllib.request

LOOPBACK_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""``urllib`` opener without proxies: ``LOOPBACK_OPENER.open(request, timeout=...)``."""

__all__ = ["LOOPBACK_OPENER"]
