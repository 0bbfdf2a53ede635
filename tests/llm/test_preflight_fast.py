"""The pre-flight check decides a missing key of a well-known model without
importing LiteLLM: ``praisonlike chat`` on ``gpt-4o-mini`` without
``OPENAI_API_KEY`` fails at once, naming the variable. A turn runs the check
before anything else of its first request (the context window's look-up of a
model missing from the map would import LiteLLM)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CLI = """
import sys
from praisonlike.cli import main
code = main(["chat", "hi", "--model", "gpt-4o-mini", "--no-stream"])
print("exit", code, "litellm", "litellm" in sys.modules)
"""

CHECK = """
import sys
from praisonlike.errors import MissingCredentialsError
from praisonlike.models.config import LLMConfig
from praisonlike.models.preflight import check_model
try:
    check_model(LLMConfig(model={model!r}))
except MissingCredentialsError as error:
    print(" ".join(error.missing_variables), "litellm", "litellm" in sys.modules)
"""

TURN = """
import sys, warnings
from praisonlike import Agent
from praisonlike.errors import MissingCredentialsError
warnings.simplefilter("error")
try:
    Agent(instructions="Answer.", llm={model!r}).chat("hi")
except MissingCredentialsError as error:
    print(" ".join(error.missing_variables), "litellm", "litellm" in sys.modules)
"""


def _env(tmp: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_AUTH_TOKEN")) and k != "PRAISONLIKE_TRANSPORT"
    }
    env.update(HOME=tmp, PRAISONLIKE_NO_WARMUP="1")
    return env


def test_a_cli_chat_without_the_openai_key_fails_without_importing_litellm(
    tmp_path: object,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CLI],
        capture_output=True,
        text=True,
        env=_env(str(tmp_path)),
        timeout=120,
        cwd=str(tmp_path),
    )
    assert done.stdout.strip().splitlines()[-1] == "exit 2 litellm False", done.stderr
    assert "praisonlike: error: MissingCredentialsError" in done.stderr
    assert "OPENAI_API_KEY" in done.stderr


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY"),
        ("claude-haiku-4-5", "ANTHROPIC_API_KEY"),
        ("groq/some-new-model", "GROQ_API_KEY"),
        ("gemini/gemini-2.0-flash", "GEMINI_API_KEY GOOGLE_API_KEY"),
    ],
)
def test_a_known_providers_missing_key_is_named_without_importing_litellm(
    model: str, named: str, tmp_path: object
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK.format(model=model)],
        capture_output=True,
        text=True,
        env=_env(str(tmp_path)),
        timeout=120,
    )
    assert done.stdout.strip() == f"{named} litellm False", done.stderr


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("anthropic/claude-hiaku-4-5", "ANTHROPIC_API_KEY"),
        ("groq/some-new-model", "GROQ_API_KEY"),
        ("mistral/mistral-lage-latest", "MISTRAL_API_KEY"),
    ],
)
def test_a_turn_on_an_unmapped_model_of_a_known_provider_fails_without_importing_litellm(
    model: str, named: str, tmp_path: object
) -> None:
    """No LiteLLM import and no warning of an unknown context window: the turn stops
    at the pre-flight, before its request is built."""
    done = subprocess.run(
        [sys.executable, "-c", TURN.format(model=model)],
        capture_output=True,
        text=True,
        env=_env(str(tmp_path)),
        timeout=120,
    )
    assert done.stdout.strip() == f"{named} litellm False", done.stderr
