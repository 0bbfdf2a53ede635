"""The check a model configuration passes before its first request.

:func:`check_call` (:func:`check_model` and the network guard) runs in the tool
loop before a turn's first request to each model, before anything else of the
request is built (the context window's look-up among it, which may import
LiteLLM), and raises at once, before anything is sent, when the request cannot
work:

* :class:`~praisonlike.errors.UnknownModelError` when LiteLLM cannot tell which
  provider serves the model (``gpt-9-turbo``, ``nosuchprovider/foo``, a bare
  name sent to a custom ``api_base``): LiteLLM itself would refuse it. The error
  suggests close model strings LiteLLM knows, and the bundled local models.
* :class:`~praisonlike.errors.MissingCredentialsError` when the provider needs
  an API key that is neither passed nor set, naming the variable(s) to set.

The rules, so a caller can predict the verdict:

* A model LiteLLM can route is accepted even when its name is missing from
  LiteLLM's model map (``openai/gpt-9-turbo``): providers publish models before
  the map knows them, and a custom endpoint serves whatever names it likes. The
  provider answers an unknown name with a 404, which ends the turn (or moves to
  the fallback model) without retries.
* The key check asks LiteLLM (``litellm.validate_environment``) which variables
  the model needs. It is skipped when an ``api_key`` is given, when an
  ``api_base`` is given (a local or custom server may need no key; but an
  ``openai/...`` model at an ``api_base`` is sent ``OPENAI_API_KEY`` when no
  key is passed, and the openai client refuses to send without one, so there
  one of them is required: any value does for a server that checks none), when the
  call's extra parameters carry a credential (``*_key``, ``*_token``,
  ``*credentials``) or LiteLLM holds a key set by the application
  (``litellm.api_key``, ``litellm.<provider>_key``), and for providers that
  authenticate other ways too (AWS profiles, Google application credentials,
  Azure AD, a local Ollama): only missing ``*_API_KEY`` / ``*_API_TOKEN``
  variables fail the check, and not when a variable LiteLLM also reads for that
  provider is set (``HF_TOKEN``, ``REPLICATE_API_TOKEN``, ``TOGETHER_API_KEY``, ...).
* Before LiteLLM is imported, a model whose provider and key variables are
  known without it is decided without importing it (in milliseconds rather than
  LiteLLM's multi-second import), with the same verdict: ``<provider>/<name>``
  for the providers of :data:`~praisonlike.models.providers.KEY_VARIABLES`
  (``anthropic/...``, ``gemini/...``, ``groq/...``, ...), and OpenAI's and
  Anthropic's models named without a prefix as LiteLLM's bundled model map lists
  them (``gpt-4o-mini``, ``claude-haiku-4-5``) or its routing rules route them
  (``claude-sonnet-9``); and a bare name LiteLLM surely cannot route
  (``gpt-4o-mnii``, see :mod:`praisonlike.models.bare_names`) is refused.
  Anything else (another provider, a ``custom_llm_provider``) is asked of LiteLLM.
* LiteLLM's provider for a model is remembered per (model, api_base, custom
  provider); a refusal is not. The environment is read again at each check
  that needs it (only models with neither ``api_key`` nor ``api_base``), so
  setting or removing a variable takes effect on the next turn.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import sys
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any

from praisonlike.errors import MissingCredentialsError, UnknownModelError
from praisonlike.models import litellm_backend
from praisonlike.models.bare_names import (
    bundled_chat_models,
    chat_models,
    litellm_providers,
    surely_unroutable,
)
from praisonlike.models.config import LLMConfig
from praisonlike.models.endpoint_probe import check_listening, endpoint_of
from praisonlike.models.in_process import InProcessModel
from praisonlike.models.litellm_backend import load_litellm
from praisonlike.models.model_variables import origin_note
from praisonlike.models.network_guard import check_model_request, endpoint_label
from praisonlike.models.providers import (
    KEY_VARIABLES,
    OPENAI_PROVIDER,
    is_openai_prefixed,
    provider_without_litellm,
)
from praisonlike.models.transport import transport_for

MODEL_SPELLING_HINT = (
    "spell it provider/model, e.g. openai/gpt-4o-mini; `praisonlike models info MODEL` "
    "shows what LiteLLM knows of a model"
)

_KEY_VARIABLE = re.compile(r"_API_(?:KEY|TOKEN)$")
# Variables LiteLLM's providers also read that ``validate_environment`` does not know.
_ALSO_READ: dict[str, tuple[str, ...]] = {
    "ALEPH_ALPHA_API_KEY": ("ALEPHALPHA_API_KEY",),
    "COHERE_API_KEY": ("CO_API_KEY",),
    "FEATHERLESS_AI_API_KEY": ("FEATHERLESS_API_KEY",),
    "HUGGINGFACE_API_KEY": ("HF_TOKEN",),
    "OPENROUTER_API_KEY": ("OR_API_KEY",),
    "PERPLEXITYAI_API_KEY": ("PERPLEXITY_API_KEY",),
    "REPLICATE_API_KEY": ("REPLICATE_API_TOKEN",),
    "TOGETHERAI_API_KEY": ("TOGETHER_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHER_AI_TOKEN"),
    "VERCEL_AI_GATEWAY_API_KEY": ("VERCEL_OIDC_TOKEN",),
}
_CREDENTIAL_PARAM = re.compile(r"(?:key|token|credentials?|secret|password)$", re.IGNORECASE)


def check_call(llm: LLMConfig) -> None:
    """Raise before anything is sent when a request for ``llm`` cannot work or is not allowed.

    :func:`check_model` and the network guard
    (:func:`~praisonlike.models.network_guard.check_model_request`), whichever
    transport sends the request; an in-process model needs neither. For an
    explicit ``api_base`` the guard comes first (a refused endpoint is the answer
    whatever the key), for a provider's own endpoint the pre-flight does (a
    missing key says more); a local server's provider (Ollama) at its default
    address on this machine is a loopback endpoint to the guard. Until LiteLLM
    is imported, a call it will send to a server on this machine checks, after
    the guard, that the server listens (:mod:`~praisonlike.models.endpoint_probe`:
    ServerNotListening, read as a refused connection), rather than wait for that
    import to learn it.
    """
    if isinstance(llm, InProcessModel):
        return
    if llm.api_base:
        check_model_request(llm.model, llm.api_base)
        _check_server(llm)
        check_model(llm)
    else:
        check_model(llm)
        check_model_request(llm.model, endpoint_of(llm))
        _check_server(llm)


def _check_server(llm: LLMConfig) -> None:
    if not litellm_backend.imported() and transport_for(llm) == "litellm":
        check_listening(llm)


def check_model(llm: LLMConfig) -> None:
    """Raise :class:`UnknownModelError` or :class:`MissingCredentialsError` when a
    request for ``llm`` cannot work (see the module docstring); return otherwise.

    Sends nothing. Fast: the provider of a model is looked up once; the
    environment is read again at each call that needs it. An ``openai/...``
    model with its own key or endpoint (an OpenAI-compatible server, the local
    model) needs neither, so its check does not even import LiteLLM.
    """
    has_key = llm.api_key is not None or _carries_credentials(llm.extra)
    exempt = has_key or bool(llm.api_base)
    if exempt and llm.model.startswith("openai/"):
        if not has_key:
            _check_endpoint_key(llm.model, str(llm.api_base))
        return
    custom_provider = _custom_provider(llm)
    known = provider_without_litellm(llm.model) if custom_provider is None else None
    if known is not None:
        if not exempt:
            _check_variables(llm.model, known)
        return
    provider = _provider(llm.model, llm.api_base, custom_provider)
    if exempt:
        return
    routed = llm.model if custom_provider is None else f"{custom_provider}/{llm.model}"
    _check_environment(llm.model, routed, provider)


def check_routing(llm: LLMConfig, named_as: str) -> None:
    """Raise :class:`UnknownModelError` now, naming ``named_as`` (``"fallback_models"``),
    when LiteLLM cannot route ``llm`` by its name: the routing part of
    :func:`check_model`, for a model named next to the agent's own, whose
    pre-flight would otherwise refuse it only when it is first called (for a
    fallback, during the primary's outage). A model with an ``api_base`` or a
    ``custom_llm_provider`` is left to its endpoint; the key is not checked.

    May import LiteLLM, as the model's resolution already does; remembered per
    model, like the pre-flight.
    """
    if llm.api_base or _custom_provider(llm) is not None:
        return
    try:
        _provider(llm.model, None, None)
    except UnknownModelError as exc:
        raise UnknownModelError(
            f"{named_as}: {exc.args[0]}",
            model=llm.model,
            suggestions=exc.suggestions,
            hint=exc.hint,
        ) from None


def _custom_provider(llm: LLMConfig) -> str | None:
    custom = llm.extra.get("custom_llm_provider")
    return custom if isinstance(custom, str) and custom else None


def routable(model: str) -> bool:
    """False when LiteLLM cannot tell which provider serves ``model`` sent with no
    ``api_base`` or ``custom_llm_provider`` (the pre-flight would refuse it).

    May import LiteLLM, as the pre-flight would; remembered per model, like it.
    """
    try:
        _provider(model, None, None)
    except UnknownModelError:
        return False
    return True


def _check_endpoint_key(model: str, api_base: str) -> None:
    """An OpenAI-wire endpoint is sent ``OPENAI_API_KEY`` when no key is passed; the
    openai client (under either transport) refuses to send without one."""
    if os.environ.get("OPENAI_API_KEY"):
        return
    litellm = sys.modules.get("litellm")
    if litellm is not None and _key_set_in_litellm(litellm, OPENAI_PROVIDER):
        return
    where = endpoint_label(api_base) or "its api_base"
    raise MissingCredentialsError(
        f"no API key for {model!r} at {where}: pass api_key, or set OPENAI_API_KEY; "
        f"{NO_KEY_SERVER_HINT}",
        model=model,
        missing_variables=("OPENAI_API_KEY",),
        hint=NO_KEY_SERVER_HINT,
    )


NO_KEY_SERVER_HINT = (
    "a server that checks no key (llama.cpp, vLLM, Ollama, LM Studio) takes any value as "
    "its key, such as none (CLI: --api-key none)"
)


def _carries_credentials(extra: Mapping[str, Any]) -> bool:
    return any(
        isinstance(name, str) and _CREDENTIAL_PARAM.search(name) and value
        for name, value in extra.items()
    )


@functools.lru_cache(maxsize=512)
def _provider(model: str, api_base: str | None, custom_provider: str | None) -> str:
    """LiteLLM's provider for ``model``; remembered, except a refusal.

    ``openai/<name>`` is LiteLLM's ``openai`` provider whatever the name, so it
    is answered without importing LiteLLM.
    """
    if custom_provider in (None, OPENAI_PROVIDER) and is_openai_prefixed(model):
        return OPENAI_PROVIDER
    if custom_provider is None and api_base is None and surely_unroutable(model):
        raise _unknown_model(model, None)
    litellm = load_litellm()
    try:
        _, provider, _, _ = litellm.get_llm_provider(
            model=model, custom_llm_provider=custom_provider, api_base=api_base
        )
    except Exception:
        raise _unknown_model(model, litellm) from None
    return str(provider)


def _check_variables(model: str, provider: str) -> None:
    if provider not in KEY_VARIABLES:  # a local server's (LOCAL_SERVER_PROVIDERS): no key
        return
    accepted, named = KEY_VARIABLES[provider]
    if not any(name in os.environ for name in accepted):
        _refuse_missing(model, list(named))


def _check_environment(model: str, routed: str, provider: str) -> None:
    litellm = load_litellm()
    if _key_set_in_litellm(litellm, provider):
        return
    missing = [
        str(name) for name in litellm.validate_environment(model=routed).get("missing_keys") or ()
    ]
    _refuse_missing(model, missing)


def _refuse_missing(model: str, missing: list[str]) -> None:
    if not missing or not all(_KEY_VARIABLE.search(name) for name in missing):
        return
    if any(os.environ.get(other) for name in missing for other in _ALSO_READ.get(name, ())):
        return
    names = sorted(missing, key=_preferred_first)
    if len(names) == 1:
        problem = f"{names[0]} is not set (set it, or pass api_key)"
    else:
        problem = f"none of {', '.join(names)} is set (set one, or pass api_key)"
    raise MissingCredentialsError(
        f"no API key for {model!r}: {problem}",
        model=model,
        missing_variables=tuple(names),
        hint="export the variable in your shell, or pass the key as api_key (CLI: --api-key)",
    )


def _preferred_first(name: str) -> tuple[bool, str]:
    """Gemini's own variable before Google's generic one; otherwise alphabetical."""
    return (name.startswith("GOOGLE_"), name)


def _key_set_in_litellm(litellm: ModuleType, provider: str) -> bool:
    return bool(getattr(litellm, "api_key", None) or getattr(litellm, f"{provider}_key", None))


def model_suggestions(model: str) -> tuple[str, ...]:
    """Up to three model strings close to ``model``: with its provider respelt when
    LiteLLM has no such provider (``opnai/gpt-4o`` -> ``openai/gpt-4o``), that
    provider's chat models in LiteLLM's map when it has (``openai/gpt-4o-mnii`` ->
    ``openai/gpt-4o-mini``), else all its chat models and the bundled local models
    (``gpt-4o-mnii`` -> ``openai/gpt-4o-mini``). Imports LiteLLM, except for a bare
    name LiteLLM surely cannot route (then from its bundled map)."""
    return _suggestions(model, None if surely_unroutable(model) else load_litellm())


def _suggestions(model: str, litellm: ModuleType | None) -> tuple[str, ...]:
    """:func:`model_suggestions`; from what is known without LiteLLM when ``litellm``
    is None (not imported): the bundled map for a bare name, the providers read
    from LiteLLM's files (:func:`~praisonlike.models.bare_names.litellm_providers`)
    for a prefix."""
    prefix, slash, rest = model.partition("/")
    if not slash:
        known = {**(_known_models() if litellm else bundled_chat_models()), **_local_models()}
        return tuple(known[name] for name in _close(model, known))
    providers = (
        _provider_names(litellm)
        if litellm is not None
        else sorted(litellm_providers() or KEY_VARIABLES)
    )
    if prefix not in providers:
        if rest in _local_models() or rest.endswith(".gguf"):
            providers = [*providers, _LOCAL]  # local/<name> is praisonlike's, not LiteLLM's
        return tuple(f"{name}/{rest}" for name in _close(prefix, providers))
    own = {full.partition("/")[2]: full for full in _known_models().values()}
    own = {bare: full for bare, full in own.items() if full.startswith(f"{prefix}/")}
    return tuple(own[name] for name in _close(rest, own))


def _close(word: str, candidates: Iterable[str]) -> list[str]:
    """Up to three of ``candidates`` close to ``word``, letter case aside."""
    folded: dict[str, str] = {}
    for candidate in candidates:
        folded.setdefault(candidate.lower(), candidate)
    return [folded[near] for near in difflib.get_close_matches(word.lower(), folded, n=3)]


def _unknown_model(model: str, litellm: ModuleType | None) -> UnknownModelError:
    """The error for ``model``, which LiteLLM refused (or, for a bare name and
    ``litellm`` None, surely would: see :mod:`praisonlike.models.bare_names`)."""
    prefix, slash, _ = model.partition("/")
    if slash and (litellm is None or prefix not in _provider_names(litellm)):
        reason = f"LiteLLM has no provider {prefix!r}"
    else:
        reason = "LiteLLM cannot tell which provider serves it"
    suggestions = _suggestions(model, litellm)
    message = f"unknown model {model!r}{origin_note(model)}: {reason}"
    if suggestions:
        message += " (did you mean " + " or ".join(repr(s) for s in suggestions) + "?)"
    return UnknownModelError(
        f"{message}; {MODEL_SPELLING_HINT}",
        model=model,
        suggestions=suggestions,
        hint=MODEL_SPELLING_HINT,
    )


_LOCAL = "local"


@functools.lru_cache(maxsize=1)
def _local_models() -> dict[str, str]:
    """praisonlike's own local models, as :func:`_known_models` lists LiteLLM's: ``local``
    (the default one) and each bundled model's name, with the model string that runs it."""
    from praisonlike.models.local.model_file import LOCAL_MODELS

    return {_LOCAL: _LOCAL, **{name: f"{_LOCAL}/{name}" for name in LOCAL_MODELS}}


def _provider_names(litellm: ModuleType) -> list[str]:
    return [str(getattr(p, "value", p)) for p in litellm.provider_list]


@functools.lru_cache(maxsize=1)
def _known_models() -> dict[str, str]:
    """Chat models in LiteLLM's map (:func:`~praisonlike.models.bare_names.chat_models`)."""
    return chat_models(load_litellm().model_cost)


__all__ = [
    "MODEL_SPELLING_HINT",
    "check_call",
    "check_model",
    "check_routing",
    "model_suggestions",
    "routable",
]
