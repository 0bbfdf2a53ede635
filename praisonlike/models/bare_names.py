"""Model names LiteLLM surely cannot route, told without importing it.

LiteLLM routes ``provider/name`` by its prefix, and a bare name (``gpt-4o-mini``,
``claude-haiku-4-5``) by looking it up in lists built from its model map at
import, then by a few name patterns and the map's routing rules
(``fallback_generalizations``). The map is the file bundled in its wheel
(praisonlike asks LiteLLM for it with ``LITELLM_LOCAL_MODEL_COST_MAP=True``) and
its providers are listed in its installed files, so a misspelt bare name
(``gpt-4o-mnii``) or provider (``opnai/gpt-4o``) can be refused from those
files in well under a second instead of after LiteLLM's multi-second import.
:func:`surely_unroutable` answers True only when every way LiteLLM has could
not route the name; anything else (and everything once LiteLLM is imported,
when an application may have registered models or providers) is left to
LiteLLM. Tests hold this to the installed LiteLLM's own verdicts.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
from collections.abc import Mapping
from typing import Any

from praisonlike.models import litellm_backend, model_map

_ROUTED_PREFIXES = ("gpt-image", "amazon_nova")
"""Bare names LiteLLM routes by their start whatever follows."""
_ROUTED_PROVIDERS = frozenset({"azure", "local"})
"""Prefixes routed apart from LiteLLM's provider list (Azure AI Studio's models, and
praisonlike's own local models)."""
_ROUTED_NAMES = frozenset(
    {
        "*",
        "maritalk",
        "embed-v4.0",
        "embed-english-v2.0",
        "embed-english-light-v2.0",
        "embed-multilingual-v2.0",
    }
)
"""Bare names LiteLLM routes though its map has no entry of that name (its own
lists hold them); the test of this module finds any the installed LiteLLM adds."""
_GOOGLE_VERTEX = re.compile(r"vertex_ai-[a-z-]+-models")
"""The map's labels of Google's own models on Vertex AI, which LiteLLM routes by bare name."""
_PREFIX_ONLY_PROVIDERS = frozenset(
    {
        "deepseek",
        "fireworks_ai",
        "fireworks_ai-embedding-models",
        "gemini",
        "jina_ai",
        "together_ai",
        "volcengine",
    }
)
"""Providers the map lists models of by bare name (``deepseek-chat``) that LiteLLM
routes only with the prefix (``deepseek/deepseek-chat``): it looks a bare name up in
the lists of a few providers only. The test of this module finds any it routes."""
_UNROUTED_PROVIDERS = frozenset({"anyscale"})
"""Providers the map still lists that LiteLLM no longer routes (never suggested); the
tests find any other suggestion LiteLLM would not route."""


def surely_unroutable(model: str) -> bool:
    """True when LiteLLM, not yet imported, would refuse ``model`` sent with no
    ``api_base`` and no custom provider ("LLM Provider NOT provided"): a bare name,
    or a ``prefix/name`` whose prefix is none of LiteLLM's providers.

    False whenever unsure: a name with ``:``, one the map lists (under any
    provider), a provider's prefix, a fine-tune (``ft:``), a name a routing rule
    matches, LiteLLM already imported, or an environment that changes LiteLLM's
    map or routing (``USE_LITELLM_PROXY``, a remote model map).
    """
    return _unlisted(model) and not any(
        pattern.search(model) for pattern, _ in _rules(strict=False)
    )


def litellm_providers() -> frozenset[str] | None:
    """The provider prefixes LiteLLM routes (``litellm.provider_list`` and the
    OpenAI-compatible providers of its ``providers.json``), read from its installed
    files without importing it; None when they cannot be read (then nothing is
    decided without LiteLLM)."""
    return _litellm_providers()


@functools.lru_cache(maxsize=1)
def _litellm_providers() -> frozenset[str] | None:
    folder = litellm_backend.litellm_folder()
    if folder is None:
        return None
    try:
        tree = ast.parse((folder / "types" / "utils.py").read_text(encoding="utf-8"))
        listed = folder / "llms" / "openai_like" / "providers.json"
        slugs = json.loads(listed.read_text(encoding="utf-8")) if listed.is_file() else {}
    except (OSError, SyntaxError, ValueError):
        return None
    enum = next(
        (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LlmProviders"), None
    )
    if enum is None or not isinstance(slugs, dict):
        return None
    values = {
        node.value.value
        for node in enum.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    return frozenset(values) | frozenset(map(str, slugs)) if values else None


def provider_by_rule(model: str) -> str | None:
    """The provider LiteLLM, not yet imported, routes the bare name ``model`` to by
    the map's routing rules (``claude-sonnet-9`` -> ``anthropic``): the first rule
    that matches a name no list of LiteLLM's holds. None when unsure, as for
    :func:`surely_unroutable`."""
    if "/" in model or not _unlisted(model):
        return None
    return next(
        (provider for pattern, provider in _rules(strict=True) if pattern.search(model)), None
    )


def _unlisted(model: str) -> bool:
    """Whether LiteLLM, not yet imported, surely finds ``model`` (a bare name, or one
    whose prefix is no provider of LiteLLM's) in none of its lists of names, and
    routes it by its rules only (or not at all)."""
    if litellm_backend.imported() or ":" in model or not model.strip():
        return False
    if not _local_map_in_use() or os.environ.get("USE_LITELLM_PROXY", "").strip():
        return False
    folded = model.lower()
    if folded in _ROUTED_NAMES or folded.startswith(_ROUTED_PREFIXES):
        return False
    if _listed(model):
        return False
    prefix, slash, _ = model.partition("/")  # last: reading the providers parses a file
    return not slash or (prefix not in _ROUTED_PROVIDERS and _not_a_provider(prefix))


def _not_a_provider(prefix: str) -> bool:
    providers = litellm_providers()
    return providers is not None and prefix not in providers


def bundled_chat_models() -> dict[str, str]:
    """Chat models in the bundled map: the name without its provider, and the model
    string that routes to it (``provider/model``); a name the map lists without a
    prefix (the provider's own name for it) wins over resellers of the same name,
    and so does a provider named in the model's name (``mistral/mistral-large-latest``
    over ``azure/mistral-large-latest``). Decodes the whole map (tens of
    milliseconds, once): for error messages."""
    return _bundled_chat_models()


@functools.lru_cache(maxsize=1)
def _bundled_chat_models() -> dict[str, str]:
    return chat_models(model_map.bundled())


def chat_models(models: Mapping[str, Any]) -> dict[str, str]:
    """:func:`bundled_chat_models` of a model map (``litellm.model_cost``, or the file)."""
    known: dict[str, str] = {}
    ranks: dict[str, int] = {}  # 2: listed without a prefix; 1: the provider is in the name
    for name, info in models.items():
        provider = info.get("litellm_provider") if isinstance(info, Mapping) else None
        if not isinstance(provider, str) or info.get("mode") != "chat" or ":" in name:
            continue
        if provider in _UNROUTED_PROVIDERS:
            continue
        routed = _routed_as(provider)
        bare = name.removeprefix(f"{provider}/").removeprefix(f"{routed}/")
        rank = 2 if "/" not in name else int(routed.split("/")[0] in bare.lower())
        if rank > ranks.get(bare, -1):
            known[bare], ranks[bare] = f"{routed}/{bare}", rank
    return known


def _routed_as(provider: str) -> str:
    """The prefix that routes to a map provider: ``vertex_ai`` for the map's
    ``vertex_ai-language-models``, ``vertex_ai-anthropic_models``, ...;
    ``bedrock/converse`` for ``bedrock_converse``."""
    if provider.startswith("vertex_ai-"):
        return "vertex_ai"
    return "bedrock/converse" if provider == "bedrock_converse" else provider


def _local_map_in_use() -> bool:
    """LiteLLM reads the bundled map (not a downloaded one) when it is imported."""
    value = os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP")
    return value is None or value.strip().lower() == "true"


def _listed(model: str) -> bool:
    """Whether one of LiteLLM's lists of models holds ``model`` as it is spelt (LiteLLM
    looks a bare name up as spelt: ``GPT-4o-mini`` is not routed): a key of the map
    (but the bare names of :data:`_PREFIX_ONLY_PROVIDERS`), or the name of one of
    Google's own Vertex AI models (labelled ``vertex_ai-...-models``) without its
    ``vertex_ai/`` prefix, as LiteLLM lists them. The partner models Vertex AI hosts
    (``vertex_ai-anthropic_models``, ...) are listed without it too, but a bare name
    is never looked up there: ``claude-3-haiku`` is not routed."""
    found = model_map.entry(model)
    if found is not None:
        return "/" in model or found.get("litellm_provider") not in _PREFIX_ONLY_PROVIDERS
    google = model_map.entry(f"vertex_ai/{model}")
    return google is not None and bool(
        _GOOGLE_VERTEX.fullmatch(str(google.get("litellm_provider")))
    )


@functools.lru_cache(maxsize=2)
def _rules(*, strict: bool) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The map's routing rules in order, as (pattern, provider): those whose
    ``model_info`` is a provider alone (as LiteLLM reads them) when ``strict``,
    any rule naming a provider otherwise."""
    block = model_map.bundled().get("fallback_generalizations")
    rules = block.get("rules") if isinstance(block, Mapping) else None
    found: list[tuple[re.Pattern[str], str]] = []
    for rule in rules if isinstance(rules, list) else ():
        info = rule.get("model_info") if isinstance(rule, Mapping) else None
        if not isinstance(info, Mapping) or info.get("litellm_provider") is None:
            continue
        provider = info["litellm_provider"]
        if strict and (not isinstance(provider, str) or len(info) > 1):
            continue
        try:
            found.append((re.compile(str(rule.get("pattern")), re.IGNORECASE), str(provider)))
        except re.error:
            continue
    return tuple(found)


__all__ = [
    "bundled_chat_models",
    "chat_models",
    "litellm_providers",
    "provider_by_rule",
    "surely_unroutable",
]
