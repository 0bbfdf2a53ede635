"""Usage and cost accounting: every request counted once, exact under concurrency.

Prices are set with ``model_prices`` (USD per million tokens) so the cost is
known; LocalLLMServer reports deterministic usage and totals what it sent in
``tokens_served``, which is the reference every assertion is checked against.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from praisonlike import Agent, ExecutionConfig, UsageTracker
from praisonlike.events import LLMResponse
from praisonlike.testing import Call, Fault, LocalLLMServer, RecordedRequest, Text, ToolCalls
from praisonlike.testing import ReportedUsage as ScriptedUsage

PRICES = {"test-model": {"input": 1.0, "output": 2.0}}
MODEL = "openai/test-model"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def expected_cost(prompt_tokens: int, completion_tokens: int) -> float:
    return (prompt_tokens * 1.0 + completion_tokens * 2.0) / 1_000_000


def three_rounds() -> list[Any]:
    return [
        ToolCalls([Call("add", {"a": 1, "b": 2})]),
        ToolCalls([Call("add", {"a": 3, "b": 4})], content="Adding again."),
        Text("The sums are 3 and 7."),
    ]


def make_agent(server: LocalLLMServer, **kwargs: Any) -> Agent:
    kwargs.setdefault("model_prices", PRICES)
    return Agent(instructions="You add numbers.", llm=server.llm_config(), tools=[add], **kwargs)


def run_turn(agent: Agent, way: str, prompt: str = "add things") -> str:
    if way == "chat":
        return str(agent.chat(prompt))
    if way == "achat":
        return str(asyncio.run(agent.achat(prompt)))
    if way == "achat-stream":
        return str(asyncio.run(agent.achat(prompt, stream=True)))
    return "".join(agent.iter_stream(prompt))


@pytest.mark.parametrize("way", ["chat", "achat", "iter_stream", "achat-stream"])
def test_cost_is_the_sum_over_every_request_of_a_tool_loop(
    server: LocalLLMServer, way: str
) -> None:
    server.extend(three_rounds())
    agent = make_agent(server)

    run_turn(agent, way)

    assert server.request_count == 3
    streamed = way in ("iter_stream", "achat-stream")
    assert [r.stream for r in server.requests] == [streamed] * 3
    prompt, completion = server.tokens_served
    assert prompt > 0 and completion > 0
    result = agent.last_result
    assert result is not None
    usage = result.usage
    assert (usage.requests, usage.prompt_tokens, usage.completion_tokens) == (3, prompt, completion)
    assert usage.total_tokens == prompt + completion
    assert usage.cost == pytest.approx(expected_cost(prompt, completion), rel=1e-12)
    assert usage.cost_complete
    assert agent.usage == usage
    assert agent.total_cost == usage.cost
    assert agent.cost_summary()["by_model"][MODEL]["requests"] == 3


def test_each_response_event_is_priced_on_its_own_request(server: LocalLLMServer) -> None:
    server.extend(
        [
            ToolCalls([Call("add", {"a": 1, "b": 2})], usage=ScriptedUsage(1000, 10)),
            ToolCalls([Call("add", {"a": 3, "b": 4})], usage=ScriptedUsage(2000, 20)),
            Text("done", usage=ScriptedUsage(3000, 30)),
        ]
    )
    agent = make_agent(server)

    events = list(agent.stream_events("add"))

    responses = [e for e in events if isinstance(e, LLMResponse)]
    assert [(e.usage.prompt_tokens, e.usage.completion_tokens) for e in responses] == [
        (1000, 10),
        (2000, 20),
        (3000, 30),
    ]
    assert [e.usage.cost for e in responses] == pytest.approx(
        [expected_cost(1000, 10), expected_cost(2000, 20), expected_cost(3000, 30)]
    )
    assert agent.total_cost == pytest.approx(expected_cost(6000, 60), rel=1e-12)


def test_failed_requests_cost_nothing_and_retries_are_counted_once(
    server: LocalLLMServer,
) -> None:
    server.extend([Fault.rate_limit(), Fault.server_error(), *three_rounds()])
    agent = make_agent(server, execution=ExecutionConfig(max_retries=2, retry_base=0.01))

    agent.chat("add things")

    assert server.request_count == 5
    result = agent.last_result
    assert result is not None
    assert result.usage.requests == 3
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == server.tokens_served


def test_cost_accumulates_across_turns_but_each_result_has_its_own(
    server: LocalLLMServer,
) -> None:
    agent = make_agent(server)
    server.add(Text("one", usage=ScriptedUsage(100, 1)))
    agent.chat("first")
    server.add(Text("two", usage=ScriptedUsage(200, 2)))
    agent.chat("second")

    result = agent.last_result
    assert result is not None
    assert (result.usage.requests, result.usage.prompt_tokens) == (1, 200)
    assert (agent.usage.requests, agent.usage.prompt_tokens) == (2, 300)
    assert agent.total_cost == pytest.approx(expected_cost(300, 3), rel=1e-12)


def test_unknown_price_is_none_never_zero(server: LocalLLMServer) -> None:
    server.extend(three_rounds())
    agent = make_agent(server, model_prices=None)

    agent.chat("add things")

    result = agent.last_result
    assert result is not None
    assert result.usage.cost is None
    assert result.cost is None
    assert agent.total_cost is None
    assert not result.usage.cost_complete
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == server.tokens_served


def test_partly_unknown_price_keeps_the_known_part_and_says_incomplete(
    server: LocalLLMServer,
) -> None:
    server.extend([Fault.authentication(), Text("fallback", usage=ScriptedUsage(50, 5))])
    agent = make_agent(server, fallback_models=["openai/other-model"])
    server.add(Text("priced", usage=ScriptedUsage(100, 10)))
    agent.chat("first")  # answered by the unpriced fallback after a 401
    agent.chat("second")  # the fallback is remembered per turn only: primary again

    total = agent.usage
    assert total.requests == 2
    assert total.cost == pytest.approx(expected_cost(100, 10), rel=1e-12)
    assert not total.cost_complete
    by_model = agent.usage_tracker.by_model
    assert by_model["openai/other-model"].cost is None
    assert by_model[MODEL].cost_complete


def loop_responder(request: RecordedRequest) -> Any:
    """A tool round, then an answer echoing the turn's prompt; safe for concurrent turns."""
    messages = request.messages
    prompt = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    if messages[-1]["role"] == "tool":
        return Text(f"echo {prompt}")
    return ToolCalls([Call("add", {"a": len(prompt), "b": 1})])


def assert_totals_exact(tracker: UsageTracker, server: LocalLLMServer, requests: int) -> None:
    total = tracker.total
    prompt, completion = server.tokens_served
    assert server.request_count == requests
    assert (total.requests, total.prompt_tokens, total.completion_tokens) == (
        requests,
        prompt,
        completion,
    )
    assert total.cost == pytest.approx(expected_cost(prompt, completion), rel=1e-9)
    assert tracker.by_model[MODEL] == total


async def test_32_concurrent_achat_turns_share_one_tracker(server: LocalLLMServer) -> None:
    server.default = loop_responder
    shared = UsageTracker()
    agents = [make_agent(server, usage_tracker=shared) for _ in range(32)]

    answers = await asyncio.gather(*(a.achat(f"n{i}") for i, a in enumerate(agents)))

    assert answers == [f"echo n{i}" for i in range(32)]
    assert_totals_exact(shared, server, requests=64)
    per_run = [a.last_result.usage for a in agents if a.last_result is not None]
    assert sum(u.prompt_tokens for u in per_run) == shared.total.prompt_tokens
    assert all(u.requests == 2 for u in per_run)


def in_threads(work: Any, count: int) -> list[Any]:
    barrier = threading.Barrier(count)

    def start(index: int) -> Any:
        barrier.wait(timeout=30)
        return work(index)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(start, range(count)))


def test_8_threads_on_8_agents_sharing_one_tracker(server: LocalLLMServer) -> None:
    server.default = loop_responder
    shared = UsageTracker()
    agents = [make_agent(server, usage_tracker=shared) for _ in range(8)]

    def work(index: int) -> list[str]:
        return [str(agents[index].chat(f"t{index}-{turn}")) for turn in range(3)]

    answers = in_threads(work, 8)

    assert answers == [[f"echo t{i}-{turn}" for turn in range(3)] for i in range(8)]
    assert_totals_exact(shared, server, requests=8 * 3 * 2)


def test_8_threads_on_one_agent(server: LocalLLMServer) -> None:
    server.default = loop_responder
    agent = make_agent(server)

    answers = in_threads(lambda index: str(agent.chat(f"p{index}")), 8)

    assert answers == [f"echo p{i}" for i in range(8)]
    assert_totals_exact(agent.usage_tracker, server, requests=16)
    history = agent.chat_history
    assert len(history) == 8 * 4
    # each turn's messages are committed as one block: user, tool call, tool result, answer
    for start in range(0, len(history), 4):
        user, call, tool, answer = history[start : start + 4]
        assert user["role"] == "user"
        assert call["tool_calls"][0]["id"] == tool["tool_call_id"]
        assert answer == {"role": "assistant", "content": f"echo {user['content']}"}


def test_a_tracker_sums_each_usage_as_the_plus_operator_does() -> None:
    from praisonlike.models.usage import Usage

    added = [
        Usage(
            requests=n % 3,
            prompt_tokens=10 * n,
            completion_tokens=n,
            total_tokens=11 * n,
            cached_tokens=n // 2,
            cache_write_tokens=n // 3,
            reasoning_tokens=n // 4,
            cost=None if n % 7 == 3 else n / 1000,
            cost_complete=n % 11 != 5,
            estimated=n == 400,
        )
        for n in range(600)  # past what a tracker keeps unsummed
    ]
    tracker = UsageTracker()
    expected = {"a": Usage(), "b": Usage()}
    total = Usage()
    for n, usage in enumerate(added):
        model = "a" if n % 2 else "b"
        tracker.add(model, usage)
        expected[model] = expected[model] + usage
        total = total + usage
        if n in (0, 299):  # a read in the middle changes nothing
            assert tracker.total == total
    assert tracker.total == total
    assert dict(tracker.by_model) == expected
    assert not total.cost_complete and total.estimated and total.cost is not None
