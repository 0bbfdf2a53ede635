"""praisonlike leaves LiteLLM's process-wide settings alone: ``drop_params`` is
passed per call, so an application that also calls LiteLLM sees its own settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.errors import BadRequestError
from praisonlike.loop.commands import CallModel
from praisonlike.models.codec import completion_kwargs
from praisonlike.models.config import LLMConfig
from praisonlike.models.litellm_backend import load_litellm
from praisonlike.testing import LocalLLMServer, Text


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """LiteLLM as an application that never asked LiteLLM to drop parameters has it."""
    module = load_litellm()
    monkeypatch.setattr(module, "drop_params", False)
    return module


def test_an_unsupported_parameter_is_dropped_for_the_call_only(
    server: LocalLLMServer, litellm: ModuleType
) -> None:
    server.add(Text("reasoned"))
    agent = Agent(
        instructions="You answer.", llm={**server.llm_config("o3-mini"), "temperature": 0.5}
    )

    assert agent.chat("hello") == "reasoned"

    assert "temperature" not in server.requests[0].body
    assert litellm.drop_params is False


def test_the_callers_drop_params_wins(server: LocalLLMServer, litellm: ModuleType) -> None:
    agent = Agent(
        instructions="You answer.",
        llm={**server.llm_config("o3-mini"), "temperature": 0.5, "drop_params": False},
    )

    with pytest.raises(BadRequestError, match="temperature"):
        agent.chat("hello")

    assert server.request_count == 0


def _sent(model: str, stream: bool = False, **settings: Any) -> dict[str, Any]:
    command = CallModel(
        llm=LLMConfig(model=model, api_base="http://127.0.0.1:9/v1", api_key="sk-t", **settings),
        messages=[{"role": "user", "content": "hi"}],
        tools=[TOOL],
        stream=stream,
        iteration=1,
        timeout=30.0,
    )
    return completion_kwargs(command)


TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def test_drop_params_goes_only_with_a_parameter_litellm_could_drop() -> None:
    """A request of model, messages, connection settings and tools for a model the map
    says takes them has nothing to drop; anything else is sent with drop_params."""
    assert "drop_params" not in _sent("openai/gpt-4o-mini")
    assert _sent("openai/gpt-4o-mini", temperature=0.5)["drop_params"] is True
    assert _sent("openai/gpt-4o-mini", stream=True)["drop_params"] is True
    assert _sent("openai/not-in-the-map")["drop_params"] is True
    assert _sent("openai/gpt-4o-mini", extra={"drop_params": False})["drop_params"] is False


TURN = """
from praisonlike import Agent
from praisonlike.testing import LocalLLMServer, Text

with LocalLLMServer() as server:
    server.add(Text("ok"))
    assert Agent(instructions="x", llm=server.llm_config()).chat("hi") == "ok"
"""
REPORT = """
import json, litellm
print(json.dumps({"drop_params": litellm.drop_params, "suppress": litellm.suppress_debug_info}))
"""


def test_a_turn_changes_no_litellm_setting_of_the_application() -> None:
    """The application imported LiteLLM first; after a turn its settings are as it left them."""
    script = "import litellm\n" + TURN + REPORT
    env = {**os.environ, "PRAISONLIKE_ALLOW_MODEL_REQUESTS": "0"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr

    settings = json.loads(done.stdout.strip().splitlines()[-1])
    assert settings == {"drop_params": False, "suppress": False}
