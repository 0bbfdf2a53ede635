"""The direct transport: a chat completion sent with the ``openai`` SDK, without LiteLLM.

Used for the calls :func:`praisonlike.models.transport.transport_for` gives to it
(an ``openai/<name>`` model at a custom ``api_base``, the bundled local
model). The request is what LiteLLM sends such an endpoint through the same
SDK: the model name without its ``openai/`` prefix, the messages, the tools,
the call's OpenAI parameters, and for a stream ``stream_options`` asking for
the usage. The SDK's own retries are off (``max_retries=0``: the tool loop
owns retrying). The body is posted as it is (``client.post``), without the
SDK's per-request walk over the parameters' type hints, which costs more
than the rest of a turn's own work: praisonlike's messages and tools are
plain JSON already, and the response is the decoded JSON (a dict, or a stream
of dicts), not the SDK's models, read by the same code as LiteLLM's objects,
and the SDK's exceptions carry the status, headers and request that
:mod:`praisonlike.models.error_classification` classifies.

One client is kept per (endpoint, key) for blocking calls and per (endpoint,
key, event loop) for async ones, so connections are pooled across turns.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Mapping
from typing import Any

from praisonlike.loop.commands import CallModel
from praisonlike.models import litellm_backend

PREFIX = "openai/"

OPENAI_WIRE_PARAMS = frozenset(
    {
        "temperature",
        "max_tokens",
        "max_completion_tokens",
        "top_p",
        "n",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "user",
        "seed",
        "response_format",
        "tool_choice",
        "parallel_tool_calls",
        "extra_body",
        "extra_headers",
        "drop_params",
    }
)
"""The call parameters the direct transport sends as they are (``drop_params`` is
read, not sent). A call with any other parameter goes through LiteLLM."""

_PATH = "/chat/completions"

_lock = threading.Lock()
_sync_clients: dict[tuple[str, str], Any] = {}
_async_clients: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], Any]]
_async_clients = weakref.WeakKeyDictionary()


def _request(command: CallModel) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON body for ``command`` and the SDK's request options (timeout, extra
    headers and body, bearer authentication)."""
    llm = command.llm
    params: dict[str, Any] = dict(llm.extra)
    if llm.temperature is not None:
        params["temperature"] = llm.temperature
    if llm.max_tokens is not None:
        params["max_tokens"] = llm.max_tokens
    params.update(command.params)
    params.pop("drop_params", None)
    options: dict[str, Any] = {"security": {"bearer_auth": True}}
    extra_body = params.pop("extra_body", None)
    if extra_body:
        options["extra_json"] = dict(extra_body)
    extra_headers = params.pop("extra_headers", None)
    if extra_headers:
        options["headers"] = dict(extra_headers)
    body = {key: value for key, value in params.items() if value is not None}
    body["model"] = llm.model[len(PREFIX) :] if llm.model.startswith(PREFIX) else llm.model
    body["messages"] = command.messages
    if command.tools:
        body["tools"] = command.tools
    else:
        body.pop("tool_choice", None)
        body.pop("parallel_tool_calls", None)
    if command.stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    timeout = command.timeout if command.timeout is not None else llm.timeout
    if timeout is not None:
        options["timeout"] = timeout
    return body, options


def _credentials(command: CallModel) -> tuple[str, str]:
    """(endpoint, key): the configured key, else ``OPENAI_API_KEY`` as LiteLLM reads it.

    Raises the SDK's own error (classified as authentication) when there is none.
    """
    llm = command.llm
    key = llm.api_key.get_secret_value() if llm.api_key is not None else None
    if key is None:
        key = os.environ.get("OPENAI_API_KEY")
    if key is None:
        raise litellm_backend.load_openai().OpenAIError(
            "The api_key client option must be set either by passing api_key to the "
            "client or by setting the OPENAI_API_KEY environment variable"
        )
    return str(llm.api_base), key


def complete(command: CallModel) -> Any:
    """Send ``command`` and block for the response (a chunk iterator when streamed)."""
    key = _credentials(command)
    litellm_backend.settle_httpx()
    client: Any = _sync_clients.get(key)
    if client is None:
        with _lock:
            client = _sync_clients.get(key)
            if client is None:
                sdk = litellm_backend.load_openai()
                client = sdk.OpenAI(base_url=key[0], api_key=key[1], max_retries=0)
                _sync_clients[key] = client
    body, options = _request(command)
    return client.post(
        _PATH,
        body=body,
        options=options,
        cast_to=object,
        stream=command.stream,
        stream_cls=litellm_backend.load_openai().Stream[object],
    )


async def acomplete(command: CallModel) -> Any:
    """Send ``command`` on this event loop's client; the response or an async chunk iterator."""
    import asyncio

    key = _credentials(command)
    litellm_backend.settle_httpx()
    loop = asyncio.get_running_loop()
    clients = _async_clients.get(loop)
    client: Any = clients.get(key) if clients is not None else None
    if client is None:
        sdk = litellm_backend.load_openai()
        with _lock:
            client = _async_clients.setdefault(loop, {}).setdefault(
                key, sdk.AsyncOpenAI(base_url=key[0], api_key=key[1], max_retries=0)
            )
    body, options = _request(command)
    return await client.post(
        _PATH,
        body=body,
        options=options,
        cast_to=object,
        stream=command.stream,
        stream_cls=litellm_backend.load_openai().AsyncStream[object],
    )


def accepts(params: Mapping[str, Any]) -> bool:
    """Whether every parameter of a call is one the direct transport sends as it is."""
    return all(name in OPENAI_WIRE_PARAMS for name in params)


__all__ = ["OPENAI_WIRE_PARAMS", "PREFIX", "accepts", "acomplete", "complete"]
