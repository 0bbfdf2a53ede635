"""Running a test module on both transports (see praisonlike.models.transport).

A module opts in with an autouse fixture parametrized over :data:`TRANSPORTS`
that calls :func:`use_transport`; every test of the module then runs once with
the direct ``openai`` SDK transport and once through LiteLLM. :data:`ROUTES`
adds a provider LiteLLM translates (Anthropic's Messages wire), for tests that
build their model config with :func:`route_llm` and read requests with
:func:`text_messages`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from praisonlike.models.config import LLMConfig
from praisonlike.models.transport import TRANSPORT_ENV, transport_for
from praisonlike.testing import LocalLLMServer

TRANSPORTS = ("openai", "litellm")
ANTHROPIC = "anthropic"
ROUTES = (*TRANSPORTS, ANTHROPIC)
"""The two transports on the OpenAI wire, and ``anthropic/...`` on the Messages wire
(always through LiteLLM)."""


def use_transport(monkeypatch: pytest.MonkeyPatch, name: str, llm: Mapping[str, Any]) -> None:
    """Send this test's calls to ``llm`` through transport ``name``; checks that they will."""
    if name == "litellm":
        monkeypatch.setenv(TRANSPORT_ENV, "litellm")
    else:
        monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    assert transport_for(LLMConfig.coerce(dict(llm))) == name


def route_llm(
    monkeypatch: pytest.MonkeyPatch, server: LocalLLMServer, route: str, model: str
) -> dict[str, str]:
    """``model`` on ``server`` by ``route`` (one of :data:`ROUTES`); checks the transport."""
    if route == ANTHROPIC:
        monkeypatch.delenv(TRANSPORT_ENV, raising=False)
        llm = server.llm_config(model, wire="anthropic")
        assert transport_for(LLMConfig.coerce(dict(llm))) == "litellm"
        return llm
    llm = server.llm_config(model)
    use_transport(monkeypatch, route, llm)
    return llm


def text_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Text-only messages as ``{"role", "content"}`` on either wire: Anthropic's text
    blocks joined into one string (a message with other blocks is left as it is)."""
    plain = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and all(block.get("type") == "text" for block in content):
            message = {**message, "content": "".join(block["text"] for block in content)}
        plain.append(dict(message))
    return plain
