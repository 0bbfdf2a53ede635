"""Error recovery end to end: every LocalLLMServer fault through chat, achat and iter_stream.

The policy under test (docs/recovery.md): a context-window error compacts the
request and resends it (at most ``max_context_retries`` times); retryable
errors back off and retry up to ``max_retries``, then fall back to the next
model; authentication and model-not-found fall back at once or raise. A
failed turn leaves ``chat_history`` unchanged; a recovered one extends it.
Every test runs on both transports (the openai SDK sent directly, and LiteLLM).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from transport_support import TRANSPORTS, use_transport

from praisonlike import Agent, ContextConfig, ExecutionConfig, TerminationReason
from praisonlike.errors import (
    APIConnectionError,
    AuthenticationError,
    ContextWindowExceededError,
    LLMError,
    LLMTimeoutError,
    MalformedResponseError,
    ModelNotFoundError,
    RateLimitError,
    ServiceUnavailableError,
)
from praisonlike.events import (
    CompactionEvent,
    FallbackEvent,
    LLMRequest,
    RetryEvent,
    RunFinished,
    StreamReset,
    TextDelta,
)
from praisonlike.testing import (
    Call,
    Delay,
    DropConnection,
    Fault,
    LocalLLMServer,
    MalformedBody,
    Text,
    ToolCalls,
)
from praisonlike.testing.script import Response

WAYS = ("chat", "achat", "iter_stream")


@pytest.fixture(autouse=True, params=TRANSPORTS)
def transport(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, server: LocalLLMServer
) -> str:
    """Every test runs on both transports: the direct openai SDK one and LiteLLM."""
    name = str(request.param)
    use_transport(monkeypatch, name, server.llm_config())
    return name


FALLBACK = "openai/other-model"
SLOW_CALL_TIMEOUT = 0.4


@dataclass(frozen=True)
class RetryableCase:
    fault: Response
    error: type[LLMError]
    timeout: float | None = None


RETRYABLE = {
    "429": RetryableCase(Fault.rate_limit(), RateLimitError),
    "429-retry-after": RetryableCase(Fault.rate_limit(retry_after=0.05), RateLimitError),
    "500": RetryableCase(Fault.server_error(), ServiceUnavailableError),
    "503": RetryableCase(Fault.unavailable(), ServiceUnavailableError),
    # LiteLLM reports these two as a (synthetic) 500; see the xfail test below.
    "dropped": RetryableCase(DropConnection(), LLMError),
    "malformed": RetryableCase(MalformedBody(), LLMError),
    "slow": RetryableCase(Delay(30, Text("too late")), LLMTimeoutError, SLOW_CALL_TIMEOUT),
}
FATAL = {
    "401": (Fault.authentication(), AuthenticationError),
    "404": (Fault.model_not_found(), ModelNotFoundError),
}


def make_agent(server: LocalLLMServer, *, timeout: float | None = None, **kwargs: Any) -> Agent:
    execution = ExecutionConfig(max_retries=1, retry_base=0.01, timeout=timeout)
    return Agent(instructions="You answer.", llm=server.llm_config(), execution=execution, **kwargs)


def primed(server: LocalLLMServer, **kwargs: Any) -> Agent:
    """An agent with one finished turn, so "history unchanged" is not trivially empty."""
    agent = make_agent(server, **kwargs)
    server.add(Text("first answer"))
    assert agent.chat("first question") == "first answer"
    server.reset()
    return agent


def run_turn(agent: Agent, way: str, prompt: str = "second question") -> str:
    if way == "chat":
        return str(agent.chat(prompt))
    if way == "achat":
        return str(asyncio.run(agent.achat(prompt)))
    return "".join(agent.iter_stream(prompt))


def models_asked(server: LocalLLMServer) -> list[str | None]:
    return [r.model for r in server.requests]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("case", RETRYABLE.values(), ids=RETRYABLE.keys())
def test_retryable_fault_is_retried_and_recovers(
    server: LocalLLMServer, case: RetryableCase, way: str
) -> None:
    agent = primed(server, timeout=case.timeout)
    before = agent.chat_history
    server.extend([case.fault, Text("recovered")])

    answer = run_turn(agent, way)

    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.retries == 1
    assert result.fallbacks == []
    assert server.request_count == 2
    # a dropped stream may have shown "partial " first; the answer itself is the retry's
    assert answer.endswith("recovered")
    assert result.output == "recovered"
    assert agent.chat_history == [
        *before,
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "recovered"},
    ]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("case", RETRYABLE.values(), ids=RETRYABLE.keys())
def test_retryable_fault_past_max_retries_raises_typed_error(
    server: LocalLLMServer, case: RetryableCase, way: str
) -> None:
    agent = primed(server, timeout=case.timeout)
    before = agent.chat_history
    server.extend([case.fault, case.fault, Text("never sent")])

    with pytest.raises(case.error) as raised:
        run_turn(agent, way)

    assert raised.value.retried == 1
    assert raised.value.model == "openai/test-model"
    assert server.request_count == 2
    assert server.remaining == 1
    assert agent.chat_history == before
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.ERROR
    assert result.error


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("case", RETRYABLE.values(), ids=RETRYABLE.keys())
def test_retryable_fault_past_max_retries_falls_back(
    server: LocalLLMServer, case: RetryableCase, way: str
) -> None:
    agent = primed(server, timeout=case.timeout, fallback_models=[FALLBACK])
    before = agent.chat_history
    server.extend([case.fault, case.fault, Text("from the fallback")])

    answer = run_turn(agent, way)

    assert answer.endswith("from the fallback")
    assert models_asked(server) == ["test-model", "test-model", "other-model"]
    result = agent.last_result
    assert result is not None
    assert result.model == FALLBACK
    assert result.fallbacks == [FALLBACK]
    assert result.retries == 1
    assert len(agent.chat_history) == len(before) + 2


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(("fault", "error"), FATAL.values(), ids=FATAL.keys())
def test_auth_and_missing_model_are_not_retried(
    server: LocalLLMServer, fault: Fault, error: type[LLMError], way: str
) -> None:
    agent = primed(server)
    before = agent.chat_history
    server.extend([fault, Text("never sent")])

    with pytest.raises(error) as raised:
        run_turn(agent, way)

    assert raised.value.retried == 0
    assert raised.value.status_code == fault.status
    assert server.request_count == 1
    assert agent.chat_history == before
    assert agent.last_result is not None
    assert agent.last_result.termination_reason is TerminationReason.ERROR


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(("fault", "error"), FATAL.values(), ids=FATAL.keys())
def test_auth_and_missing_model_fall_back_at_once(
    server: LocalLLMServer, fault: Fault, error: type[LLMError], way: str
) -> None:
    agent = primed(server, fallback_models=[FALLBACK])
    server.extend([fault, Text("from the fallback")])

    assert run_turn(agent, way) == "from the fallback"

    assert models_asked(server) == ["test-model", "other-model"]
    result = agent.last_result
    assert result is not None
    assert (result.model, result.fallbacks, result.retries) == (FALLBACK, [FALLBACK], 0)


def long_conversation(server: LocalLLMServer) -> Agent:
    """An agent whose history nearly fills a small context window."""
    agent = make_agent(server, context=ContextConfig(max_context_tokens=2048, keep_last_turns=1))
    for turn in range(5):
        server.add(Text(" ".join(["word"] * 150)))
        agent.chat(f"question {turn} " + " ".join(["detail"] * 20))
    server.reset()
    return agent


def request_size(server: LocalLLMServer, index: int) -> int:
    return len(str(server.requests[index].messages))


@pytest.mark.parametrize("way", WAYS)
def test_context_window_error_compacts_and_resends_smaller(
    server: LocalLLMServer, way: str
) -> None:
    agent = long_conversation(server)
    before = agent.chat_history
    server.extend([Fault.context_length_exceeded(), Text("fits now")])

    assert run_turn(agent, way, "final question") == "fits now"

    assert server.request_count == 2
    assert len(server.requests[1].messages) < len(server.requests[0].messages)
    assert request_size(server, 1) < request_size(server, 0)
    assert server.requests[1].messages[-1] == {"role": "user", "content": "final question"}
    result = agent.last_result
    assert result is not None
    assert result.retries == 0
    # compaction shapes the request only; the agent's own history keeps every message
    assert agent.chat_history[: len(before)] == before
    assert len(agent.chat_history) == len(before) + 2


@pytest.mark.parametrize("way", WAYS)
def test_context_window_error_gives_up_after_two_compactions(
    server: LocalLLMServer, way: str
) -> None:
    agent = long_conversation(server)
    before = agent.chat_history
    server.extend([Fault.context_length_exceeded()] * 4)

    with pytest.raises(ContextWindowExceededError):
        run_turn(agent, way, "final question")

    assert server.request_count == 3
    assert server.remaining == 1
    assert agent.chat_history == before


def test_context_compaction_emits_a_compaction_event(server: LocalLLMServer) -> None:
    agent = long_conversation(server)
    server.extend([Fault.context_length_exceeded(), Text("fits now")])

    events = list(agent.stream_events("final question", stream=False))

    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    assert len(compactions) == 1
    assert compactions[0].tokens_after < compactions[0].tokens_before
    assert [type(e) for e in events].count(LLMRequest) == 2


def test_retry_after_a_compaction_keeps_the_compacted_request(server: LocalLLMServer) -> None:
    agent = long_conversation(server)
    server.extend([Fault.context_length_exceeded(), Fault.server_error(), Text("ok")])

    assert agent.chat("final question") == "ok"

    assert request_size(server, 2) <= request_size(server, 1) < request_size(server, 0)


def collect_events(agent: Agent, mode: str, prompt: str = "question") -> list[Any]:
    """Every event of a turn: ``sync``/``async`` non-streaming, ``stream`` streaming."""
    if mode == "async":

        async def gather() -> list[Any]:
            return [e async for e in agent.astream_events(prompt, stream=False)]

        return asyncio.run(gather())
    return list(agent.stream_events(prompt, stream=mode == "stream"))


EVENT_MODES = ("sync", "async", "stream")


@pytest.mark.parametrize("mode", EVENT_MODES)
def test_retry_after_header_sets_the_wait(server: LocalLLMServer, mode: str) -> None:
    server.extend([Fault.rate_limit(retry_after=0.05), Text("ok")])
    events = collect_events(make_agent(server), mode)

    retries = [e for e in events if isinstance(e, RetryEvent)]
    assert len(retries) == 1
    assert retries[0].error_kind == "rate_limit"
    assert retries[0].attempt == 1
    assert retries[0].wait >= 0.05
    first, second = server.requests
    assert second.received_at - first.received_at >= 0.05


@pytest.mark.parametrize("mode", EVENT_MODES)
def test_without_retry_after_the_wait_is_the_backoff(server: LocalLLMServer, mode: str) -> None:
    server.extend([Fault.rate_limit(), Text("ok")])
    events = collect_events(make_agent(server), mode)

    (retry,) = [e for e in events if isinstance(e, RetryEvent)]
    # retry_base=0.01 plus at most retry_base of jitter: well under the 0.05 above
    assert 0.01 <= retry.wait <= 0.02


def test_retry_after_is_capped_at_retry_max(server: LocalLLMServer) -> None:
    server.extend([Fault.rate_limit(retry_after=30), Text("ok")])
    execution = ExecutionConfig(max_retries=1, retry_base=0.01, retry_max=0.05)
    agent = Agent(instructions="You answer.", llm=server.llm_config(), execution=execution)

    events = collect_events(agent, "sync")

    (retry,) = [e for e in events if isinstance(e, RetryEvent)]
    assert retry.wait == pytest.approx(0.05)
    assert isinstance(events[-1], RunFinished) and events[-1].result is not None
    assert events[-1].result.output == "ok"


def test_backoff_grows_per_attempt(server: LocalLLMServer) -> None:
    server.extend([Fault.server_error()] * 3 + [Text("ok")])
    execution = ExecutionConfig(max_retries=3, retry_base=0.01)
    agent = Agent(instructions="You answer.", llm=server.llm_config(), execution=execution)

    retries = [e for e in collect_events(agent, "sync") if isinstance(e, RetryEvent)]

    assert [e.attempt for e in retries] == [1, 2, 3]
    # retry_base * 2**(attempt-1), plus jitter in [0, retry_base]
    assert 0.01 <= retries[0].wait <= 0.02
    assert 0.02 <= retries[1].wait <= 0.03
    assert 0.04 <= retries[2].wait <= 0.05


@pytest.mark.parametrize("mode", EVENT_MODES)
def test_fallback_event_after_retries(server: LocalLLMServer, mode: str) -> None:
    server.extend([Fault.unavailable(), Fault.unavailable(), Text("fallback answer")])
    events = collect_events(make_agent(server, fallback_models=[FALLBACK]), mode)

    kinds = [type(e) for e in events]
    fallbacks = [e for e in events if isinstance(e, FallbackEvent)]
    assert len(fallbacks) == 1
    assert fallbacks[0].from_model == "openai/test-model"
    assert fallbacks[0].to_model == FALLBACK
    assert fallbacks[0].reason == "service_unavailable"
    assert kinds.index(RetryEvent) < kinds.index(FallbackEvent)
    requests = [e for e in events if isinstance(e, LLMRequest)]
    assert [r.model for r in requests] == ["openai/test-model", "openai/test-model", FALLBACK]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result is not None
    assert finished.result.model == FALLBACK


@pytest.mark.parametrize("mode", EVENT_MODES)
def test_auth_error_falls_back_without_retry_event(server: LocalLLMServer, mode: str) -> None:
    server.extend([Fault.authentication(), Text("fallback answer")])
    events = collect_events(make_agent(server, fallback_models=[FALLBACK]), mode)

    assert not any(isinstance(e, RetryEvent) for e in events)
    (fallback,) = [e for e in events if isinstance(e, FallbackEvent)]
    assert fallback.reason == "authentication"


def test_last_fallback_failing_raises_its_error(server: LocalLLMServer) -> None:
    agent = primed(server, fallback_models=[FALLBACK])
    before = agent.chat_history
    server.extend([Fault.authentication(), Fault.model_not_found("other-model")])

    with pytest.raises(ModelNotFoundError) as raised:
        agent.chat("second question")

    assert raised.value.model == FALLBACK
    assert models_asked(server) == ["test-model", "other-model"]
    assert agent.chat_history == before


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_fallback_state_carries_over_to_later_rounds(server: LocalLLMServer) -> None:
    server.extend(
        [
            Fault.authentication(),
            ToolCalls([Call("add", {"a": 1, "b": 2})]),
            Fault.server_error(),
            Fault.server_error(),
            Text("never sent"),
        ]
    )
    agent = make_agent(server, tools=[add], fallback_models=[FALLBACK])

    events: list[Any] = []
    with pytest.raises(ServiceUnavailableError):
        for event in agent.stream_events("add", stream=False):
            events.append(event)

    fallbacks = [e for e in events if isinstance(e, FallbackEvent)]
    assert [(e.from_model, e.to_model) for e in fallbacks] == [("openai/test-model", FALLBACK)]
    assert server.request_count == 4


@pytest.mark.parametrize("mode", ("stream", "astream"))
def test_broken_stream_resets_before_the_retried_text(server: LocalLLMServer, mode: str) -> None:
    agent = primed(server)
    server.extend([DropConnection(after_chunks=2), Text("fresh answer")])
    before = agent.chat_history

    if mode == "stream":
        events = list(agent.stream_events("question"))
    else:

        async def gather() -> list[Any]:
            return [e async for e in agent.astream_events("question")]

        events = asyncio.run(gather())

    kinds = [type(e) for e in events]
    reset = kinds.index(StreamReset)
    texts_before = [e.text for e in events[:reset] if isinstance(e, TextDelta)]
    texts_after = [e.text for e in events[reset:] if isinstance(e, TextDelta)]
    assert "".join(texts_before) == "partial "
    assert "".join(texts_after) == "fresh answer"
    assert kinds.count(StreamReset) == 1
    reset_event = events[reset]
    assert isinstance(reset_event, StreamReset) and reset_event.iteration == 1
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result is not None
    assert finished.result.output == "fresh answer"
    assert agent.chat_history[len(before) :] == [
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": "fresh answer"},
    ]


def test_no_stream_reset_when_nothing_was_streamed(server: LocalLLMServer) -> None:
    server.extend([DropConnection(after_chunks=0), Text("fresh answer")])
    events = list(make_agent(server).stream_events("question"))
    assert not any(isinstance(e, StreamReset) for e in events)
    assert any(isinstance(e, RetryEvent) for e in events)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(
    ("fault", "error"),
    [(DropConnection(), APIConnectionError), (MalformedBody(), MalformedResponseError)],
    ids=["dropped", "malformed"],
)
def test_dropped_and_malformed_raise_their_own_types(
    server: LocalLLMServer, fault: Response, error: type[LLMError], way: str
) -> None:
    server.extend([fault, fault])
    with pytest.raises(error) as raised:
        run_turn(make_agent(server), way)
    assert raised.value.status_code is None


@pytest.mark.parametrize("mode", EVENT_MODES)
def test_a_refused_loopback_endpoint_is_not_retried_and_falls_back_at_once(
    server: LocalLLMServer, mode: str
) -> None:
    with LocalLLMServer() as dead:
        dead_llm = dead.llm_config()  # closed when the block ends: refused from then on
    server.add(Text("fallback answer"))
    execution = ExecutionConfig(max_retries=3, retry_base=5.0)  # a retry would show as one
    agent = Agent(
        instructions="You answer.",
        llm=dead_llm,
        fallback_models=[server.llm_config(FALLBACK.removeprefix("openai/"))],
        execution=execution,
    )

    events = collect_events(agent, mode)

    assert not any(isinstance(e, RetryEvent) for e in events)
    (fallback,) = [e for e in events if isinstance(e, FallbackEvent)]
    assert (fallback.from_model, fallback.to_model) == ("openai/test-model", FALLBACK)
    assert fallback.reason == "connection"
    assert models_asked(server) == ["other-model"]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result is not None
    assert finished.result.output == "fallback answer"


@pytest.mark.parametrize("way", WAYS)
def test_a_refused_loopback_endpoint_fails_without_retries(way: str) -> None:
    with LocalLLMServer() as dead:
        dead_llm, port = dead.llm_config(), dead.port
    agent = Agent(
        instructions="You answer.",
        llm=dead_llm,
        execution=ExecutionConfig(max_retries=3, retry_base=5.0),
    )

    with pytest.raises(APIConnectionError) as raised:
        run_turn(agent, way)

    assert raised.value.retried == 0
    assert raised.value.endpoint == f"http://127.0.0.1:{port}"
    assert agent.chat_history == []
