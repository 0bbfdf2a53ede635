"""How the ``praisonlike`` command reports a failure: the error once, one hint, the exit code.

In-process ``main()`` calls against LocalLLMServer (docs/cli.md, "Errors and exit codes").
"""

from __future__ import annotations

import io
import sys

import pytest
from cli_support import lines_with, run_main

from praisonlike import Agent, ExecutionConfig
from praisonlike.cli.failures import report
from praisonlike.cli.output import Output
from praisonlike.errors import APIConnectionError, PraisonlikeError
from praisonlike.testing import Fault, LocalLLMServer

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)

PROVIDER_TEXT = "The model `nope` does not exist"


def model_args(server: LocalLLMServer, model: str = "openai/nope") -> list[str]:
    return ["--model", model, "--api-base", server.url, "--api-key", "sk-test"]


@pytest.mark.parametrize("json_output", [False, True])
def test_a_failed_turn_prints_its_error_once_then_one_hint(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], json_output: bool
) -> None:
    server.add(Fault.model_not_found("nope"))
    extra = ["--json"] if json_output else []
    code, out, err = run_main(["chat", "hi", *model_args(server), *extra], capsys)
    assert code == 1
    shown = err if json_output else out + err  # with --json stdout is the RunResult
    assert shown.count(PROVIDER_TEXT) == 1
    [error] = lines_with("praisonlike: error: ", err)
    assert error.startswith("praisonlike: error: ModelNotFoundError: ")
    assert PROVIDER_TEXT in error
    [hint] = lines_with("praisonlike: hint: ", err)
    assert "praisonlike models info" in hint
    assert err.splitlines()[-2:] == [error, hint]
    display = err if json_output else out
    [summary] = [line for line in display.splitlines() if line.startswith("! error | ")]
    assert summary.startswith("! error | no model call answered | ")
    assert "round" not in summary and "tokens" not in summary


def test_a_failed_turn_in_a_session_prints_its_error_once(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server.add(Fault.model_not_found("nope"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("hi\n"))
    code, out, err = run_main(["chat", *model_args(server)], capsys)
    assert code == 0
    assert (out + err).count(PROVIDER_TEXT) == 1
    assert len(lines_with("praisonlike: error: ", err)) == 1
    assert len(lines_with("praisonlike: hint: ", err)) == 1
    assert "session cost: unknown" in out


class QuotaError(PraisonlikeError):
    """An error that says what to do about it."""

    hint = "raise the quota in the\nprovider's console"


def test_an_error_that_carries_a_hint_gets_that_hint() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    output = Output.create(stdout=stdout, stderr=stderr)
    code = report(QuotaError("quota used up"), output, debug=False)
    assert code == 1
    assert stdout.getvalue() == ""
    assert stderr.getvalue().splitlines() == [
        "praisonlike: error: QuotaError: quota used up",
        "praisonlike: hint: raise the quota in the provider's console",
    ]


class SpellingError(PraisonlikeError):
    hint = "spell it provider/model"

    def __init__(self) -> None:
        super().__init__(f"unknown model 'gpt-9' ({self.hint})")


def test_a_hint_the_message_repeats_is_printed_once() -> None:
    stderr = io.StringIO()
    report(SpellingError(), Output.create(stdout=io.StringIO(), stderr=stderr), debug=False)
    assert stderr.getvalue().splitlines() == [
        "praisonlike: error: SpellingError: unknown model 'gpt-9'",
        "praisonlike: hint: spell it provider/model",
    ]


def test_a_missing_key_is_one_line_one_hint_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("PRAISONLIKE_API_KEY", raising=False)
    code, out, err = run_main(["chat", "hi", "--model", "gpt-4o-mini"], capsys)
    assert code == 2
    [error] = lines_with("praisonlike: error: ", err)
    assert "OPENAI_API_KEY" in error
    assert len(lines_with("praisonlike: hint: ", err)) == 1
    assert "OPENAI_API_KEY" not in out


@pytest.mark.parametrize(
    ("api_base", "hint"),
    [
        (None, "start the model server at http://127.0.0.1:{port}"),
        ("http://localhost:{port}/v1", "start the model server at http://localhost:{port}"),
    ],
)
def test_a_dead_endpoint_names_it_and_says_to_start_the_server(
    api_base: str | None, hint: str
) -> None:
    with LocalLLMServer() as dead:
        url, port = dead.url, dead.port  # closed when the block ends: refused from then on
    base = url if api_base is None else api_base.format(port=port)
    agent = Agent(
        instructions="x",
        llm={"model": "openai/nope", "api_base": base, "api_key": "sk-test"},
        execution=ExecutionConfig(max_retries=0),
    )
    with pytest.raises(APIConnectionError) as raised:
        agent.chat("hi")
    stderr = io.StringIO()

    code = report(raised.value, Output.create(stdout=io.StringIO(), stderr=stderr), debug=False)

    assert code == 1
    error, shown_hint = stderr.getvalue().splitlines()
    assert error.startswith("praisonlike: error: APIConnectionError: ")
    assert "could not reach" in error
    assert shown_hint.startswith("praisonlike: hint: " + hint.format(port=port))
