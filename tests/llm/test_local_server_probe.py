"""A model server on this machine that is not running is reported at once, before
LiteLLM's multi-second import: Ollama at its default address (or
``OLLAMA_API_BASE``), and any LiteLLM-routed model with a loopback ``api_base``.
A server that runs is reached as before (the probe only connects)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from fresh_process import fresh_python


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


TURN = """
import os, sys
os.environ.update({env!r})
from praisonlike import Agent
from praisonlike.errors import APIConnectionError
agent = Agent(instructions="Answer.", llm={llm!r})
try:
    agent.chat("hi")
except APIConnectionError as error:
    print("endpoint", error.endpoint)
    print("retried", error.retried)
    print("message", error)
    print("history", len(agent.chat_history))
print("litellm", "litellm" in sys.modules)
"""


def _lines(script: str, tmp_path: Path) -> dict[str, str]:
    done = fresh_python(script, tmp_path)
    assert done.returncode == 0, done.stderr
    return dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)


def test_ollama_not_running_is_refused_without_importing_litellm(tmp_path: Path) -> None:
    port = closed_port()
    env = {"OLLAMA_API_BASE": f"http://127.0.0.1:{port}"}
    seen = _lines(TURN.format(env=env, llm="ollama/llama3"), tmp_path)

    assert seen["endpoint"] == f"http://127.0.0.1:{port}"
    assert seen["retried"] == "0"  # nothing listens there: not retried
    assert f"could not reach http://127.0.0.1:{port} (Connection refused)" in seen["message"]
    assert seen["history"] == "0"
    assert seen["litellm"] == "False"


def test_ollama_chat_without_an_address_is_probed_at_ollamas_default(tmp_path: Path) -> None:
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 11434))
        except OSError:
            pytest.skip("port 11434 is in use on this machine (an Ollama may run here)")
        # bound, not listening: a connection to it is refused
        seen = _lines(TURN.format(env={}, llm="ollama_chat/qwen2.5"), tmp_path)

    assert seen["endpoint"] in ("http://localhost:11434", "http://127.0.0.1:11434")
    assert seen["litellm"] == "False"


def test_a_loopback_api_base_of_another_provider_is_probed(tmp_path: Path) -> None:
    port = closed_port()
    llm = {"model": "hosted_vllm/qwen", "api_base": f"http://localhost:{port}/v1?token=s3cret"}
    seen = _lines(TURN.format(env={}, llm=llm), tmp_path)

    assert seen["endpoint"] == f"http://localhost:{port}"
    assert "s3cret" not in seen["message"]
    assert seen["litellm"] == "False"


CLI = """
import sys
from praisonlike.cli import main
code = main(["chat", "hi", "--model", "ollama/llama3", "--api-base", {base!r}, "--no-stream"])
print("exit", code, "litellm", "litellm" in sys.modules)
"""


def test_the_cli_names_the_server_to_start(tmp_path: Path) -> None:
    port = closed_port()
    done = fresh_python(CLI.format(base=f"http://127.0.0.1:{port}"), tmp_path)

    assert done.stdout.strip().splitlines()[-1] == "exit 1 litellm False", done.stderr
    assert f"start the model server at http://127.0.0.1:{port}" in done.stderr


SERVED = """
import sys
from praisonlike import Agent
from praisonlike.testing import LocalLLMServer, Text
with LocalLLMServer([Text("It runs.")]) as server:
    agent = Agent(
        instructions="Answer.",
        llm={{"model": "hosted_vllm/qwen", "api_base": server.url, "api_key": "none"}},
    )
    print("answer", agent.chat("hi"))
    print("requests", len(server.requests))
print("litellm", "litellm" in sys.modules)
"""


def test_a_running_server_is_reached_through_litellm_after_the_probe(tmp_path: Path) -> None:
    seen = _lines(SERVED.format(), tmp_path)

    assert seen["answer"] == "It runs."
    assert seen["requests"] == "1"
    assert seen["litellm"] == "True"


def test_the_local_server_providers_are_litellms_keyless_ones_at_its_addresses() -> None:
    """What the pre-flight tells without LiteLLM of these providers, LiteLLM agrees with:
    it routes ``<provider>/<name>`` to them, wants no key, and reads the same variable
    for the address, with the same default."""
    from praisonlike.models.litellm_backend import load_litellm
    from praisonlike.models.providers import LOCAL_SERVER_PROVIDERS

    litellm = load_litellm()
    folder = Path(str(litellm.__file__)).parent / "llms"
    for provider, (variable, address) in LOCAL_SERVER_PROVIDERS.items():
        model = f"{provider}/some-model"
        assert litellm.get_llm_provider(model=model)[1] == provider
        missing = litellm.validate_environment(model=model)["missing_keys"]
        assert not [name for name in missing if name.endswith(("_API_KEY", "_API_TOKEN"))]
        own = folder / provider
        own = own if own.is_dir() else folder / provider.split("_")[0]  # ollama_chat: ollama/
        source = "\n".join(path.read_text() for path in own.rglob("*.py"))
        assert f'"{variable}") or "{address}"' in source, provider


def test_the_network_guard_reads_ollamas_address_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ollama at its default address is on the loopback (the probe above reached it
    under the tests' ``PRAISONLIKE_ALLOW_MODEL_REQUESTS=0``); elsewhere it is refused."""
    from praisonlike import Agent
    from praisonlike.errors import ModelRequestBlockedError

    monkeypatch.setenv("OLLAMA_API_BASE", "http://10.0.0.5:11434")
    agent = Agent(instructions="Answer.", llm="ollama/llama3")
    with pytest.raises(ModelRequestBlockedError, match=r"http://10\.0\.0\.5:11434"):
        agent.chat("hi")
    assert agent.chat_history == []


FALLBACK = """
import sys
from praisonlike import Agent
from praisonlike.errors import APIConnectionError
moves = []
agent = Agent(
    instructions="Answer.",
    llm={{"model": "ollama/llama3", "api_base": {base!r}}},
    fallback_models=["ollama/qwen2.5"],
    on_event=lambda e: moves.append(e) if e.type == "fallback" else None,
)
try:
    agent.chat("hi")
except APIConnectionError as error:
    print("error", error.model, error.endpoint)
print("moves", [(m.from_model, m.to_model, m.reason) for m in moves])
print("litellm", "litellm" in sys.modules)
"""


def test_a_fallback_on_the_same_local_server_is_resolved_and_probed_without_litellm(
    tmp_path: Path,
) -> None:
    """The fallback named by a string borrows the endpoint of a model of its provider
    (told without LiteLLM for these providers); it is probed like the primary."""
    base = f"http://127.0.0.1:{closed_port()}"
    seen = _lines(FALLBACK.format(base=base), tmp_path)

    assert seen["moves"] == str([("ollama/llama3", "ollama/qwen2.5", "connection")])
    assert seen["error"] == f"ollama/qwen2.5 {base}"
    assert seen["litellm"] == "False"
