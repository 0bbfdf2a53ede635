"""A misspelt bare model name (``gpt-4o-mnii``) is refused from LiteLLM's bundled map,
without its multi-second import, and a new name its routing rules give a provider
(``claude-sonnet-9``) is checked for that provider's key the same way; held to the
installed LiteLLM's own verdicts."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest

from praisonlike.models.litellm_backend import load_litellm

VERDICTS = """
import json, sys
from praisonlike.models.bare_names import provider_by_rule, surely_unroutable
names = json.loads(sys.stdin.read())
print(json.dumps({n: [surely_unroutable(n), provider_by_rule(n)] for n in names}))
print("litellm", "litellm" in sys.modules)
"""

TURN = """
import sys
from praisonlike import Agent
from praisonlike.errors import MissingCredentialsError, UnknownModelError
try:
    Agent(instructions="Answer.", llm={model!r}).chat("hi")
except UnknownModelError as error:
    print("unknown", error.suggestions[0], "litellm", "litellm" in sys.modules)
except MissingCredentialsError as error:
    print("key", *error.missing_variables, "litellm", "litellm" in sys.modules)
"""

FIXED = [
    "gpt-9-turbo",
    "gpt-4o-mnii",
    "claude-sonnet-9",
    "claude-hiaku-4-5",
    "gemini-2.0-flsh",
    "o5-mini",
    "ft:gpt-4o:org:x",
    "gpt-image-9",
    "amazon_nova-x",
    "*",
    "maritalk",
    "jev-latest",
    "anthropic.claude-v9",
    "us.anthropic.claude-new",
    "GPT-4O-MINI",
    "llama2",
]


def _env(tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_AUTH_TOKEN"))}
    env.update(HOME=tmp, PRAISONLIKE_NO_WARMUP="1")
    return env


def _litellm_provider(litellm: Any, model: str) -> str | None:
    try:
        return str(litellm.get_llm_provider(model=model)[1])
    except Exception:
        return None


def _corpus(litellm: Any) -> list[str]:
    listed = {
        name
        for attribute in dir(litellm)
        if attribute.endswith(("_models", "_models_set"))
        and isinstance(getattr(litellm, attribute), (list, set, frozenset, tuple))
        for name in getattr(litellm, attribute)
        if isinstance(name, str) and "/" not in name
    }
    chat = sorted(
        name
        for name, info in litellm.model_cost.items()
        if isinstance(info, dict) and info.get("mode") == "chat" and "/" not in name
    )
    rng = random.Random(7)
    typos = []
    for name in rng.sample(chat, min(150, len(chat))):
        cut = rng.randrange(len(name))
        typos += [name[:cut] + name[cut + 1 :], name + "x", name.replace("-", "_", 1)]
    return sorted({*listed, *typos, *FIXED})


def test_the_verdicts_without_litellm_agree_with_litellm(tmp_path: object) -> None:
    litellm = load_litellm()
    names = _corpus(litellm)
    done = subprocess.run(
        [sys.executable, "-c", VERDICTS],
        input=json.dumps(names),
        capture_output=True,
        text=True,
        env=_env(str(tmp_path)),
        timeout=120,
    )
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "litellm False", done.stderr
    verdicts = json.loads(lines[0])

    refused = [name for name, (unroutable, _) in verdicts.items() if unroutable]
    ruled = {name: provider for name, (_, provider) in verdicts.items() if provider}
    wrong = [name for name in refused if _litellm_provider(litellm, name) is not None]
    misrouted = {
        name: (provider, _litellm_provider(litellm, name))
        for name, provider in ruled.items()
        if _litellm_provider(litellm, name) != provider
    }
    assert not wrong, f"refused, but LiteLLM routes them: {wrong[:20]}"
    assert not misrouted, f"routed elsewhere by LiteLLM: {misrouted}"
    assert len(refused) > 100 and "gpt-4o-mnii" in refused
    assert ruled.get("claude-sonnet-9") == "anthropic"


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-mnii", "unknown openai/gpt-4o-mini litellm False"),
        ("gpt-9-turbo", "unknown openai/gpt-4-turbo litellm False"),
        ("claude-sonnet-9", "key ANTHROPIC_API_KEY litellm False"),
    ],
)
def test_a_turn_on_a_misspelt_or_new_bare_name_is_decided_without_litellm(
    model: str, expected: str, tmp_path: object
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", TURN.format(model=model)],
        capture_output=True,
        text=True,
        env=_env(str(tmp_path)),
        timeout=120,
    )
    assert done.stdout.strip() == expected, done.stderr


MODELS_INFO = """
import sys
from praisonlike.cli import main
code = main(["models", "info", "gpt-4o-mnii"])
print("exit", code, "litellm", "litellm" in sys.modules)
"""


def test_models_info_of_a_misspelt_bare_name_answers_without_litellm(tmp_path: object) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MODELS_INFO],
        capture_output=True,
        text=True,
        env=_env(str(tmp_path)),
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "exit 2 litellm False", done.stderr
    assert "did you mean 'openai/gpt-4o-mini'" in done.stderr
