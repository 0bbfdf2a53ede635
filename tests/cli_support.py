"""What the CLI tests share: running ``praisonlike`` in-process, and the variables
that pick a model."""

from __future__ import annotations

import pytest

from praisonlike.cli import main

PROVIDER_VARIABLES = (
    "PRAISONLIKE_MODEL",
    "OPENAI_MODEL_NAME",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
)
"""The environment variables from which an agent without ``llm=`` takes its model."""


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``praisonlike ARGV`` in this process: its exit code, stdout and stderr."""
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lines_with(prefix: str, text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]
