"""The context budget end to end: what the model server receives when a
conversation outgrows a small window, against LocalLLMServer via real LiteLLM."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from praisonlike import Agent, TerminationReason
from praisonlike.context import (
    PLACEHOLDER,
    SUMMARY_ACK,
    SUMMARY_PREFIX,
    ContextConfig,
    ContextManager,
    TokenCounter,
    check_invariants,
)
from praisonlike.errors import ContextWindowExceededError
from praisonlike.events import CompactionEvent, ErrorEvent, LLMRequest, LLMResponse
from praisonlike.testing import (
    Call,
    Fault,
    LocalLLMServer,
    RecordedRequest,
    ReportedUsage,
    Response,
    Text,
    ToolCalls,
)

pytestmark = pytest.mark.filterwarnings("ignore::praisonlike.context.ContextWindowUnknownWarning")

COUNTER = TokenCounter("openai/test-model")
WORDS = ("alpha", "beta", "gamma", "delta", "window", "token", "budget", "agent", "model", "tool")
SUMMARY_MODEL = "openai/summary-model"


def words(count: int, seed: int = 0) -> str:
    return " ".join(WORDS[(seed + i * 3) % len(WORDS)] for i in range(count)) + f" #{seed}"


def page(number: int) -> str:
    return f"PAGE {number} START " + words(600, number) + f" PAGE {number} END"


def fetch(number: int) -> str:
    """Fetch one page of the report.

    Args:
        number: Page number.
    """
    return page(number)


def fetch_calls(pages: range) -> list[Response]:
    return [ToolCalls([Call("fetch", {"number": n}, id=f"p{n}")]) for n in pages]


def main_requests(server: LocalLLMServer) -> list[RecordedRequest]:
    return [request for request in server.requests if request.model == "test-model"]


def wire_tokens(request: RecordedRequest) -> int:
    return COUNTER.count_messages(request.messages) + COUNTER.count_tools(request.tools)


def wire_problems(request: RecordedRequest, current_user: str) -> list[str]:
    """What is wrong with a request as the server received it."""
    messages = request.messages
    problems: list[str] = []
    if messages[0]["role"] != "system":
        problems.append("the system message is not first")
    body = [m for m in messages if m["role"] != "system"]
    if messages[1 : len(body) + 1] != body:
        problems.append("a system message is not at the head")
    if not body or body[0]["role"] != "user":
        problems.append("the first message after the system message is not a user message")
    if {"role": "user", "content": current_user} not in messages:
        problems.append("the current user message is missing")
    called: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        for call in message.get("tool_calls") or ():
            called.add(call["id"])
        if message["role"] == "tool":
            if message["tool_call_id"] not in called:
                problems.append(f"orphan tool result {message['tool_call_id']}")
            answered.add(message["tool_call_id"])
    problems += [f"tool call {call_id} has no result" for call_id in sorted(called - answered)]
    return problems


def assert_within(requests: list[RecordedRequest], budget: int, current_user: str) -> None:
    for index, request in enumerate(requests):
        assert wire_tokens(request) <= budget, f"request {index} is over the budget"
        assert wire_problems(request, current_user) == [], f"request {index}"


def routes_per_request(events: list[Any]) -> list[str]:
    """The context route each answer request took ("fits": no CompactionEvent)."""
    routes: list[str] = []
    pending = "fits"
    for event in events:
        if isinstance(event, CompactionEvent):
            pending = event.route
        elif isinstance(event, LLMRequest) and event.purpose == "answer":
            routes.append(pending)
            pending = "fits"
    return routes


def phases(routes: list[str]) -> list[str]:
    """``routes`` with consecutive repeats collapsed."""
    return [route for i, route in enumerate(routes) if i == 0 or routes[i - 1] != route]


def small_window(**kwargs: Any) -> ContextConfig:
    kwargs.setdefault("max_context_tokens", 3000)
    kwargs.setdefault("reserve_output_tokens", 300)
    return ContextConfig(**kwargs)


BUDGET = 2700


# -- the loop stays inside the window ---------------------------------------------------


def test_a_long_tool_loop_past_the_window_completes_within_it(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(
        instructions="You read reports.",
        llm=llm,
        tools=[fetch],
        context=small_window(tool_output_limit=1500),
        max_iterations=30,
    )
    server.extend([Text("Noted. " + words(150, 1)), Text("Noted. " + words(150, 2))])
    agent.chat("Some background: " + words(150, 3))
    agent.chat("More background: " + words(150, 4))
    prompt = "Read all fifteen pages and summarise them."
    server.extend([*fetch_calls(range(15)), Text("All fifteen pages read.")])
    events = list(agent.stream_events(prompt))

    result = agent.last_result
    assert result is not None and result.termination_reason is TerminationReason.COMPLETED
    assert result.output == "All fifteen pages read."
    assert server.errors == [] and server.remaining == 0
    history = agent.chat_history
    assert COUNTER.count_messages(history) > 3 * BUDGET
    assert [m["content"] for m in history if m["role"] == "tool"] == [page(n) for n in range(15)]
    turn = main_requests(server)[2:]
    assert len(turn) == 16
    assert_within(turn, BUDGET, prompt)
    last_tool = turn[-1].messages[-1]
    assert last_tool["tool_call_id"] == "p14" and last_tool["content"].startswith("PAGE 14 START")
    assert phases(routes_per_request(events)) == [
        "fits",
        "truncate_tools",
        "compact_then_truncate",
    ]


def report_section(topic: str) -> str:
    """Look a topic up in the report (4,689 characters).

    Args:
        topic: What to look up.
    """
    text = f"SECTION {topic} START " + words(800, len(topic))
    return (text + " " + "x" * 4689)[:4689]


def test_drop_oldest_tools_replaces_tool_results_before_dropping_any_turn(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(
        instructions="You read reports.",
        llm=llm,
        tools=[report_section],
        context=small_window(strategy="drop_oldest_tools"),
    )
    questions = [f"Question {n}: what does section s{n} say?" for n in range(5)]
    for n, question in enumerate(questions):
        server.extend(
            [ToolCalls([Call("report_section", {"topic": f"s{n}"}, id=f"c{n}")]), Text(f"A{n}")]
        )
        agent.chat(question)
    server.add(Text("done"))
    agent.chat("Which sections did we read?")

    last = server.requests[-1]
    assert COUNTER.count_messages(agent.chat_history) > BUDGET
    assert_within([last], BUDGET, "Which sections did we read?")
    users = [m["content"] for m in last.messages if m["role"] == "user"]
    assert users == [*questions, "Which sections did we read?"]
    results = {m["tool_call_id"]: m["content"] for m in last.messages if m["role"] == "tool"}
    assert list(results) == ["c0", "c1", "c2", "c3", "c4"]
    replaced = [call_id for call_id, content in results.items() if content == PLACEHOLDER]
    assert replaced and replaced == list(results)[: len(replaced)]


def test_routes_fits_then_truncate_tools_then_compact_then_truncate(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(
        instructions="You read reports.",
        llm=llm,
        tools=[fetch],
        context=small_window(tool_output_limit=2000),
        max_iterations=30,
    )
    prompt = "Read pages 0 to 7."
    server.extend([*fetch_calls(range(8)), Text("Done.")])
    events = list(agent.stream_events(prompt))
    routes = routes_per_request(events)
    assert len(routes) == 9
    assert phases(routes) == ["fits", "truncate_tools", "compact_then_truncate"]
    assert_within(main_requests(server), BUDGET, prompt)
    truncated = [e for e in events if isinstance(e, CompactionEvent)]
    assert all(e.tool_outputs_truncated >= 1 for e in truncated)


def test_routes_fits_then_compact_then_compact_then_truncate(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    def lookup(key: str) -> str:
        """Look a key up."""
        return f"{key}: " + (words(1200, 9) if key == "huge" else words(180, len(key)))

    agent = Agent(
        instructions="You look things up.",
        llm=llm,
        tools=[lookup],
        context=small_window(tool_output_limit=2000, keep_last_turns=1),
        max_iterations=30,
    )
    for turn in range(5):
        server.add(Text(f"Answer {turn}: " + words(200, turn)))
        agent.chat(f"Question {turn}: " + words(120, turn + 10))
    prompt = "Look up a, bb, ccc, dddd and then huge."
    keys = ["a", "bb", "ccc", "dddd", "huge"]
    server.extend([ToolCalls([Call("lookup", {"key": k}, id=f"k{i}")]) for i, k in enumerate(keys)])
    server.add(Text("Looked up."))
    events = list(agent.stream_events(prompt))
    routes = routes_per_request(events)
    assert len(routes) == 6
    assert phases(routes) == ["fits", "compact", "compact_then_truncate"]
    compacted = [e for e in events if isinstance(e, CompactionEvent) and e.route == "compact"]
    assert all(e.messages_dropped > 0 and e.tokens_after < e.tokens_before for e in compacted)
    assert_within(main_requests(server)[5:], BUDGET, prompt)


# -- context=False --------------------------------------------------------------------


@pytest.mark.parametrize("way", ["chat", "achat", "iter_stream", "stream_events"])
def test_a_prompt_too_long_for_the_window_is_refused_not_cut(
    server: LocalLLMServer, llm: dict[str, Any], way: str
) -> None:
    """What the user wrote is never sent cut: a prompt that does not fit the budget even
    with the history dropped ends the turn with a typed error before any request."""
    agent = Agent(instructions="You answer.", llm=llm, context=small_window())
    server.add(Text("First answer."))
    agent.chat("First question.")
    before, sent = agent.chat_history, len(server.requests)
    prompt = "START " + words(4000) + " END"

    with pytest.raises(ContextWindowExceededError) as raised:
        if way == "chat":
            agent.chat(prompt)
        elif way == "achat":
            asyncio.run(agent.achat(prompt))
        elif way == "iter_stream":
            list(agent.iter_stream(prompt))
        else:
            events = []
            for event in agent.stream_events(prompt):
                events.append(event)
    message = str(raised.value)
    assert "prompt is too long" in message and "2700-token input budget" in message
    assert "ContextConfig(max_context_tokens=" in message
    assert len(server.requests) == sent
    assert agent.chat_history == before
    if way == "stream_events":
        assert [e.error_type for e in events if isinstance(e, ErrorEvent)] == [
            "ContextWindowExceededError"
        ]

    server.add(Text("Short answer."))
    assert agent.chat("A short question.") == "Short answer."


@pytest.mark.parametrize("context", [True, False])
def test_context_off_sends_requests_unchanged(
    server: LocalLLMServer, llm: dict[str, Any], context: bool
) -> None:
    big = words(5000)

    def read() -> str:
        """Read the file."""
        return big

    agent = Agent(instructions="You read files.", llm=llm, tools=[read], context=context)
    server.extend([ToolCalls([Call("read", {}, id="r1")]), Text("Read it.")])
    events = list(agent.stream_events("Read the file."))
    sent = server.requests[1].messages
    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    if context:
        assert [e.route for e in compactions] == ["truncate_tools"]
        assert len(sent[-1]["content"]) <= ContextConfig().tool_output_limit
    else:
        assert compactions == []
        assert sent[1:] == agent.chat_history[:-1]
        assert sent[-1]["content"] == big


def test_context_off_still_heals_a_provider_context_error(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    agent = Agent(instructions="You chat.", llm=llm, context=False)
    for turn in range(4):
        server.add(Text(f"Reply {turn}: " + words(400, turn)))
        agent.chat(f"Message {turn}: " + words(1200, turn + 5))
    server.extend([Fault.context_length_exceeded(limit=8192), Text("Healed.")])
    prompt = "And now?"
    events = list(agent.stream_events(prompt))

    assert agent.last_result is not None and agent.last_result.output == "Healed."
    failed, healed = server.requests[-2], server.requests[-1]
    assert failed.messages[1:] == agent.chat_history[:-1]
    emergency_budget = int(0.7 * (8192 - ContextConfig().reserve_output_tokens))
    assert wire_tokens(healed) <= emergency_budget < wire_tokens(failed)
    assert wire_problems(healed, prompt) == []
    assert [e.route for e in events if isinstance(e, CompactionEvent)] == ["compact"]
    assert len(agent.chat_history) == 10


# -- summarise ----------------------------------------------------------------------------


class ScriptedModels:
    """Answers the summary model with numbered summaries, the agent's model from a script."""

    def __init__(
        self, server: LocalLLMServer, *, fail_summaries: bool = False, looping: bool = False
    ) -> None:
        self.summary_requests: list[RecordedRequest] = []
        self.answers: list[Response] = []
        self.fail_summaries = fail_summaries
        self.looping = looping
        self.server = server
        server.default = self

    def summary_text(self, number: int) -> str:
        return f"SUMMARY-{number}: the user asked numbered questions about Greek letters."

    def __call__(self, request: RecordedRequest) -> Response:
        if request.model == "summary-model":
            self.summary_requests.append(request)
            if self.fail_summaries:
                return Fault.server_error()
            if self.looping:
                return Text("the user asked about Greek letters and " * 12)
            return Text(self.summary_text(len(self.summary_requests)), usage=ReportedUsage(321, 17))
        if self.answers:
            return self.answers.pop(0)
        return Text("Answer: " + words(60, len(request.messages)))


def summarising_agent(llm: dict[str, Any], **kwargs: Any) -> Agent:
    config = small_window(
        max_context_tokens=2000,
        reserve_output_tokens=200,
        strategy="summarise",
        summary_model=SUMMARY_MODEL,
    )
    return Agent(instructions="You answer questions.", llm=llm, context=config, **kwargs)


def chat_until_summary(
    agent: Agent, models: ScriptedModels, limit: int = 30
) -> tuple[list[Any], tuple[int, int]]:
    """Chat numbered questions until a turn makes a summary call: that turn's
    events and the server's ``tokens_served`` before it."""
    for n in range(limit):
        before = len(models.summary_requests)
        served = models.server.tokens_served
        events = list(agent.stream_events(f"Question {n}: " + words(60, n)))
        if len(models.summary_requests) > before:
            return events, served
    raise AssertionError("no summary was ever requested")


def test_summarise_calls_the_summary_model_and_counts_its_usage(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    models = ScriptedModels(server)
    agent = summarising_agent(llm)
    for _ in range(8):
        agent.chat("Warm up " + words(60))
    assert models.summary_requests == [], "the warm-up stays below the trigger"
    events, served_before = chat_until_summary(agent, models)

    assert len(models.summary_requests) == 1
    index = server.requests.index(models.summary_requests[0])
    after = server.requests[index + 1]
    assert after.model == "test-model" and after is server.requests[-1]
    assert after.messages[1] == {"role": "user", "content": SUMMARY_PREFIX + models.summary_text(1)}
    assert after.messages[2] == {"role": "assistant", "content": SUMMARY_ACK}
    assert "Warm up" in models.summary_requests[0].messages[1]["content"]
    prompt = after.messages[-1]["content"]
    assert wire_problems(after, prompt) == [] and wire_tokens(after) <= 1800

    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    assert [(e.strategy, e.failed) for e in compactions] == [("summarise", None)]
    purposes = [e.purpose for e in events if isinstance(e, LLMResponse)]
    assert purposes == ["summary", "answer"]
    result = agent.last_result
    assert result is not None and result.usage.requests == 2
    turn_served = (
        server.tokens_served[0] - served_before[0],
        server.tokens_served[1] - served_before[1],
    )
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == turn_served
    assert result.usage.prompt_tokens > 321
    assert (agent.usage.prompt_tokens, agent.usage.completion_tokens) == server.tokens_served
    by_model = agent.cost_summary()["by_model"]
    assert by_model[SUMMARY_MODEL]["prompt_tokens"] == 321
    assert by_model[SUMMARY_MODEL]["completion_tokens"] == 17


@pytest.mark.parametrize("fault", ["failing", "looping"])
def test_a_failing_summary_falls_back_to_drop_oldest_tools(
    server: LocalLLMServer, llm: dict[str, Any], fault: str
) -> None:
    """A summary call that fails, or answers with one phrase over and over (a small
    model's loop), leaves the strategy's fallback to fit the request."""
    models = ScriptedModels(server, fail_summaries=fault == "failing", looping=fault == "looping")
    agent = summarising_agent(llm)
    events, _ = chat_until_summary(agent, models)

    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [(e.error_type, e.fatal) for e in errors] == [("SummaryFailed", False)]
    if fault == "looping":
        assert "repeated itself" in errors[0].message
        assert "summary" in [e.purpose for e in events if isinstance(e, LLMResponse)]
    compaction = next(e for e in events if isinstance(e, CompactionEvent))
    assert compaction.strategy == "drop_oldest_tools"
    assert compaction.failed is not None and compaction.failed.startswith("summarise failed")
    result = agent.last_result
    assert result is not None and result.termination_reason is TerminationReason.COMPLETED
    for request in main_requests(server):
        assert not any(str(m.get("content")).startswith(SUMMARY_PREFIX) for m in request.messages)
        assert wire_tokens(request) <= 1800


# -- summary reuse ------------------------------------------------------------------------


def fetch_short(number: int) -> str:
    """Fetch a short note.

    Args:
        number: Note number.
    """
    return f"note {number}: " + words(40, number)


def test_summary_reuse_makes_few_summary_calls_and_carries_the_summary_forward(
    server: LocalLLMServer, llm: dict[str, Any]
) -> None:
    models = ScriptedModels(server)
    agent = summarising_agent(llm, tools=[fetch_short])
    chat_until_summary(agent, models)
    first_summary_request = len(server.requests)

    for n in range(10):
        models.answers.append(ToolCalls([Call("fetch_short", {"number": n}, id=f"s{n}")]))
        prompt = f"Next question {n}: " + words(60, n)
        events = list(agent.stream_events(prompt))
        assert routes_per_request(events) == ["compact", "compact"]
        assert wire_problems(server.requests[-1], prompt) == []
    later = server.requests[first_summary_request:]
    answers = [r for r in later if r.model == "test-model"]
    summaries = [r for r in later if r.model == "summary-model"]
    assert len(answers) == 20
    assert 1 <= len(summaries) <= 3
    for number, request in enumerate(summaries, start=2):
        content = request.messages[1]["content"]
        assert content.startswith(
            "Summary of the conversation so far:\n\n" + models.summary_text(number - 1)
        )
        assert "Question 0:" not in content
    for request in answers:
        assert wire_tokens(request) <= 1800
        assert request.messages[1]["content"].startswith(SUMMARY_PREFIX + "SUMMARY-")
    latest = models.summary_text(len(models.summary_requests))
    assert server.requests[-1].messages[1] == {"role": "user", "content": SUMMARY_PREFIX + latest}


def conversation(turns: int, seed: int = 0) -> list[dict[str, Any]]:
    """A system message and ``turns`` turns; every third turn has a tool round
    whose result is over the managers' ``tool_output_limit``."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You help."}]
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n} " + words(50, n + seed)})
        if n % 3 == 2:
            function = {"name": "search", "arguments": "{}"}
            call = {"id": f"t{n}", "type": "function", "function": function}
            messages += [
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": f"t{n}", "content": words(300, n)},
            ]
        messages.append({"role": "assistant", "content": f"answer {n} " + words(50, n + seed + 1)})
    return messages


def summarising_manager() -> ContextManager:
    config = ContextConfig(
        max_context_tokens=1500,
        reserve_output_tokens=0,
        strategy="summarise",
        summary_model="gpt-4o",
        tool_output_limit=500,
    )
    return ContextManager("gpt-4o-mini", config)


def test_an_identical_dropped_part_reuses_the_summary_without_a_call() -> None:
    manager = summarising_manager()
    messages = conversation(20)
    first = manager.prepare(messages)
    assert first.summary_request is not None
    done = first.finish("They discussed twenty questions.")
    again = manager.prepare([*messages, {"role": "user", "content": "and one more"}])
    assert again.summary_request is None
    assert again.messages[1] == done.messages[1]
    assert again.report is not None and again.report.strategy == "summarise"
    assert again.report.tokens_after == manager.counter.count_messages(again.messages)
    assert again.messages[-1] == {"role": "user", "content": "and one more"}


def test_a_changed_covered_message_forces_a_fresh_summary() -> None:
    manager = summarising_manager()
    messages = conversation(20)
    manager.prepare(messages).finish("They discussed twenty questions.")
    changed = copy.deepcopy(messages)
    changed[1]["content"] = "question 0 was edited"
    prepared = manager.prepare(changed)
    assert prepared.summary_request is not None
    transcript = prepared.summary_request[1]["content"]
    assert transcript.startswith("Conversation to summarise:")
    assert "They discussed twenty questions." not in transcript
    assert "question 0 was edited" in transcript
    messages[1]["content"] = "edited in place"
    assert manager.prepare(messages).summary_request is not None


def test_a_grown_dropped_part_is_summarised_with_the_previous_summary() -> None:
    manager = summarising_manager()
    messages = conversation(20)
    manager.prepare(messages).finish("SUMMARY ONE")
    grown = conversation(40)
    assert grown[: len(messages)] == messages
    prepared = manager.prepare(grown)
    assert prepared.summary_request is not None
    transcript = prepared.summary_request[1]["content"]
    assert transcript.startswith("Summary of the conversation so far:\n\nSUMMARY ONE")
    assert "question 0 " not in transcript and "question 25 " in transcript
    done = prepared.finish("SUMMARY TWO")
    assert done.messages[1]["content"] == SUMMARY_PREFIX + "SUMMARY TWO"
    assert done.report is not None and done.report.tokens_after <= manager.budgets.target


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 6), min_size=2, max_size=8), st.integers(0, 400))
def test_reuse_keeps_the_invariants_as_a_conversation_grows(
    growth: list[int], summary_words: int
) -> None:
    manager = summarising_manager()
    budgets = manager.budgets
    size = 10
    for step, extra in enumerate(growth):
        size += extra
        messages = conversation(size, seed=1)
        snapshot = copy.deepcopy(messages)
        prepared = manager.prepare(messages)
        fresh = prepared.summary_request is not None
        if fresh:
            prepared = prepared.finish(f"summary {step} " + words(summary_words, step))
        assert messages == snapshot
        report = prepared.report
        if report is None:
            continue
        problems = check_invariants(
            messages, prepared.messages, counter=manager.counter, budget=budgets.trigger
        )
        assert problems == []
        assert report.tokens_after == manager.counter.count_messages(prepared.messages)
        assert report.tokens_after <= (budgets.target if fresh else budgets.trigger)
