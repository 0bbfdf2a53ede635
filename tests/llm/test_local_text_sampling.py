"""A local model's text-only replies carry llama.cpp's repetition penalty; rounds that
offer tools, structured answers and other models do not (requests as LocalLLMServer
receives them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from praisonlike import Agent
from praisonlike.models.config import LLMConfig
from praisonlike.models.local.sampling import TEXT_SAMPLING
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls

PENALTY = {"repeat_penalty": 1.1, "repeat_last_n": 512}


def _llm(server: LocalLLMServer, **extra: Any) -> LLMConfig:
    """The test server as a model on a llama.cpp server praisonlike started."""
    return LLMConfig(
        model="openai/test-model",
        api_base=server.url,
        api_key="none",
        features={"local_server": True, "native_tool_calls": True},
        extra=extra,
    )


def _penalty(body: dict[str, Any]) -> dict[str, Any]:
    return {key: body[key] for key in PENALTY if key in body}


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class City(BaseModel):
    name: str


def test_a_turn_without_tools_is_sampled_with_the_penalty(server: LocalLLMServer) -> None:
    server.add(Text("A story."))
    Agent(instructions="You write.", llm=_llm(server)).chat("Write a story.")
    assert TEXT_SAMPLING == PENALTY
    assert _penalty(server.requests[0].body) == PENALTY


def test_rounds_that_offer_tools_are_not(server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3"))
    Agent(instructions="You add.", llm=_llm(server), tools=[add]).chat("1 + 2?")
    assert [_penalty(request.body) for request in server.requests] == [{}, {}]


def test_the_last_round_which_offers_no_tools_is(server: LocalLLMServer) -> None:
    server.add(ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3"))
    agent = Agent(instructions="You add.", llm=_llm(server), tools=[add], max_iterations=1)
    agent.chat("1 + 2?")
    assert [_penalty(request.body) for request in server.requests] == [{}, PENALTY]


def test_a_structured_answer_is_not(server: LocalLLMServer) -> None:
    server.add(Text('{"name": "Paris"}'))
    agent = Agent(instructions="You answer.", llm=_llm(server))
    assert agent.chat("A city?", output_pydantic=City) == City(name="Paris")
    assert _penalty(server.requests[0].body) == {}


def test_the_callers_own_settings_win(server: LocalLLMServer) -> None:
    server.add(Text("A story."))
    llm = _llm(server, extra_body={"repeat_penalty": 1.0, "min_p": 0.05})
    Agent(instructions="You write.", llm=llm).chat("Write a story.")
    body = server.requests[0].body
    assert (body["repeat_penalty"], body["repeat_last_n"], body["min_p"]) == (1.0, 512, 0.05)


def test_another_model_is_sent_no_penalty(server: LocalLLMServer) -> None:
    server.add(Text("A story."))
    Agent(instructions="You write.", llm=server.llm_config()).chat("Write a story.")
    assert _penalty(server.requests[0].body) == {}
