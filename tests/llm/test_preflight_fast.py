"""The pre-flight check decides a missing key of a well-known model without
importing LiteLLM: ``praisonlike chat`` on ``gpt-4o-mini`` without
``OPENAI_API_KEY`` fails at once, naming the variable. A turn runs the check
before anything else of its first request (the context window's look-up of a
model missing from the map would import LiteLLM)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fresh_process import fresh_python

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
from praisonlike.errors import MissingCredentialsError, UnknownModelError
warnings.simplefilter("error")
try:
    Agent(instructions="Answer.", llm={model!r}).chat("hi")
except UnknownModelError as error:
    print("unknown", error.suggestions[0], "litellm", "litellm" in sys.modules)
except MissingCredentialsError as error:
    print("key", *error.missing_variables, "litellm", "litellm" in sys.modules)
"""

MODELS_INFO = """
import sys
from praisonlike.cli import main
code = main(["models", "info", "gpt-4o-mnii"])
print("exit", code, "litellm", "litellm" in sys.modules)
"""


def test_a_cli_chat_without_the_openai_key_fails_without_importing_litellm(
    tmp_path: Path,
) -> None:
    done = fresh_python(CLI, tmp_path)
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
    model: str, named: str, tmp_path: Path
) -> None:
    done = fresh_python(CHECK.format(model=model), tmp_path)
    assert done.stdout.strip() == f"{named} litellm False", done.stderr


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("anthropic/claude-hiaku-4-5", "key ANTHROPIC_API_KEY"),
        ("groq/some-new-model", "key GROQ_API_KEY"),
        ("mistral/mistral-lage-latest", "key MISTRAL_API_KEY"),
        ("claude-sonnet-9", "key ANTHROPIC_API_KEY"),
        ("gpt-4o-mnii", "unknown openai/gpt-4o-mini"),
        ("gpt-9-turbo", "unknown openai/gpt-4-turbo"),
        ("deepseek-chat", "unknown deepseek/deepseek-chat"),
        ("llama3", "unknown ollama/llama3"),
        ("mistral-large-latest", "unknown mistral/mistral-large-latest"),
        ("Gpt-4o-mini", "unknown openai/gpt-4o-mini"),
        ("LOCAL", "unknown local"),
        ("OpenAI/gpt-4o-mini", "unknown openai/gpt-4o-mini"),
        ("Anthropic/claude-haiku-4-5", "unknown anthropic/claude-haiku-4-5"),
        ("opnai/gpt-4o-mini", "unknown openai/gpt-4o-mini"),
    ],
)
def test_a_turn_on_an_unmapped_or_misspelt_model_fails_without_importing_litellm(
    model: str, expected: str, tmp_path: Path
) -> None:
    """No LiteLLM import and no warning of an unknown context window: the turn stops
    at the pre-flight, before its request is built. A bare name is told from
    LiteLLM's bundled map (``praisonlike.models.bare_names``): refused when LiteLLM
    surely cannot route it, its key checked when a routing rule names the provider.
    A known provider's prefix in other letter case is refused (LiteLLM refuses it)."""
    done = fresh_python(TURN.format(model=model), tmp_path)
    assert done.stdout.strip() == f"{expected} litellm False", done.stderr


def test_models_info_of_a_misspelt_bare_name_answers_without_litellm(tmp_path: Path) -> None:
    done = fresh_python(MODELS_INFO, tmp_path)
    assert done.stdout.strip().splitlines()[-1] == "exit 2 litellm False", done.stderr
    assert "did you mean 'openai/gpt-4o-mini'" in done.stderr
