"""API keys never show: log records, repr, events, errors and the CLI's output."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from typing import Any

import pytest

from praisonlike import Agent, LLMConfig
from praisonlike.cli import main
from praisonlike.errors import AuthenticationError, BadRequestError
from praisonlike.logging_setup import (
    LOGGER_NAME,
    RedactingFilter,
    Redactor,
    debug_logging,
)
from praisonlike.testing import Fault, LocalLLMServer

CANARY = "sk-canary-1234567890abcdef"
PLAIN_CANARY = "plain-canary-key-42"


def record(message: str, *args: Any, exc_info: Any = None) -> logging.LogRecord:
    return logging.LogRecord("praisonlike.test", logging.INFO, __file__, 1, message, args, exc_info)


def formatted(log_record: logging.LogRecord) -> str:
    return logging.Formatter().format(log_record)


def test_filter_scrubs_message_arguments_and_bearer_headers() -> None:
    entry = record(
        "calling with key %s and headers %r", CANARY, {"Authorization": "Bearer abc.def"}
    )
    assert RedactingFilter().filter(entry) is True
    text = formatted(entry)
    assert CANARY not in text and "abc.def" not in text
    assert text.startswith("calling with key [REDACTED] and headers ")
    assert "Bearer [REDACTED]" in text


def test_filter_scrubs_tracebacks_and_literal_secrets() -> None:
    try:
        raise RuntimeError(f"bad key {CANARY} / {PLAIN_CANARY}")
    except RuntimeError:
        import sys

        entry = record("failed", exc_info=sys.exc_info())
    RedactingFilter(secrets=[PLAIN_CANARY]).filter(entry)
    text = formatted(entry)
    assert "RuntimeError: bad key [REDACTED] / [REDACTED]" in text
    assert CANARY not in text and PLAIN_CANARY not in text


def test_redactor_ignores_tiny_secrets() -> None:
    assert Redactor(["", "ab"])("ab cd") == "ab cd"
    assert Redactor([PLAIN_CANARY])(f"x={PLAIN_CANARY}.") == "x=[REDACTED]."


def test_praisonlike_logger_is_silent_by_default(capfd: pytest.CaptureFixture[str]) -> None:
    logger = logging.getLogger(LOGGER_NAME)
    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)
    logging.getLogger("praisonlike.memory").warning("nobody should see this")
    assert capfd.readouterr().err == ""


def test_debug_logging_is_redacted_and_undone() -> None:
    logger = logging.getLogger(LOGGER_NAME)
    handlers, level = list(logger.handlers), logger.level
    stream = io.StringIO()
    with debug_logging(stream, secrets=[PLAIN_CANARY]):
        logging.getLogger("praisonlike.memory").debug("key %s then %s", CANARY, PLAIN_CANARY)
        [litellm_filter] = [
            f for f in logging.getLogger("LiteLLM").filters if isinstance(f, RedactingFilter)
        ]
        entry = record("litellm saw api_key=%s and %s", "hidden-value", PLAIN_CANARY)
        litellm_filter.filter(entry)
        assert entry.getMessage() == "litellm saw api_key=[REDACTED] and [REDACTED]"
    logging.getLogger("praisonlike.memory").warning("after the block")
    text = stream.getvalue()
    assert "DEBUG praisonlike.memory: key [REDACTED] then [REDACTED]" in text
    assert CANARY not in text and PLAIN_CANARY not in text
    assert "after the block" not in text
    assert (logger.handlers, logger.level) == (handlers, level)
    assert not any(isinstance(f, RedactingFilter) for f in logging.getLogger("LiteLLM").filters)


def test_agent_and_config_repr_hide_the_key() -> None:
    agent = Agent(instructions="x", llm={"model": "openai/gpt-4o-mini", "api_key": CANARY})
    config = LLMConfig.coerce({"model": "openai/gpt-4o-mini", "api_key": CANARY})
    assert config.api_key is not None and config.api_key.get_secret_value() == CANARY
    dumped = json.dumps(dataclasses.asdict(config), default=str)
    for text in (repr(agent), str(agent), repr(config), str(config), dumped):
        assert CANARY not in text
    assert "openai/gpt-4o-mini" in repr(agent)


@pytest.mark.parametrize(
    ("fault", "error_type"),
    [
        (
            Fault(
                401,
                f"Incorrect API key provided: {CANARY}.",
                type="invalid_request_error",
                code="invalid_api_key",
            ),
            AuthenticationError,
        ),
        (Fault.bad_request(f"unsupported parameter api_key={CANARY}"), BadRequestError),
    ],
)
def test_errors_and_events_of_a_failing_call_hide_the_key(
    server: LocalLLMServer, fault: Fault, error_type: type[Exception]
) -> None:
    server.add(fault)
    agent = Agent(instructions="x", llm={**server.llm_config(), "api_key": CANARY})
    events: list[Any] = []
    with pytest.raises(error_type) as raised:
        for event in agent.stream_events("hi"):
            events.append(event)
    assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}"
    assert "[REDACTED]" in str(raised.value)
    texts = [str(raised.value), repr(raised.value), *(e.model_dump_json() for e in events)]
    result = agent.last_result
    assert result is not None
    texts += [result.model_dump_json(), repr(agent)]
    assert all(CANARY not in text for text in texts)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("extra", [[], ["--json"], ["--debug"], ["--no-stream"]])
def test_cli_output_of_a_failing_call_hides_the_key(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    server.add(Fault(401, f"Incorrect API key provided: {PLAIN_CANARY} ({CANARY})"))
    code, out, err = run_cli(
        [
            "chat",
            "hello",
            "--model",
            "openai/test-model",
            "--api-base",
            server.url,
            "--api-key",
            PLAIN_CANARY,
            *extra,
        ],
        capsys,
    )
    assert code == 1
    assert server.requests[0].headers["authorization"] == f"Bearer {PLAIN_CANARY}"
    assert "praisonlike: error: AuthenticationError: " in err
    assert "[REDACTED]" in out + err
    assert PLAIN_CANARY not in out + err and CANARY not in out + err
    if "--debug" in extra:
        assert "Traceback (most recent call last)" in err


def test_cli_redacts_provider_keys_from_the_environment(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-plain-secret-9")
    server.add(Fault.bad_request("you sent anthropic-plain-secret-9 by mistake"))
    code, out, err = run_cli(
        [
            "chat",
            "hi",
            "--model",
            "openai/test-model",
            "--api-base",
            server.url,
            "--api-key",
            "sk-test",
        ],
        capsys,
    )
    assert code == 1
    assert "you sent [REDACTED] by mistake" in err
    assert "anthropic-plain-secret-9" not in out + err
