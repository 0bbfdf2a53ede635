"""Shared fixtures: every test talks to a LocalLLMServer on 127.0.0.1 through real LiteLLM."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

# The same examples on every run (a clean clone's CI must not fail by the luck of the
# draw); PRAISONLIKE_HYPOTHESIS=explore draws new ones and remembers what failed.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("PRAISONLIKE_HYPOTHESIS", "repeatable"))

os.environ["PRAISONLIKE_ALLOW_MODEL_REQUESTS"] = "0"
for _key in (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "PRAISONLIKE_MODEL",
    "OPENAI_MODEL_NAME",
):
    os.environ.pop(_key, None)

from praisonlike.testing import LocalLLMServer  # noqa: E402


@pytest.fixture
def server() -> Iterator[LocalLLMServer]:
    with LocalLLMServer() as running:
        yield running


@pytest.fixture
def llm(server: LocalLLMServer) -> dict[str, Any]:
    """The ``llm=`` dict pointing an agent at the test server."""
    return server.llm_config()
