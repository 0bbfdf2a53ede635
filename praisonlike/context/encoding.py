"""tiktoken encodings, loaded once, and token counts that keep the GIL for short texts.

tiktoken's encoders release the GIL while they run. For a long text that is
right, but for the few dozen characters of a new prompt it is costly whenever
another thread is runnable (LiteLLM's logging thread, still busy with the
previous call, is the usual one): taking the GIL back can wait a whole switch
interval (5 ms), a hundred times the encoding itself. A short text is
therefore split with the encoding's own pattern here and each piece is
encoded by tiktoken's BPE core, which keeps the GIL; the count is the one
``encode_ordinary`` gives. The pattern's letter and number classes come from
the ``regex`` package's Unicode tables here and from Rust's in tiktoken, of
other Unicode versions, so a text with a code point that Python's own Unicode
database leaves unassigned (which a newer table may call a letter) is counted
by ``encode_ordinary`` itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from unicodedata import category

if TYPE_CHECKING:
    from tiktoken import Encoding

SHORT_TEXT = 1024
"""Texts up to this many characters are counted without releasing the GIL."""

_encodings: dict[str, Encoding] = {}
_counters: dict[str, Callable[[str], int]] = {}
_lock = threading.Lock()


def load_encoding(name: str) -> Encoding:
    """The tiktoken encoding ``name``, loaded once per process (thread-safe).

    Works offline: the environment is pointed at the encodings bundled with
    LiteLLM before tiktoken is imported.
    """
    encoding = _encodings.get(name)
    if encoding is not None:
        return encoding
    with _lock:
        encoding = _encodings.get(name)
        if encoding is None:
            from praisonlike.models.litellm_backend import prepare_environment

            prepare_environment()
            import tiktoken

            encoding = tiktoken.get_encoding(name)
            _encodings[name] = encoding
    return encoding


def count_tokens(encoding_name: str, text: str) -> int:
    """The number of tokens of ``text`` in ``encoding_name``, special tokens counted as text.

    Always equal to ``len(encoding.encode_ordinary(text))``.
    """
    counter = _counters.get(encoding_name)
    if counter is None:
        counter = _counter_for(load_encoding(encoding_name))
        _counters[encoding_name] = counter
    return counter(text)


def _counter_for(encoding: Encoding) -> Callable[[str], int]:
    encode_ordinary = encoding.encode_ordinary
    encode_piece = _piece_encoder(encoding)
    pattern = _split_pattern(encoding) if encode_piece is not None else None
    if encode_piece is None or pattern is None:
        return lambda text: len(encode_ordinary(text))
    split = pattern.findall

    def count(text: str) -> int:
        if len(text) > SHORT_TEXT or (not text.isascii() and _has_unassigned(text)):
            return len(encode_ordinary(text))
        try:
            pieces = split(text, concurrent=False)  # regex, too, would release the GIL
            return sum(len(encode_piece(piece.encode("utf-8"))) for piece in pieces)
        except UnicodeEncodeError:
            return len(encode_ordinary(text))

    return count


def _has_unassigned(text: str) -> bool:
    """Whether ``text`` holds a code point unassigned in Python's Unicode database."""
    return any(category(character) == "Cn" for character in set(text))


def _piece_encoder(encoding: Encoding) -> Callable[[bytes], list[int]] | None:
    """tiktoken's GIL-holding BPE of one pre-split piece, when this tiktoken has it."""
    core = getattr(encoding, "_core_bpe", None)
    encode_piece = getattr(core, "encode_single_piece", None)
    return encode_piece if callable(encode_piece) else None


def _split_pattern(encoding: Encoding) -> Any:
    """The encoding's pre-tokenisation pattern, compiled with ``regex`` (as tiktoken does)."""
    source = getattr(encoding, "_pat_str", None)
    if not isinstance(source, str):
        return None
    try:
        import regex
    except ImportError:
        return None
    return regex.compile(source)
