"""A streamed answer is scrubbed as it streams, exactly as if it had been scrubbed whole;
``Bearer`` before a word is not a credential; piped output is not hard-wrapped."""

from __future__ import annotations

import io
import itertools
import uuid
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_main
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from praisonlike import Agent, ContextConfig
from praisonlike.display import LiveDisplay
from praisonlike.logging_setup import Redactor
from praisonlike.memory import SQLiteStore
from praisonlike.redaction import StreamRedactor, redact_secrets
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

KEY = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234567890"
PLAIN_KEY = "plainKeyValue987"
ANSWER = f"The key is {KEY} ok."
SAMPLES = [
    ANSWER,
    f"use {PLAIN_KEY} then Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc-_x now",
    f"{PLAIN_KEY}sk-abcdefghijkl stays glued, mypassword=hunter22 too",
    "sk-aaaaaaaa-password = secretval and password: 'hunter2' here",
    "AKIAABCDEFGHIJKLMNOP AKIAABCDEFGHIJKLMNOPQ (2 bearer token(s)) api_key: abc123,x",
    "x-api-key:\n  abc123def456 AIzaSyA1234567890abcdefghijklmnopq hf_abcdefghijklmnopqrstu",
    f"plainKey plainKeyValue98 {PLAIN_KEY[:-1]}x {PLAIN_KEY}",
]
# The characters of the secrets and of the patterns' starts, separators and ends.
ALPHABET = "sk-proj_AIzaKBearer pasword=:'\n[]x1234567890plainKeyValue"


def streamed(parts: list[str], secrets: list[str]) -> list[str]:
    redactor = StreamRedactor(secrets)
    return [*(redactor.feed(part) for part in parts), redactor.flush()]


def splits(text: str) -> list[list[str]]:
    """``text`` cut once at every point, and one character at a time."""
    return [[text[:i], text[i:]] for i in range(len(text) + 1)] + [list(text)]


@pytest.mark.parametrize("secrets", [[], [PLAIN_KEY]], ids=["patterns", "with --api-key"])
@pytest.mark.parametrize("text", SAMPLES)
def test_every_split_point_gives_what_the_whole_text_gives(text: str, secrets: list[str]) -> None:
    redact = Redactor(secrets)
    whole = redact(text)
    for parts in splits(text):
        pieces = streamed(parts, secrets)
        assert "".join(pieces) == whole, parts
        assert all(redact(piece) == piece for piece in pieces), parts


@given(
    text=st.text(alphabet=ALPHABET, max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=6),
)
def test_any_split_gives_what_the_whole_text_gives(text: str, cuts: list[int]) -> None:
    points = sorted({min(cut, len(text)) for cut in cuts})
    parts = [text[a:b] for a, b in itertools.pairwise([0, *points, len(text)])]
    assert "".join(streamed(parts, [PLAIN_KEY])) == Redactor([PLAIN_KEY])(text)


def test_only_what_could_still_be_a_secret_is_held_back() -> None:
    redactor = StreamRedactor([PLAIN_KEY])
    assert redactor.feed("Hello world, the key is sk-pr") == "Hello world, the key is "
    assert redactor.feed("oj-ABCDEFGHIJKLMNOPQRSTUVWX") == ""
    assert redactor.feed("1234567890 ok. Then plain") == "[REDACTED] ok. Then "
    assert redactor.feed("KeyValue987.") == "[REDACTED]."
    assert redactor.feed(" Fine") == " "
    assert redactor.flush() == "Fine"
    assert redactor.feed("again ") == "again "


def test_live_display_scrubs_a_streamed_answer(server: LocalLLMServer, llm: dict[str, Any]) -> None:
    server.add(Text(f"{ANSWER} {PLAIN_KEY}!", chunk_size=3))
    console = Console(file=io.StringIO(), width=100)
    display = LiveDisplay(console, secrets=[PLAIN_KEY])
    agent = Agent(instructions="x", llm=llm, context=ContextConfig(max_context_tokens=8192))
    for event in agent.stream_events("hi"):
        display(event)
    file = console.file
    assert isinstance(file, io.StringIO)
    assert file.getvalue().splitlines()[0] == "The key is [REDACTED] ok. [REDACTED]!"


def chat(server: LocalLLMServer, *extra: str, api_key: str = "none") -> list[str]:
    model = ["--model", "openai/m", "--api-base", server.url, "--api-key", api_key]
    return ["chat", "hi", *model, *extra]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 4, 5, 7, 11])
def test_cli_streamed_answer_is_redacted(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], chunk_size: int
) -> None:
    server.add(Text(ANSWER, chunk_size=chunk_size))
    code, out, err = run_main(chat(server), capsys)
    assert code == 0, err
    assert server.requests[0].stream
    assert out.splitlines()[0] == "The key is [REDACTED] ok."
    assert KEY not in out + err and "sk-pr" not in out + err


def test_cli_json_live_display_on_stderr_is_redacted(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add(Text(ANSWER, chunk_size=4))
    code, out, err = run_main(chat(server, "--json"), capsys)
    assert code == 0, err
    assert '"output":"The key is [REDACTED] ok."' in out
    assert err.splitlines()[0] == "The key is [REDACTED] ok."
    assert KEY not in out + err


@pytest.mark.parametrize("chunk_size", [3, 4, 5])
def test_cli_streamed_api_key_value_is_redacted(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], chunk_size: int
) -> None:
    server.add(Text(f"You gave me {PLAIN_KEY}, thanks.", chunk_size=chunk_size))
    code, out, err = run_main(chat(server, api_key=PLAIN_KEY), capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "You gave me [REDACTED], thanks."
    assert PLAIN_KEY not in out + err


@pytest.mark.parametrize("stream", [True, False])
def test_a_placeholder_api_key_does_not_blank_out_words(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str], stream: bool
) -> None:
    """``--api-key none`` (what the docs give for a local server) is no secret to hide."""
    server.add(Text("There are none left, and no dummy either.", chunk_size=3))
    argv = chat(server, api_key="none") + ([] if stream else ["--no-stream"])
    code, out, err = run_main(argv, capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "There are none left, and no dummy either."


def test_cli_streamed_answer_repeating_a_tool_error_is_redacted(
    server: LocalLLMServer,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = f"failing_tool_{uuid.uuid4().hex}"
    (tmp_path / f"{module}.py").write_text(
        "def fetch(url: str) -> str:\n"
        '    """Fetch a page.\n\n    Args:\n        url: The page.\n    """\n'
        f"    raise RuntimeError('upstream rejected {KEY}')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    server.extend(
        [
            ToolCalls([Call("fetch", {"url": "https://example.invalid"}, id="f1")]),
            Text(f"The tool failed: upstream rejected {KEY}.", chunk_size=4),
        ]
    )
    code, out, err = run_main(chat(server, "--tool", f"{module}:fetch"), capsys)
    assert code == 0, err
    assert KEY not in str(server.requests[1].body)  # scrubbed before the model saw it
    assert "The tool failed: upstream rejected [REDACTED]." in out.splitlines()
    assert KEY not in out + err and "sk-pr" not in out + err


def test_bearer_redacts_a_credential_not_a_word() -> None:
    words = [
        "praisonlike: serving on http://127.0.0.1:8000 (2 bearer token(s))",
        "Send a Bearer token with each request.",
        "bearer tokens are mapped to owners; the bearer scheme is standard",
        "Bearer token-based auth",
    ]
    assert [redact_secrets(text) for text in words] == words
    credentials = {
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig": "Authorization: Bearer [REDACTED]",
        f"Authorization: Bearer {KEY}": "Authorization: Bearer [REDACTED]",
        "bearer abc.def sent": "bearer [REDACTED] sent",
        "Bearer tok-canary-0123456789abcdef": "Bearer [REDACTED]",
        "Bearer AbCdEfGhIjKlMnOpQrStUvWx": "Bearer [REDACTED]",
    }
    assert {text: redact_secrets(text) for text in credentials} == credentials


def test_cli_answer_mentioning_bearer_tokens_is_not_mangled(
    server: LocalLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = "It runs with 2 bearer token(s); send Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig."
    server.add(Text(answer))
    code, out, err = run_main(chat(server), capsys)
    assert code == 0, err
    assert out.splitlines()[0] == ("It runs with 2 bearer token(s); send Bearer [REDACTED]")


def test_piped_output_is_not_hard_wrapped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    session = "a-session-with-a-long-name-" * 5
    db = tmp_path / "s.db"
    with SQLiteStore(db) as store:
        store.ensure_conversation(session)
    code, out, err = run_main(["sessions", "show", session, "--store", str(db)], capsys)
    assert code == 0, err
    assert f"Session {session}" in out.splitlines()
