"""The verdicts on bare model names told from LiteLLM's bundled map without importing
it (``praisonlike.models.bare_names``) agree with the installed LiteLLM's own. What
a turn does with them is tested in ``test_preflight_fast.py``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from fresh_process import fresh_python

from praisonlike.models.litellm_backend import load_litellm
from praisonlike.models.preflight import model_suggestions

VERDICTS = """
import json, sys
from praisonlike.models.bare_names import provider_by_rule, surely_unroutable
names = json.loads(sys.stdin.read())
print(json.dumps({n: [surely_unroutable(n), provider_by_rule(n)] for n in names}))
print("litellm", "litellm" in sys.modules)
"""

FIXED = [
    "gpt-9-turbo",
    "gpt-4o-mnii",
    "claude-3-haiku",
    "deepseek-chat",
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
    "Gpt-4o-mini",
    "Claude-Haiku-4-5",
    "llama2",
    "opnai/gpt-4o-mini",
    "antropic/claude-haiku-4-5",
    "nosuchprovider/foo",
    "openrouter/openai/gpt-4o",
    "azure/command-r-plus",
]


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
    providers = sorted(str(getattr(p, "value", p)) for p in litellm.provider_list)
    for provider in rng.sample(providers, min(80, len(providers))):
        for prefix in (provider[:-1], provider + "x", provider[1] + provider[0] + provider[2:]):
            typos.append(f"{prefix}/{rng.choice(chat)}")
    tails = {key.split("/", 1)[1] for key in litellm.model_cost if "/" in key}
    last = {key.rsplit("/", 1)[1] for key in litellm.model_cost if "/" in key}
    bare = {key for key in litellm.model_cost if "/" not in key}
    return sorted({*listed, *typos, *FIXED, *tails, *last, *bare})


def test_the_verdicts_without_litellm_agree_with_litellm(tmp_path: Path) -> None:
    litellm = load_litellm()
    names = _corpus(litellm)
    done = fresh_python(VERDICTS, tmp_path, stdin=json.dumps(names))
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
    assert len(refused) > 300
    assert {"gpt-4o-mnii", "opnai/gpt-4o-mini", "claude-3-haiku", "deepseek-chat"} <= set(refused)
    assert ruled.get("claude-sonnet-9") == "anthropic"


def test_every_suggestion_for_a_misspelt_name_is_a_model_string_litellm_routes() -> None:
    """The map's own provider labels (``vertex_ai-language-models``) are not routing
    prefixes: a suggestion is spelt the way a user can paste it."""
    litellm = load_litellm()
    chat = sorted(
        name
        for name, info in litellm.model_cost.items()
        if isinstance(info, dict) and info.get("mode") == "chat" and "/" not in name
    )
    suggested = {
        suggestion
        for name in random.Random(3).sample(chat, min(200, len(chat)))
        for suggestion in model_suggestions(name[:-1] + "q")
        if not suggestion.startswith("local")
    }
    # judged by the prefix, as LiteLLM first does: get_llm_provider itself reaches out
    # for some providers (github_copilot's device login)
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    providers = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    unroutable = sorted(
        s
        for s in suggested
        if s.split("/", 1)[0] not in providers and not JSONProviderRegistry.exists(s.split("/")[0])
    )
    assert len(suggested) > 100
    assert not unroutable, unroutable[:20]


def test_a_suggestion_under_a_providers_own_folder_names_the_provider_once() -> None:
    """The map lists Vertex AI's Claude models as ``vertex_ai/claude-...`` under the
    label ``vertex_ai-anthropic_models``: suggested as ``vertex_ai/claude-...``, which
    LiteLLM sends to Vertex AI as ``claude-...`` (not ``vertex_ai/vertex_ai/...``)."""
    suggestions = model_suggestions("vertex_ai/claude-3-haikuu")
    assert suggestions[0] == "vertex_ai/claude-3-haiku"
    assert all(s.split("/")[0] != s.split("/")[1] for s in suggestions if s.count("/") > 1)
    litellm = load_litellm()
    model, provider, _, _ = litellm.get_llm_provider(suggestions[0])
    assert (provider, model) == ("vertex_ai", "claude-3-haiku")
    assert "vertex_ai/claude-3-haiku" in model_suggestions("claude-3-haiku")


def test_litellm_refuses_a_known_providers_prefix_in_other_letter_case() -> None:
    """What the pre-flight refuses without LiteLLM (``OpenAI/gpt-4o``), LiteLLM refuses."""
    from praisonlike.models.providers import KEY_VARIABLES

    litellm = load_litellm()
    for provider in KEY_VARIABLES:
        for prefix in (provider.upper(), provider.title()):
            if prefix != provider:
                assert _litellm_provider(litellm, f"{prefix}/some-model") is None, prefix


def test_the_providers_read_from_litellms_files_are_litellms() -> None:
    """A prefix outside this set is refused without LiteLLM: it must hold every
    provider LiteLLM routes, and nothing it does not."""
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    from praisonlike.models.bare_names import litellm_providers

    litellm = load_litellm()
    JSONProviderRegistry.load()
    expected = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    expected |= set(JSONProviderRegistry._providers)
    assert litellm_providers() == expected
