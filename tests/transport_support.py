"""Running a test module on both transports (see praisonlike.models.transport).

A module opts in with an autouse fixture parametrized over :data:`TRANSPORTS`
that calls :func:`use_transport`; every test of the module then runs once with
the direct ``openai`` SDK transport and once through LiteLLM.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from praisonlike.models.config import LLMConfig
from praisonlike.models.transport import TRANSPORT_ENV, transport_for

TRANSPORTS = ("openai", "litellm")


def use_transport(monkeypatch: pytest.MonkeyPatch, name: str, llm: Mapping[str, Any]) -> None:
    """Send this test's calls to ``llm`` through transport ``name``; checks that they will."""
    if name == "litellm":
        monkeypatch.setenv(TRANSPORT_ENV, "litellm")
    else:
        monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    assert transport_for(LLMConfig.coerce(dict(llm))) == name
