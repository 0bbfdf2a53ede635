"""The ``praisonlike`` command's warnings: one redacted line each on stderr; the
unknown-context-window warning is held to the end and dropped when the command
failed on its configuration (the model was never usable) or could not reach the
model's server."""

from __future__ import annotations

import socket

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


def test_a_server_not_running_is_the_only_line_no_context_window_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    arguments = ["--model", "openai/my-dead-model", "--api-base", dead, "--api-key", "none"]
    code, _out, err = run_main(["chat", "hi", *arguments], capsys)
    assert code == 1
    assert lines_with("praisonlike: error: APIConnectionError: ", err)
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
    assert "--context-window" in warning


def test_context_window_names_the_window_of_a_model_the_map_does_not_know(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text("fine"))
    arguments = [*model_args(server, "openai/my-other-model"), "--context-window", "32768"]
    code, out, err = run_main(["chat", "hi", *arguments], capsys)
    assert code == 0
    assert "fine" in out
    assert not lines_with("praisonlike: warning: ", err)


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_context_window_that_is_not_a_positive_int_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_main(["chat", "hi", "--model", "local", "--context-window", value], capsys)
    assert exited.value.code == 2
    assert "--context-window" in capsys.readouterr().err
