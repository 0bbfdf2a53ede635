"""Which transport a model call goes through, and that both send the same thing.

The direct transport (the ``openai`` SDK) serves ``openai/<name>`` models at an
``api_base`` and the local model; everything else goes through LiteLLM. The
two send identical request bodies for the same turn, give the same answers and
usage, and a script on an OpenAI-wire endpoint never imports LiteLLM.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from transport_support import TRANSPORTS, use_transport

from praisonlike import Agent
from praisonlike.errors import (
    AuthenticationError,
    ConfigurationError,
    MissingCredentialsError,
    ModelRequestBlockedError,
)
from praisonlike.models import model_map
from praisonlike.models.config import LLMConfig
from praisonlike.models.litellm_backend import load_litellm
from praisonlike.models.network_guard import endpoint_label
from praisonlike.models.transport import TRANSPORT_ENV, transport_for
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

ENDPOINT = "http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(
    ("llm", "params", "expected"),
    [
        ({"model": "openai/test-model", "api_base": ENDPOINT}, None, "openai"),
        ({"model": "openai/qwen2.5-coder-0.5b", "api_base": ENDPOINT}, None, "openai"),
        ({"model": "local"}, None, "openai"),
        ({"model": "local/qwen2.5-coder-0.5b"}, None, "openai"),
        (
            {"model": "openai/test-model", "api_base": ENDPOINT, "seed": 1, "top_p": 0.5},
            None,
            "openai",
        ),
        ({"model": "openai/test-model", "api_base": ENDPOINT}, {"tool_choice": "none"}, "openai"),
        ({"model": "openai/test-model", "api_base": ENDPOINT}, {"extra_body": {}}, "openai"),
        # no api_base: OpenAI's own endpoint, through LiteLLM
        ({"model": "openai/test-model"}, None, "litellm"),
        ({"model": "gpt-4o-mini"}, None, "litellm"),
        # OpenAI's own models: LiteLLM adapts their parameters
        ({"model": "openai/o3-mini", "api_base": ENDPOINT}, None, "litellm"),
        ({"model": "openai/gpt-4o", "api_base": ENDPOINT}, None, "litellm"),
        # other providers, even OpenAI-compatible ones
        ({"model": "hosted_vllm/my-model", "api_base": ENDPOINT}, None, "litellm"),
        ({"model": "anthropic/claude-haiku-4-5"}, None, "litellm"),
        ({"model": "ollama/llama3", "api_base": ENDPOINT}, None, "litellm"),
        # a parameter that is not a standard OpenAI chat parameter
        ({"model": "openai/test-model", "api_base": ENDPOINT, "top_k": 5}, None, "litellm"),
        (
            {"model": "test-model", "api_base": ENDPOINT, "custom_llm_provider": "openai"},
            None,
            "litellm",
        ),
        ({"model": "openai/test-model", "api_base": ENDPOINT}, {"num_retries": 2}, "litellm"),
        # asked for
        (
            {"model": "openai/test-model", "api_base": ENDPOINT, "transport": "litellm"},
            None,
            "litellm",
        ),
        ({"model": "local", "transport": "litellm"}, None, "litellm"),
    ],
)
def test_which_transport_each_model_selects(
    llm: dict[str, Any], params: dict[str, Any] | None, expected: str
) -> None:
    assert transport_for(LLMConfig.coerce(llm), params) == expected


def test_a_model_registered_in_this_process_stays_on_the_direct_transport() -> None:
    """The local model registers its alias (``openai/<alias>``) in the map; that does
    not make it one of OpenAI's own models."""
    config = LLMConfig(model="openai/my-registered-alias", api_base=ENDPOINT)
    model_map.register(config.model, {"litellm_provider": "openai", "mode": "chat"})
    load_litellm().register_model({"openai/other-alias": {"litellm_provider": "openai"}})

    assert transport_for(config) == "openai"
    assert transport_for(LLMConfig(model="openai/other-alias", api_base=ENDPOINT)) == "openai"


def test_the_environment_forces_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    config = LLMConfig(model="openai/test-model", api_base=ENDPOINT)
    monkeypatch.setenv(TRANSPORT_ENV, "litellm")
    assert transport_for(config) == "litellm"
    monkeypatch.setenv(TRANSPORT_ENV, "auto")
    assert transport_for(config) == "openai"


def test_an_unknown_transport_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="transport"):
        LLMConfig(model="openai/test-model", transport="httpx")  # type: ignore[arg-type]


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _turns(server: LocalLLMServer, llm: dict[str, Any]) -> list[Any]:
    """A tool turn (chat), a streamed turn and an async turn; their answers and usage."""
    server.extend(
        [
            ToolCalls([Call("add", {"a": 2, "b": 3}, id="call_1")]),
            Text("five"),
            Text("streamed"),
            Text("async"),
        ]
    )
    agent = Agent(instructions="You add.", llm=llm, tools=[add])
    answers = [agent.chat("add 2 and 3"), "".join(agent.iter_stream("again"))]
    answers.append(asyncio.run(agent.achat("once more")))
    usage = agent.usage
    return [answers, usage.requests, usage.prompt_tokens, usage.completion_tokens]


def test_both_transports_send_the_same_requests_and_read_the_same_answers(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = {
        **server.llm_config(),
        "temperature": 0.2,
        "max_tokens": 64,
        "seed": 7,
        "extra_body": {"top_k": 3},
    }
    results, bodies = {}, {}
    for name in TRANSPORTS:
        use_transport(monkeypatch, name, llm)
        server.reset()
        results[name] = _turns(server, llm)
        bodies[name] = [request.body for request in server.requests]

    assert results["openai"] == results["litellm"]
    assert results["openai"][0] == ["five", "streamed", "async"]
    assert len(bodies["openai"]) == 4
    assert bodies["openai"] == bodies["litellm"]
    streamed = bodies["openai"][2]
    assert streamed["stream"] is True and streamed["stream_options"] == {"include_usage": True}
    assert streamed["model"] == "test-model" and streamed["top_k"] == 3


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_missing_key_is_an_authentication_error_before_any_request(
    server: LocalLLMServer, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    llm = {"model": "openai/test-model", "api_base": server.url}
    use_transport(monkeypatch, transport, llm)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    agent = Agent(instructions="x", llm=llm)

    with pytest.raises(MissingCredentialsError, match="api_key") as raised:
        agent.chat("hello")

    assert isinstance(raised.value, AuthenticationError)
    assert raised.value.missing_variables == ("OPENAI_API_KEY",)
    assert endpoint_label(server.url) in str(raised.value)
    assert "--api-key none" in (raised.value.hint or "")
    assert "any value as its key, such as none" in str(raised.value)  # for Python callers too
    assert server.request_count == 0
    assert agent.chat_history == []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.add(Text("hi"))
    assert agent.chat("hello") == "hi"
    assert server.requests[-1].headers["authorization"] == "Bearer sk-from-env"


@pytest.mark.parametrize("way", ["chat", "achat", "iter_stream"])
def test_the_network_guard_refuses_a_remote_openai_wire_endpoint(
    server: LocalLLMServer, way: str
) -> None:
    llm = {
        "model": "openai/my-model",
        "api_base": "https://api.example.invalid/v1",
        "api_key": "sk-test",
    }
    assert transport_for(LLMConfig.coerce(llm)) == "openai"
    agent = Agent(instructions="x", llm=llm)

    with pytest.raises(ModelRequestBlockedError, match="PRAISONLIKE_ALLOW_MODEL_REQUESTS"):
        if way == "chat":
            agent.chat("hello")
        elif way == "achat":
            asyncio.run(agent.achat("hello"))
        else:
            "".join(agent.iter_stream("hello"))

    assert server.request_count == 0


SCRIPT = """
import asyncio, json, sys
from praisonlike import Agent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

with LocalLLMServer() as server:
    server.extend([ToolCalls([Call("add", {"a": 2, "b": 3})]), Text("5"), Text("s"), Text("a")])
    agent = Agent(instructions="x", llm=server.llm_config(), tools=[add])
    answers = [agent.chat("add"), "".join(agent.iter_stream("again"))]
    answers.append(asyncio.run(agent.achat("x")))
    cost = agent.usage.cost
httpx = sys.modules.get("httpx")
complete = httpx is not None and not getattr(httpx.__spec__, "_initializing", True)
report = {"answers": answers, "litellm": "litellm" in sys.modules, "httpx": complete}
print(json.dumps({**report, "httpx command": "httpx._main" in sys.modules}))
"""


@pytest.mark.parametrize(("forced", "imported"), [(None, False), ("litellm", True)])
def test_a_script_on_an_openai_wire_endpoint_never_imports_litellm(
    forced: str | None, imported: bool
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in (TRANSPORT_ENV, "PRAISONLIKE_NO_WARMUP")}
    if forced is not None:
        env[TRANSPORT_ENV] = forced
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # httpx complete before the first direct call: a LiteLLM import begun on another
    # thread mid-call would otherwise show the SDK a half-initialised module; its
    # command-line tool (rich and click) is not loaded until it is run
    assert report == {
        "answers": ["5", "s", "a"],
        "litellm": imported,
        "httpx": True,
        "httpx command": False,
    }


HTTPX_COMMAND = """
import sys
{setup}
import httpx
try:
    httpx.main(["--help"])
except SystemExit as stop:
    print("exit", stop.code)
"""


def test_httpx_command_runs_as_usual_after_a_direct_turn() -> None:
    """``httpx.main`` (loaded when first run) behaves as in a process without praisonlike."""
    setup = (
        "from praisonlike import Agent\nfrom praisonlike.testing import LocalLLMServer, Text\n"
        "with LocalLLMServer([Text('ok')]) as server:\n"
        "    assert Agent(instructions='x', llm=server.llm_config()).chat('hi') == 'ok'\n"
        "assert 'httpx._main' not in sys.modules"
    )
    env = {**os.environ, "PRAISONLIKE_NO_WARMUP": "1", "COLUMNS": "80"}
    outputs = [
        subprocess.run(
            [sys.executable, "-c", HTTPX_COMMAND.format(setup=code)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        for code in ("", setup)
    ]
    assert [done.returncode for done in outputs] == [0, 0], outputs[1].stderr
    plain, after_turn = (done.stdout for done in outputs)
    assert after_turn == plain
    assert "exit" in plain


def test_a_registered_model_is_priced_and_sized_without_litellm() -> None:
    """What the local model registers (its alias, a price of 0, its window) is read
    by pricing and context budgeting without importing LiteLLM."""
    script = (
        "import sys\n"
        "from praisonlike.models import model_map\n"
        "from praisonlike.models.pricing import resolve_price\n"
        "from praisonlike.context.window import known_context_window\n"
        "model_map.register('openai/my-local-alias', {'litellm_provider': 'openai', "
        "'mode': 'chat', 'max_input_tokens': 4096, 'input_cost_per_token': 0.0, "
        "'output_cost_per_token': 0.0})\n"
        "price = resolve_price('openai/my-local-alias')\n"
        "print(price.input_per_mtok, price.output_per_mtok, "
        "known_context_window('openai/my-local-alias'), 'litellm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.0", "0.0", "4096", "False"]


CLI = """
import runpy, sys
sys.argv = ["praisonlike", "chat", "What is the capital of France?", "--model",
            "openai/test-model", "--api-base", {url!r}, "--api-key", "sk-test"]
try:
    runpy.run_module("praisonlike", run_name="__main__")
except SystemExit as stop:
    assert not stop.code, stop.code
print("litellm imported:", "litellm" in sys.modules)
"""


def test_a_cli_chat_on_an_openai_wire_endpoint_never_imports_litellm(
    server: LocalLLMServer,
) -> None:
    server.add(Text("Paris."))
    env = {k: v for k, v in os.environ.items() if k not in (TRANSPORT_ENV, "PRAISONLIKE_NO_WARMUP")}
    done = subprocess.run(
        [sys.executable, "-c", CLI.format(url=server.url)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Paris." in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "litellm imported: False"
    assert server.request_count == 1
