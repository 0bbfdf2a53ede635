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
        ("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
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
