"""``praisonlike chat --max-tokens / --temperature``, and the hint after an answer the
output cap cut short."""

from __future__ import annotations

import io
import sys

import pytest
from cli_support import run_main

from praisonlike.testing import LocalLLMServer, Text

HINT = (
    "praisonlike: hint: the answer was cut at the model's output limit: --max-tokens "
    "raises it (up to what the model allows)"
)


def _model(server: LocalLLMServer) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.url, "--api-key", "sk-test"]


def test_the_options_reach_the_request_and_a_cut_answer_gets_the_hint(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text("Once upon a time there", finish_reason="length"))
    argv = ["chat", "Tell a story", *_model(server), "--max-tokens", "5", "--temperature", "0.3"]
    code, out, err = run_main(argv, capsys)
    assert code == 0, err
    assert "Once upon a time there" in out
    body = server.requests[0].body
    assert (body["max_tokens"], body["temperature"]) == (5, 0.3)
    assert HINT in err.splitlines()


def test_a_complete_answer_gets_no_hint_and_the_provider_defaults_stay(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text("Paris."))
    code, _, err = run_main(["chat", "Capital of France?", *_model(server)], capsys)
    assert code == 0, err
    assert "hint" not in err
    body = server.requests[0].body
    assert "temperature" not in body and "max_tokens" not in body


def test_the_interactive_session_hints_after_a_cut_answer_and_goes_on(
    server: LocalLLMServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server.extend([Text("A long", finish_reason="length"), Text("Short.")])
    monkeypatch.setattr(sys, "stdin", io.StringIO("Tell a story\nAnd now?\n"))
    code, out, err = run_main(["chat", *_model(server)], capsys)
    assert code == 0, err
    assert err.splitlines().count(HINT) == 1
    assert "Short." in out


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-tokens", "0", "0 is not an output cap: give a positive int"),
        ("--max-tokens", "many", "not a number of tokens: 'many'"),
        ("--temperature", "-1", "-1 is not a temperature: give a number >= 0"),
        ("--temperature", "nan", "nan is not a temperature"),
        ("--temperature", "warm", "not a number: 'warm'"),
    ],
)
def test_a_bad_value_is_a_usage_error_before_any_request(
    server: LocalLLMServer,
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    message: str,
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_main(["chat", "hi", *_model(server), option, value], capsys)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
    assert server.request_count == 0
