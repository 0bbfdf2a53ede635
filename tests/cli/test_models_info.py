"""``praisonlike models info``: the SDK's own local models, unknown prices, unknown models."""

from __future__ import annotations

import re

import pytest

from praisonlike.cli import main
from praisonlike.models.local import LOCAL_MODELS


def info(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, str], str]:
    code = main(["models", "info", *argv])
    captured = capsys.readouterr()
    pairs = (re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in captured.out.splitlines())
    return code, {pair[0]: pair[1] for pair in pairs if len(pair) == 2}, captured.err


@pytest.mark.parametrize("model", ["local", "local/qwen2.5-coder-0.5b"])
def test_the_bundled_local_model_is_known(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, rows, err = info([model], capsys)
    assert (code, err) == (0, "")
    assert "qwen2.5-coder-0.5b" in rows["Model"]
    assert rows["Runs"].startswith("on this machine, offline")
    assert rows["Installed"] == "yes" or rows["Installed"].startswith("no (pip install")
    assert rows["Context window"] == "4,096 tokens"
    for price in ("Input price", "Output price", "Cached input price"):
        assert rows[price] == "$0 (runs on this machine)"
    assert rows["Tool calling"] == "yes, written as text (ReAct)"


def test_every_bundled_local_model_is_known(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    for name, spec in LOCAL_MODELS.items():
        code, rows, _ = info([f"local/{name}"], capsys)
        assert code == 0
        assert rows["Context window"] == f"{spec.context_window:,} tokens"


def test_an_unknown_local_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = info(["local/no-such-model"], capsys)
    assert (code, rows) == (2, {})
    [line] = err.splitlines()
    assert line.startswith("praisonlike: error: unknown local model 'local/no-such-model'")
    assert "local/qwen2.5-coder-0.5b" in line


@pytest.mark.parametrize(
    ("model", "close"),
    [
        ("gpt-9-turbo", "'openai/gpt-4-turbo'"),
        ("openai/gpt-9-turbo", "'openai/gpt-4-turbo'"),
        ("openai/gpt-4o-mnii", "'openai/gpt-4o-mini'"),
        ("claude-haiku-4.5", "'anthropic/claude-haiku-4-5'"),
    ],
)
def test_a_model_litellm_only_guesses_at_is_unknown_with_close_names(
    capsys: pytest.CaptureFixture[str], model: str, close: str
) -> None:
    code, rows, err = info([model], capsys)
    assert (code, rows) == (2, {})
    assert "$0" not in err
    [line] = err.splitlines()
    assert line.startswith(
        f"praisonlike: error: unknown model {model!r}: LiteLLM's local model map has no entry "
        "for it (did you mean "
    )
    assert close in line.partition("did you mean ")[2].partition("?")[0]
    assert line.endswith("? use the provider/model form, e.g. openai/gpt-4o-mini)")


def test_a_known_model_without_a_price_shows_the_price_as_unknown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, rows, _ = info(["twelvelabs.pegasus-1-2-v1:0"], capsys)
    assert code == 0
    assert rows["Input price"] == rows["Output price"] == "unknown"
