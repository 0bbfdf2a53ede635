"""Testing your agent: script the model, then check what the agent sent and did.

``LocalLLMServer`` is an OpenAI-compatible server on 127.0.0.1 that answers from
a script, so a test runs the real request path (LiteLLM, streaming, retries)
offline and the same every time. These functions are ordinary pytest tests
(``pytest examples/testing_your_agent.py``; pytest also offers the ``llm_server``
fixture); ``main()`` runs them without pytest. ``llm_config(SCRIPTED_MODEL)`` makes
LiteLLM treat the server as gpt-4o-mini (its context window, prices, features).
"""

from __future__ import annotations

from collections.abc import Callable

from example_llm import SCRIPTED_MODEL, announce_scripted

from praisonlike import Agent, ExecutionConfig
from praisonlike.testing import Call, Fault, LocalLLMServer, Response, Text, ToolCalls


def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return f"sunny in {city}"


def test_the_agent_calls_the_tool_and_answers_from_it() -> None:
    script: list[Response] = [
        ToolCalls([Call("get_weather", {"city": "Oslo"})]),
        Text("It is sunny in Oslo."),
    ]
    with LocalLLMServer(script) as server:
        llm = server.llm_config(SCRIPTED_MODEL)
        agent = Agent(instructions="Report the weather.", llm=llm, tools=[get_weather])
        assert agent.chat("Weather in Oslo?") == "It is sunny in Oslo."
        offered = [tool["function"]["name"] for tool in server.requests[0].tools]
        assert offered == ["get_weather"]
        assert server.requests[1].messages[-1] == {
            "role": "tool", "tool_call_id": "call_1", "content": "sunny in Oslo",
        }
        assert server.remaining == 0 and server.errors == []


def test_a_rate_limit_is_retried() -> None:
    with LocalLLMServer([Fault.rate_limit(retry_after=0), Text("ok")]) as server:
        llm = server.llm_config(SCRIPTED_MODEL)
        agent = Agent(instructions="Be brief.", llm=llm, execution=ExecutionConfig(retry_base=0.01))
        assert agent.chat("hi") == "ok"
        assert agent.last_result is not None and agent.last_result.retries == 1
        assert server.request_count == 2


def test_usage_counts_what_the_server_sent() -> None:
    with LocalLLMServer([Text("one two three")]) as server:
        agent = Agent(instructions="Count.", llm=server.llm_config(SCRIPTED_MODEL))
        agent.chat("count to three")
        prompt, completion = server.tokens_served
        assert (agent.usage.prompt_tokens, agent.usage.completion_tokens) == (prompt, completion)


TESTS: list[Callable[[], None]] = [
    test_the_agent_calls_the_tool_and_answers_from_it,
    test_a_rate_limit_is_retried,
    test_usage_counts_what_the_server_sent,
]


def main() -> None:
    announce_scripted("this example is about scripting it")
    for test in TESTS:
        test()
        print(f"PASSED {test.__name__}")
    print(f"{len(TESTS)} tests passed")


if __name__ == "__main__":
    main()
