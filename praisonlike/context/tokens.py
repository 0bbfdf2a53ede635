"""Token counting for OpenAI-style chat requests, with a per-message cache.

Counts follow OpenAI's documented accounting for chat messages (3 tokens of
framing per message, the role, the content, 1 extra for a ``name``, 3 for
priming the reply) and add estimates for what that accounting does not cover:
tool calls, tool schemas and image parts. For non-OpenAI models the tiktoken
``cl100k_base`` count is an approximation; the router's ratios leave headroom.

:meth:`TokenCounter.bound_message` and :meth:`TokenCounter.bound_tools` give an
upper bound of the same counts without loading an encoding: every count of a
text is replaced by the text's UTF-8 length (:func:`text_bound`). A byte-level
BPE token stands for at least one byte, so the bound is never below the count;
for English it is about four times the count. A request whose bound fits its
budget fits; only a request that may not is counted exactly.

The cache is keyed on a message's *content* (its key/value pairs, recursively),
never on object identity, so a message that is changed or rebuilt is recounted
only if its content differs, and a count is never stale. Counting a list whose
messages were all counted before encodes nothing.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from praisonlike.context.encoding import count_tokens
from praisonlike.context.messages import Message

MESSAGE_OVERHEAD = 3
NAME_OVERHEAD = 1
REPLY_PRIMING = 3
TOOL_CALL_OVERHEAD = 3
TOOLS_OVERHEAD = 12
IMAGE_TOKENS_LOW = 85
IMAGE_TOKENS_HIGH = 765

_O200K_PREFIXES = ("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5")
_O200K_FAMILIES = ("o1", "o3", "o4")
_IMAGE_TYPES = frozenset({"image_url", "image", "input_image"})


def text_bound(text: str) -> int:
    """An upper bound of the tokens of ``text`` in any byte-level BPE encoding
    (``cl100k_base``, ``o200k_base``): its length in UTF-8 bytes.

    Each token stands for at least one byte of the text, and tiktoken replaces
    an unpaired surrogate with U+FFFD (3 bytes, as many as the surrogate's own
    ``surrogatepass`` encoding), so the bound holds for every ``str``.
    """
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def encoding_for_model(model: str) -> str:
    """The tiktoken encoding used for ``model``: ``o200k_base`` or ``cl100k_base``.

    A provider prefix (``openai/gpt-4o-mini``) and a fine-tune prefix
    (``ft:gpt-4o:...``) are ignored.
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    name = name.removeprefix("ft:")
    if name.startswith(_O200K_PREFIXES):
        return "o200k_base"
    family = name.split("-", 1)[0]
    return "o200k_base" if family in _O200K_FAMILIES else "cl100k_base"


@dataclass(frozen=True)
class CounterStats:
    """A snapshot of a :class:`TokenCounter`'s message cache."""

    hits: int
    misses: int
    entries: int
    cached_chars: int


_DICT = object()


def _freeze(value: Any) -> Hashable:
    """A hashable, type-tagged copy of a JSON-like value; TypeError otherwise."""
    kind = type(value)
    if kind is str or value is None or kind in (int, float, bool):
        return cast(Hashable, value)
    if kind is list or kind is tuple:
        return tuple(_freeze(item) for item in value)
    if isinstance(value, dict):
        return (_DICT, *((key, _freeze(item)) for key, item in value.items()))
    raise TypeError(f"cannot fingerprint {kind.__name__}")


def _chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_chars(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_chars(item) for item in value)
    return 0


class TokenCounter:
    """Counts the tokens of messages and tool schemas for one model.

    The encoding is loaded on first use. Message counts are cached in a
    thread-safe LRU bounded both by ``cache_size`` entries and by
    ``cache_chars`` characters of cached text, so the cache holds on to at
    most that much text after a history is cleared. A history longer than
    ``cache_size`` messages is recounted on every call, so keep it larger
    than the longest history you count.
    """

    def __init__(
        self, model: str, *, cache_size: int = 100_000, cache_chars: int = 50_000_000
    ) -> None:
        self.model = model
        self.encoding_name = encoding_for_model(model)
        self._cache_size = cache_size
        self._cache_chars = cache_chars
        self._cache: OrderedDict[Hashable, tuple[int, int]] = OrderedDict()
        self._cached_chars = 0
        self._tools_cache: OrderedDict[str, int] = OrderedDict()
        self._role_tokens: dict[str, int] = {}
        self._lock = threading.RLock()
        self._hits = 0
        self._misses = 0

    @property
    def stats(self) -> CounterStats:
        with self._lock:
            return CounterStats(self._hits, self._misses, len(self._cache), self._cached_chars)

    def count_text(self, text: str) -> int:
        """Tokens of a plain string (special tokens are counted as text)."""
        if not text:
            return 0
        return count_tokens(self.encoding_name, text)

    def bound_text(self, text: str) -> int:
        """:func:`text_bound` of ``text``: never below :meth:`count_text`, no encoding needed."""
        return text_bound(text)

    def trim(self, keep: int) -> None:
        """Forget all but the ``keep`` most recently used message counts.

        For a cleared history: the counts of what every request repeats (the
        system prompt) survive, the counts of the old conversation go.
        """
        with self._lock:
            self._evict(max(0, keep))

    def count_message(self, message: Message) -> int:
        """Tokens one message adds to a request (cached)."""
        with self._lock:
            return self._count_cached(message)

    def count_messages(self, messages: Sequence[Message]) -> int:
        """Tokens of a request's messages, including the reply priming."""
        with self._lock:
            return REPLY_PRIMING + sum(self._count_cached(message) for message in messages)

    def bound_message(self, message: Message) -> int:
        """An upper bound of :meth:`count_message`, computed without the encoding (not cached)."""
        return self._count_uncached(message, self.bound_text)

    def bound_tools(self, tools: Sequence[dict[str, Any]]) -> int:
        """An upper bound of :meth:`count_tools`, computed without the encoding (not cached)."""
        if not tools:
            return 0
        return TOOLS_OVERHEAD + self.bound_text(_tools_key(tools))

    def count_tools(self, tools: Sequence[dict[str, Any]]) -> int:
        """Tokens the tool schemas add to a request (0 for no tools; cached)."""
        if not tools:
            return 0
        key = _tools_key(tools)
        with self._lock:
            cached = self._tools_cache.get(key)
            if cached is not None:
                self._tools_cache.move_to_end(key)
                return cached
        tokens = TOOLS_OVERHEAD + self.count_text(key)
        with self._lock:
            self._tools_cache[key] = tokens
            while len(self._tools_cache) > 32:
                self._tools_cache.popitem(last=False)
        return tokens

    def _count_cached(self, message: Message) -> int:
        key: Hashable | None = tuple(message.items())
        try:
            entry = self._cache.get(key)
        except TypeError:
            try:
                key = _freeze(message)
            except TypeError:
                key = None
            entry = None if key is None else self._cache.get(key)
        if entry is not None:
            self._hits += 1
            self._cache.move_to_end(key)
            return entry[0]
        self._misses += 1
        tokens = self._count_uncached(message, self.count_text)
        if key is not None:
            self._remember(key, tokens, _chars(message))
        return tokens

    def _remember(self, key: Hashable, tokens: int, chars: int) -> None:
        if chars > self._cache_chars:
            return
        self._cache[key] = (tokens, chars)
        self._cached_chars += chars
        self._evict(self._cache_size)

    def _evict(self, entries: int) -> None:
        """Drop the least recently used counts until within ``entries`` and ``cache_chars``."""
        while len(self._cache) > entries or self._cached_chars > self._cache_chars:
            _, (_, evicted_chars) = self._cache.popitem(last=False)
            self._cached_chars -= evicted_chars

    def _count_uncached(self, message: Message, text: Callable[[str], int]) -> int:
        """The message's tokens, each of its texts measured by ``text`` (a count or a bound)."""
        role, content = message.get("role"), message.get("content")
        if type(role) is str and type(content) is str and len(message) == 2:  # plain text
            return MESSAGE_OVERHEAD + self._count_role(role, text) + text(content)
        tokens = MESSAGE_OVERHEAD + self._count_role(str(role or ""), text)
        tokens += self._count_content(content, text)
        name = message.get("name")
        if isinstance(name, str) and name:
            tokens += NAME_OVERHEAD + text(name)
        for call in message.get("tool_calls") or ():
            tokens += self._count_tool_call(call, text)
        return tokens

    def _count_role(self, role: str, text: Callable[[str], int]) -> int:
        if text != self.count_text:  # a bound: cheap, not remembered
            return text(role)
        tokens = self._role_tokens.get(role)
        if tokens is None:
            tokens = self.count_text(role)
            if len(self._role_tokens) < 64:
                self._role_tokens[role] = tokens
        return tokens

    def _count_content(self, content: Any, text: Callable[[str], int]) -> int:
        if content is None:
            return 0
        if isinstance(content, str):
            return text(content)
        if isinstance(content, (list, tuple)):
            return sum(self._count_part(part, text) for part in content)
        return text(str(content))

    def _count_part(self, part: Any, text: Callable[[str], int]) -> int:
        if not isinstance(part, dict):
            return text(str(part))
        kind = part.get("type")
        if kind == "text":
            return text(str(part.get("text") or ""))
        if kind in _IMAGE_TYPES:
            image = part.get(kind)
            detail = image.get("detail") if isinstance(image, dict) else part.get("detail")
            return IMAGE_TOKENS_LOW if detail == "low" else IMAGE_TOKENS_HIGH
        return text(json.dumps(part, default=str))

    def _count_tool_call(self, call: Any, text: Callable[[str], int]) -> int:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return TOOL_CALL_OVERHEAD + text(str(call))
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, default=str)
        name = str(function.get("name") or "")
        return TOOL_CALL_OVERHEAD + text(name) + text(arguments)


def _tools_key(tools: Sequence[dict[str, Any]]) -> str:
    """The schemas as the text counted for them (canonical JSON)."""
    return json.dumps(list(tools), sort_keys=True, separators=(",", ":"), default=str)
