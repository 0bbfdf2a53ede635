"""Asking a model server on this machine for its context window.

LiteLLM's map knows the windows of providers' models, not of a model served
by llama.cpp, vLLM or LM Studio under a name of the user's choosing; without
one the agent assumes a default that may be twice the server's (llama.cpp
serves 4096 tokens unless told otherwise). Such servers say their window in
their OpenAI-style model listing (``GET <api_base>/models``): vLLM and SGLang
as ``max_model_len``, llama.cpp as ``meta.n_ctx``, others as
``context_length`` or ``max_context_length``.

:func:`served_context_window` asks only an endpoint on the loopback (a few
milliseconds; a remote endpoint is never asked, so nothing leaves the machine
that the user did not send). Its :class:`ServedWindow` tells a server's answer
(a window, or none listed) from no answer (nothing listening yet, a timeout, a
server still loading), which is worth asking again later.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from praisonlike._runtime.loopback_http import LOOPBACK_OPENER
from praisonlike.models.network_guard import is_loopback_url

LOOKUP_TIMEOUT = 2.0
"""Seconds the listing may take."""

WINDOW_FIELDS = ("max_model_len", "context_length", "max_context_length")
"""A listed model's window, by the field names servers use (llama.cpp's is ``meta.n_ctx``)."""


@dataclass(frozen=True)
class ServedWindow:
    """What a server's model listing said of a model's context window."""

    window: int | None
    """The window in tokens; None when the listing names none (or there was no answer)."""
    answered: bool
    """False when no server answered (none listening, a timeout, a 5xx such as a
    llama.cpp server still loading its model): ask again later."""


def served_context_window(api_base: str, api_key: str | None, model: str) -> ServedWindow:
    """The context window the server at ``api_base`` (on the loopback) lists for
    ``model`` (its name with or without a provider prefix), or for its only model.
    A remote ``api_base`` is not asked (answered, no window). Never raises."""
    if not is_loopback_url(api_base):
        return ServedWindow(None, answered=True)
    request = urllib.request.Request(f"{api_base.rstrip('/')}/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with LOOPBACK_OPENER.open(request, timeout=LOOKUP_TIMEOUT) as response:
            listing = json.loads(response.read())
    except urllib.error.HTTPError as error:
        return ServedWindow(None, answered=error.code < 500)
    except OSError:
        return ServedWindow(None, answered=False)
    except ValueError:
        return ServedWindow(None, answered=True)
    return ServedWindow(window_in_listing(listing, model), answered=True)


def window_in_listing(listing: Any, model: str) -> int | None:
    """The window a ``/models`` listing gives ``model``: the entry whose ``id`` is
    the model's name (without its provider prefix, or whole), else the listing's
    only entry; None when there is no such entry or it names no window."""
    entries = listing.get("data") if isinstance(listing, Mapping) else None
    if not isinstance(entries, list):
        return None
    models = [entry for entry in entries if isinstance(entry, Mapping)]
    names = {model, model.split("/", 1)[-1]}
    chosen = [entry for entry in models if entry.get("id") in names]
    if not chosen and len(models) == 1:
        chosen = models
    if not chosen:
        return None
    entry = chosen[0]
    meta = entry.get("meta")
    candidates = [entry.get(name) for name in WINDOW_FIELDS]
    if isinstance(meta, Mapping):
        candidates.append(meta.get("n_ctx"))
    for size in candidates:
        if isinstance(size, int) and not isinstance(size, bool) and size > 0:
            return size
    return None


__all__ = ["ServedWindow", "served_context_window", "window_in_listing"]
