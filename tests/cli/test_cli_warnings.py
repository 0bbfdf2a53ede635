"""The ``praisonlike`` command's warnings: one redacted line each on stderr; the
unknown-context-window warning is held to the end and dropped when the command
failed on its configuration (the model was never usable)."""

from __future__ import annotations

import pytest
from cli_support import lines_with, run_main

from praisonlike.testing import LocalLLMServer, Text

pytestmark = pytest.mark.filterwarnings(
    "always::praisonlike.context.window.ContextWindowUnknownWarning"
)


def model_args(server: LocalLLMServer, model: str) -> list[str]:
    return ["--model", model, "--api-base", server.url, "--api-key", "sk-test"]


def test_an_unknown_model_is_the_only_line_no_context_window_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _out, err = run_main(["chat", "hi", "--model", "gpt-9-turbo"], capsys)
    assert code == 2
    assert lines_with("praisonlike: error: UnknownModelError: ", err)
    assert not lines_with("praisonlike: warning: ", err)


def test_a_turn_on_a_model_of_unknown_window_still_warns_once(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text("fine"))
    code, out, err = run_main(["chat", "hi", *model_args(server, "openai/my-own-model")], capsys)
    assert code == 0
    assert "fine" in out
    [warning] = lines_with("praisonlike: warning: ", err)
    assert "context window of model 'openai/my-own-model' is unknown" in warning
