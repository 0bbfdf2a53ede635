"""Redaction of API keys and other secrets from text (provider messages, logs, output)."""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8
"""Configured secrets shorter than this are not replaced (see ``logging_setup.Redactor``)."""
_ASSIGNED_SECRET = re.compile(
    r"""(?P<name>\b(?:x[-_])?api[-_]?key|\baccess[-_]?token|\bauth[-_]?token"""
    r"""|\bclient[-_]?secret|\bsecret[-_]?key|\bpassword)"""
    r"""(?P<sep>["']?\s*[=:]\s*["']?)(?!\[REDACTED\])(?P<value>[^\s"'&,;)}\]]+)""",
    re.IGNORECASE,
)
_BEARER_CHAR = r"[A-Za-z0-9._~+/=-]"
# A credential, not a word: 6+ characters with a digit or one of ._~+/= in them, or 20+.
_BEARER = re.compile(
    rf"\b(?P<scheme>Bearer)\s+(?:(?={_BEARER_CHAR}*[0-9._~+/=]){_BEARER_CHAR}{{6,}}"
    rf"|{_BEARER_CHAR}{{20,}})",
    re.IGNORECASE,
)
_TOKENS = re.compile(
    r"\bsk-[A-Za-z0-9_*-]{8,}"
    r"|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\bgsk_[A-Za-z0-9]{16,}"
    r"|\bxai-[A-Za-z0-9]{16,}"
    r"|\bhf_[A-Za-z0-9]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
)


def _prefixes(*atoms: str) -> str:
    """A pattern for every non-empty prefix of the sequence of regex ``atoms``."""
    pattern = atoms[-1]
    for atom in reversed(atoms[:-1]):
        pattern = f"{atom}(?:{pattern})?"
    return pattern


_SEP = "[-_]?"
_NAMES = (
    (*"api", _SEP, *"key"),
    ("x", "[-_]", *"api", _SEP, *"key"),
    (*"access", _SEP, *"token"),
    (*"auth", _SEP, *"token"),
    (*"client", _SEP, *"secret"),
    (*"secret", _SEP, *"key"),
    (*"password",),
)
# Every tail of a text that one of the rules above could still match once more
# text follows: the start of a token, of ``Bearer <token>`` or of ``name=value``.
_PENDING = re.compile(
    r"\b(?:"
    + "|".join(
        (
            _prefixes(*"sk-", "[A-Za-z0-9_*-]*"),
            _prefixes(*"AIza", "[0-9A-Za-z_-]*"),
            _prefixes(*"gsk_", "[A-Za-z0-9]*"),
            _prefixes(*"xai-", "[A-Za-z0-9]*"),
            _prefixes(*"hf_", "[A-Za-z0-9]*"),
            _prefixes(*"AKIA", "[0-9A-Z]*"),
            "(?i:" + _prefixes(*"bearer", rf"\s+{_BEARER_CHAR}*") + ")",
            "(?i:"
            + "|".join(_prefixes(*name) for name in _NAMES)
            + r"""|(?:(?:x[-_])?api[-_]?key|access[-_]?token|auth[-_]?token|client[-_]?secret"""
            + r"""|secret[-_]?key|password)["']?\s*(?:[=:]\s*["']?[^\s"'&,;)}\]]*)?)""",
        )
    )
    + r")\Z"
)
_WORD_CHAR = re.compile(r"\w")


def redact_secrets(text: str) -> str:
    """Replace API-key-like tokens in ``text`` with ``[REDACTED]``.

    Covers OpenAI/Anthropic ``sk-...`` keys (also masked ones like ``sk-proj-****abcd``),
    Google ``AIza...``, Groq ``gsk_...``, xAI, Hugging Face and AWS access key ids,
    ``Bearer <token>`` and ``api_key=...``-style assignments (also ``"api_key": "..."``,
    ``x-api-key:``, ``access_token=``, ``client_secret=``, ``password=``). After
    ``Bearer`` only a credential-shaped value is replaced: 6 or more characters
    with a digit or one of ``._~+/=`` in them, or 20 or more; a word (``bearer
    token(s)``) stays. The rest of the text is unchanged; applying it twice gives
    the same result as once.
    """
    text = _ASSIGNED_SECRET.sub(lambda m: f"{m['name']}{m['sep']}{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m['scheme']} {REDACTED}", text)
    return _TOKENS.sub(REDACTED, text)


class StreamRedactor:
    """Redacts a text that arrives in pieces (a streamed answer) while it arrives.

    ``feed(piece)`` returns what can be shown now and ``flush()`` the rest once
    the text is complete; the redactor then starts afresh. Joined, they are
    exactly the whole text with every one of ``secrets`` (values shorter than
    :data:`MIN_SECRET_LENGTH` ignored, the longest first) replaced by ``[REDACTED]`` and then
    :func:`redact_secrets` applied, however the text was split, as
    :class:`praisonlike.logging_setup.Redactor` redacts it. Each returned piece
    is itself unchanged by that redaction.

    Held back is only a tail that may still turn out to be (part of) a secret:
    the beginning of one of ``secrets``, or a token, ``Bearer <token>`` or
    ``name=value`` that no later character has ended yet, and the last word,
    which the next piece may continue. A piece costs a few regular-expression
    passes over that tail and the piece.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
        )
        self._raw = ""  # not yet past the replacement of ``secrets``
        self._text = ""  # ``secrets`` replaced; the patterns not yet applied
        self._scan = 0  # no tail of ``_text`` that can still match starts before this

    def feed(self, piece: str) -> str:
        """The redacted text that can be shown after ``piece`` (maybe ``""``)."""
        return self._patterns(self._literals(piece))

    def flush(self) -> str:
        """The redacted rest of the text; afterwards a new text may begin."""
        rest = redact_secrets(self._text + self._replace(self._raw))
        self._raw, self._text, self._scan = "", "", 0
        return rest

    def _replace(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def _literals(self, piece: str) -> str:
        if not self._secrets:
            return piece
        raw = self._raw + piece
        cut = len(raw)
        for secret in self._secrets:
            start = raw.find(secret[0], max(len(raw) - len(secret) + 1, 0), cut)
            while start != -1 and not secret.startswith(raw[start:]):
                start = raw.find(secret[0], start + 1, cut)
            if start != -1:
                cut = start
        head = self._replace(raw[:cut])
        if cut < len(raw) and head + self._replace(raw[cut:]) != self._replace(raw):
            cut, head = 0, ""
        self._raw = raw[cut:]
        return head

    def _patterns(self, piece: str) -> str:
        if not piece:
            return ""
        text = self._text + piece
        found = _PENDING.search(text, self._scan)
        pending = found.start() if found else len(text)
        cut = pending
        while not found and cut and _WORD_CHAR.match(text[cut - 1]):
            cut -= 1  # the last word may go on in the next piece
        head = redact_secrets(text[:cut]) if cut else ""
        if 0 < cut < len(text) and head + redact_secrets(text[cut:]) != redact_secrets(text):
            cut, head = 0, ""
        self._text, self._scan = text[cut:], pending - cut
        return head


__all__ = ["MIN_SECRET_LENGTH", "REDACTED", "StreamRedactor", "redact_secrets"]
