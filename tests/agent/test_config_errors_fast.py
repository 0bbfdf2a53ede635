"""A model that cannot work as configured fails at once, before any request and
without retries: ``praisonlike chat`` names the missing variable or the unknown
model in one error line and exits with the usage code."""

from __future__ import annotations

from pathlib import Path

import pytest

from praisonlike.cli import main

pytestmark = pytest.mark.filterwarnings(
    "ignore::praisonlike.context.window.ContextWindowUnknownWarning"
)


@pytest.fixture(autouse=True)
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("model", "named"),
    [
        ("gpt-4o-mini", "OPENAI_API_KEY"),
        ("anthropic/claude-haiku-4-5", "ANTHROPIC_API_KEY"),
        ("gpt-9-turbo", "unknown model 'gpt-9-turbo'"),
        ("nosuchprovider/foo", "no provider 'nosuchprovider'"),
    ],
)
def test_chat_names_what_to_fix_in_one_line_without_retrying(
    model: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["chat", "hi", "--model", model, "--no-stream"])

    out, err = capsys.readouterr()
    assert code == 2
    [error] = [line for line in err.splitlines() if named in line]
    assert error.startswith("praisonlike: error: ")
    assert "retry" not in (out + err).lower()
    assert "RequestBlocked" not in err


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--model", "openai/x", "--api-base", "notaurl", "--api-key", "none"], "api_base must"),
        (["--model", "openai/x", "--api-base", "localhost:8080/v1"], "api_base must"),
        (
            ["--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1/chat/completions"],
            "api_base is the API's root, to which the client adds /chat/completions: "
            "'http://127.0.0.1:9/v1', not 'http://127.0.0.1:9/v1/chat/completions'",
        ),
        (["--model", "local", "--session", ""], "session_id"),
        (["--model", "local", "--session", "  "], "session_id"),
    ],
)
def test_a_malformed_endpoint_or_session_is_a_usage_error(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused as a configuration mistake, before anything is tried (an endpoint that
    is not a URL was retried as a connection failure; an empty session id reached the
    store and came back as a raw validation error)."""
    code = main(["chat", "hi", *argv, "--no-stream"])

    out, err = capsys.readouterr()
    assert code == 2
    [error] = err.splitlines()
    assert error.startswith("praisonlike: error: ConfigurationError: ") and named in error
    assert "retr" not in (out + err).lower()


def test_the_python_api_refuses_the_same_at_construction() -> None:
    from praisonlike import Agent
    from praisonlike.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="api_base must be an http"):
        Agent(instructions="x", llm={"model": "openai/x", "api_base": "ftp://host/v1"})
    with pytest.raises(ConfigurationError, match="session_id"):
        Agent(instructions="x", llm="local", session_id="")
    assert Agent(instructions="x", llm="local", session_id="a b").spec.session_id == "a b"


def test_an_endpoint_url_given_as_api_base_names_the_root_to_give() -> None:
    """The client adds /chat/completions to api_base: a pasted endpoint URL made every
    request 404 as a ModelNotFoundError. Other providers' api_base is left to them."""
    from praisonlike import Agent
    from praisonlike.errors import ConfigurationError

    endpoint = "http://127.0.0.1:9/v1/chat/completions/"
    with pytest.raises(ConfigurationError, match=r"'http://127\.0\.0\.1:9/v1', not"):
        Agent(instructions="x", llm={"model": "openai/x", "api_base": endpoint, "api_key": "k"})
    with pytest.raises(ConfigurationError, match=r"'https://h/api\?v=1', not"):
        Agent(
            instructions="x", llm={"model": "openai/x", "api_base": "https://h/api/completions?v=1"}
        )
    for llm in (
        {"model": "openai/x", "api_base": "http://127.0.0.1:9/v1", "api_key": "k"},
        {
            "model": "openai/x",
            "api_base": "http://127.0.0.1:9/completions-proxy/v1",
            "api_key": "k",
        },
        {
            "model": "azure/gpt-4o",
            "api_base": "https://r.openai.azure.com/openai/deployments/d/chat/completions",
        },
    ):
        Agent(instructions="x", llm=llm)


@pytest.mark.parametrize("model", ["openai/", "/gpt-4o", " / "])
def test_a_model_string_with_an_empty_provider_or_name_is_refused_at_construction(
    model: str,
) -> None:
    from praisonlike import Agent
    from praisonlike.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="has an empty provider or name"):
        Agent(instructions="x", llm=model)
