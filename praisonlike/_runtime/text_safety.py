"""Text that can always be encoded: lone UTF-16 surrogates replaced.

A model (or a tool) can produce a lone surrogate, e.g. by escaping ``\\ud800``
in JSON. Python keeps it in a str, but it cannot be encoded as UTF-8, so the
next request, the session store or a log line would fail on it.
"""

from __future__ import annotations

import re

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (unchanged when there is none)."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
