"""Anthropic's prompt cache as LocalLLMServer plays it on the Messages wire.

A request's ``cache_control`` marks (on tools, system blocks and messages)
each end a prefix of the request, in Anthropic's order: tools, then system,
then messages. The server remembers every marked prefix it has seen. A request
reads from the cache the longest of its prefixes, ending at any tool, system
block or message (as Anthropic looks back from a mark for earlier hits), that
was marked in an earlier request, and writes the rest up to its own last mark;
in the server's word-count tokens (tools and tool results have none). Nothing
expires. A scripted answer's explicit ``usage`` is reported as it is.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from typing import Any

from praisonlike.testing.payloads import item_words, items
from praisonlike.testing.script import ReportedUsage


class PromptCache:
    """The marked prefixes seen so far; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[str] = set()

    def usage(self, body: Mapping[str, Any], usage: ReportedUsage) -> ReportedUsage:
        """``usage`` of a request with ``body``, with the cache reads and writes its
        marks make; its marked prefixes are remembered."""
        prefixes = _prefixes(body)
        marked = [(key, tokens) for key, tokens, is_marked in prefixes if is_marked]
        with self._lock:
            read = max((tokens for key, tokens, _ in prefixes if key in self._seen), default=0)
            self._seen.update(key for key, _ in marked)
        written = max(marked[-1][1] - read, 0) if marked else 0
        return ReportedUsage(usage.prompt_tokens, usage.completion_tokens, read, written)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()


def _prefixes(body: Mapping[str, Any]) -> list[tuple[str, int, bool]]:
    """(digest, tokens, marked) of the prefix ending at each tool, system block and
    message, shortest first."""
    digest = hashlib.sha256()
    tokens = 1
    prefixes = []
    for section in ("tools", "system", "messages"):
        for item in items(body, section):
            digest.update(json.dumps(_unmarked(item), sort_keys=True).encode() + b"\n")
            if section != "tools":
                tokens += item_words(item)
            prefixes.append((digest.copy().hexdigest(), tokens, _is_marked(item)))
    return prefixes


def _is_marked(item: Any) -> bool:
    if not isinstance(item, Mapping):
        return False
    content = item.get("content")
    blocks = content if isinstance(content, list) else []
    return "cache_control" in item or any(
        isinstance(block, Mapping) and "cache_control" in block for block in blocks
    )


def _unmarked(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value
