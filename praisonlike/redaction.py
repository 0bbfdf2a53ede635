"""Redaction of API keys and other secrets from text (provider messages, logs, output)."""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"
_ASSIGNED_SECRET = re.compile(
    r"""(?P<name>\b(?:x[-_])?api[-_]?key|\baccess[-_]?token|\bauth[-_]?token"""
    r"""|\bclient[-_]?secret|\bsecret[-_]?key|\bpassword)"""
    r"""(?P<sep>["']?\s*[=:]\s*["']?)(?!\[REDACTED\])(?P<value>[^\s"'&,;)}\]]+)""",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(?P<scheme>Bearer)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
_TOKENS = re.compile(
    r"\bsk-[A-Za-z0-9_*-]{8,}"
    r"|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\bgsk_[A-Za-z0-9]{16,}"
    r"|\bxai-[A-Za-z0-9]{16,}"
    r"|\bhf_[A-Za-z0-9]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
)


def redact_secrets(text: str) -> str:
    """Replace API-key-like tokens in ``text`` with ``[REDACTED]``.

    Covers OpenAI/Anthropic ``sk-...`` keys (also masked ones like ``sk-proj-****abcd``),
    Google ``AIza...``, Groq ``gsk_...``, xAI, Hugging Face and AWS access key ids,
    ``Bearer <token>`` and ``api_key=...``-style assignments (also ``"api_key": "..."``,
    ``x-api-key:``, ``access_token=``, ``client_secret=``, ``password=``). The rest of
    the text is unchanged; applying it twice gives the same result as once.
    """
    text = _ASSIGNED_SECRET.sub(lambda m: f"{m['name']}{m['sep']}{REDACTED}", text)
    text = _BEARER.sub(lambda m: f"{m['scheme']} {REDACTED}", text)
    return _TOKENS.sub(REDACTED, text)


__all__ = ["REDACTED", "redact_secrets"]
