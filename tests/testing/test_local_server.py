"""LocalLLMServer, exercised through real LiteLLM and through raw HTTP clients.

The ``llm_server`` fixture comes from :mod:`praisonlike.testing.pytest_plugin`,
which the installed package registers through its ``pytest11`` entry point.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from types import ModuleType
from typing import Any

import aiohttp
import httpx
import pytest

from praisonlike.errors import ConfigurationError
from praisonlike.models.litellm_backend import load_litellm
from praisonlike.testing import (
    EXHAUSTED_MESSAGE,
    Call,
    Delay,
    DropConnection,
    Fault,
    LocalLLMServer,
    MalformedBody,
    RecordedRequest,
    Text,
    ToolCalls,
    Usage,
)

HELLO = [{"role": "user", "content": "hello there"}]


@pytest.fixture(scope="module")
def litellm() -> ModuleType:
    return load_litellm()


def complete(litellm: ModuleType, server: LocalLLMServer, **kwargs: Any) -> Any:
    kwargs.setdefault("messages", HELLO)
    return litellm.completion(
        model="openai/test-model", api_base=server.url, api_key="x", max_retries=0, **kwargs
    )


def raw_chunks(server: LocalLLMServer, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON payloads of every SSE ``data:`` event except ``[DONE]``."""
    with httpx.Client() as client:
        response = client.post(f"{server.url}/chat/completions", json=body)
    events = [line[len("data: ") :] for line in response.text.splitlines() if line]
    assert events[-1] == "[DONE]"
    return [json.loads(event) for event in events[:-1]]


def stream_body(**extra: Any) -> dict[str, Any]:
    return {"model": "test-model", "messages": HELLO, "stream": True, **extra}


# -- answers through LiteLLM ---------------------------------------------------------


def test_non_streaming_text(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("the answer is forty two")]) as server:
        response = complete(litellm, server)

    assert response.choices[0].message.content == "the answer is forty two"
    assert response.choices[0].finish_reason == "stop"
    assert response.model == "test-model"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (3, 6)
    assert server.tokens_served == (3, 6)


def test_streaming_text_assembles_with_usage_chunk(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("streamed answer here", chunk_size=3)]) as server:
        chunks = list(
            complete(litellm, server, stream=True, stream_options={"include_usage": True})
        )
        served = server.tokens_served

    content = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta]
    assert "".join(piece or "" for piece in content) == "streamed answer here"
    assert len([piece for piece in content if piece]) == 7
    usage = chunks[-1].usage
    assert (usage.prompt_tokens, usage.completion_tokens) == (3, 4)
    assert served == (3, 4)


def test_stream_wire_format_follows_openai() -> None:
    with LocalLLMServer([Text("abcdef", chunk_size=4), Text("xy")]) as server:
        with_usage = raw_chunks(server, stream_body(stream_options={"include_usage": True}))
        without_usage = raw_chunks(server, stream_body())
        served = server.tokens_served

    assert [c["object"] for c in with_usage] == ["chat.completion.chunk"] * 5
    assert with_usage[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    deltas = [c["choices"][0]["delta"].get("content") for c in with_usage[1:3]]
    assert deltas == ["abcd", "ef"]
    assert with_usage[3]["choices"][0]["finish_reason"] == "stop"
    assert with_usage[4]["choices"] == []
    assert with_usage[4]["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert "usage" not in without_usage[-1]
    assert without_usage[-1]["choices"][0]["finish_reason"] == "stop"
    assert served == (3, 2), "a stream without include_usage returned no usage"


def test_explicit_usage_and_text_parts_are_counted(litellm: ModuleType) -> None:
    parts = [{"role": "user", "content": [{"type": "text", "text": "one two three"}]}]
    with LocalLLMServer([Text("a", usage=Usage(100, 7)), Text("b c")]) as server:
        explicit = complete(litellm, server)
        counted = complete(litellm, server, messages=parts)
        served = server.tokens_served

    assert (explicit.usage.prompt_tokens, explicit.usage.completion_tokens) == (100, 7)
    assert (counted.usage.prompt_tokens, counted.usage.completion_tokens) == (4, 3)
    assert served == (104, 10)


def test_finish_reason_length(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("cut", finish_reason="length")]) as server:
        response = complete(litellm, server)
    assert response.choices[0].finish_reason == "length"


# -- tool calls --------------------------------------------------------------------


WEATHER = Call("get_weather", {"city": "Paris"})
ADD = Call("add", {"a": 1, "b": 2}, id="call_custom")


def test_single_tool_call_non_streaming(litellm: ModuleType) -> None:
    with LocalLLMServer([ToolCalls([WEATHER])]) as server:
        response = complete(litellm, server)

    message = response.choices[0].message
    assert response.choices[0].finish_reason == "tool_calls"
    assert message.content is None
    [call] = message.tool_calls
    assert call.id == "call_1"
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert response.usage.completion_tokens == 1 + 1 + 2


def test_several_tool_calls_with_content_non_streaming(litellm: ModuleType) -> None:
    with LocalLLMServer([ToolCalls([WEATHER, ADD], content="let me check")]) as server:
        response = complete(litellm, server)

    message = response.choices[0].message
    assert message.content == "let me check"
    assert [c.function.name for c in message.tool_calls] == ["get_weather", "add"]
    assert message.tool_calls[1].id == "call_custom"
    assert json.loads(message.tool_calls[1].function.arguments) == {"a": 1, "b": 2}


@pytest.mark.parametrize("repeat_name", [False, True])
def test_several_tool_calls_streamed(litellm: ModuleType, repeat_name: bool) -> None:
    script = [ToolCalls([WEATHER, ADD], repeat_name_in_chunks=repeat_name, chunk_size=3)]
    with LocalLLMServer(script) as server:
        chunks = list(complete(litellm, server, stream=True))
    message = litellm.stream_chunk_builder(chunks).choices[0].message

    assert [c.function.name for c in message.tool_calls] == ["get_weather", "add"]
    assert json.loads(message.tool_calls[0].function.arguments) == {"city": "Paris"}
    assert json.loads(message.tool_calls[1].function.arguments) == {"a": 1, "b": 2}
    assert message.tool_calls[1].id == "call_custom"
    assert message.tool_calls[0].id.startswith("call_")


@pytest.mark.parametrize("repeat_name", [False, True])
def test_tool_call_stream_wire_format(repeat_name: bool) -> None:
    script = [ToolCalls([WEATHER], repeat_name_in_chunks=repeat_name, chunk_size=5)]
    with LocalLLMServer(script) as server:
        chunks = raw_chunks(server, stream_body())

    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks[1:-1]]
    opening, *fragments = calls
    assert opening == {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    assert "".join(f["function"]["arguments"] for f in fragments) == '{"city": "Paris"}'
    assert len(fragments) == 4
    assert all(("name" in f["function"]) is repeat_name for f in fragments)
    assert all("id" not in f for f in fragments)
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_string_arguments_are_sent_verbatim(litellm: ModuleType) -> None:
    with LocalLLMServer([ToolCalls([Call("broken", '{"city": "Par')])]) as server:
        response = complete(litellm, server)
    assert response.choices[0].message.tool_calls[0].function.arguments == '{"city": "Par'


def test_call_ids_are_unique_per_server(litellm: ModuleType) -> None:
    with LocalLLMServer([ToolCalls([WEATHER, WEATHER]), ToolCalls([WEATHER])]) as server:
        first = complete(litellm, server).choices[0].message.tool_calls
        second = complete(litellm, server).choices[0].message.tool_calls
    ids = [c.id for c in first + second]
    assert len(set(ids)) == 3


# -- faults ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "exception_name"),
    [
        (Fault.rate_limit(), "RateLimitError"),
        (Fault.context_length_exceeded(), "ContextWindowExceededError"),
        (Fault.authentication(), "AuthenticationError"),
        (Fault.model_not_found(), "NotFoundError"),
        (Fault.server_error(), "InternalServerError"),
        (Fault.unavailable(), "ServiceUnavailableError"),
        (Fault.bad_request("temperature must be <= 2"), "BadRequestError"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_fault_maps_to_litellm_exception(
    litellm: ModuleType, fault: Fault, exception_name: str, stream: bool
) -> None:
    with LocalLLMServer([fault, Text("recovered")]) as server:
        with pytest.raises(getattr(litellm, exception_name)) as caught:
            list(complete(litellm, server, stream=True)) if stream else complete(litellm, server)
        after = complete(litellm, server)

    assert type(caught.value).__name__ == exception_name
    assert fault.message[:40] in str(caught.value)
    assert after.choices[0].message.content == "recovered"


def test_rate_limit_retry_after_header_is_visible(litellm: ModuleType) -> None:
    with (
        LocalLLMServer([Fault.rate_limit(retry_after=2)]) as server,
        pytest.raises(litellm.RateLimitError) as caught,
    ):
        complete(litellm, server)
    assert caught.value.response.status_code == 429
    assert caught.value.response.headers["retry-after"] == "2"


def test_fault_body_is_openai_shaped() -> None:
    script = [Fault.model_not_found("gpt-x"), Fault(418, "teapot")]
    with LocalLLMServer(script) as server, httpx.Client() as client:
        not_found = client.post(f"{server.url}/chat/completions", json={"messages": []})
        teapot = client.post(f"{server.url}/chat/completions", json={"messages": []})

    assert not_found.status_code == 404
    assert "retry-after" not in not_found.headers
    assert not_found.json() == {
        "error": {
            "message": "The model `gpt-x` does not exist or you do not have access to it.",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    }
    assert teapot.status_code == 418
    assert teapot.json()["error"]["message"] == "teapot"


def test_unlisted_status_and_fractional_retry_after() -> None:
    script = [Fault(529, "overloaded", retry_after=1.5)]
    with LocalLLMServer(script) as server, httpx.Client() as client:
        response = client.post(f"{server.url}/chat/completions", json={"messages": []})
    assert response.status_code == 529
    assert response.headers["retry-after"] == "1.5"
    assert response.json()["error"]["message"] == "overloaded"


def test_context_length_message_uses_openai_wording() -> None:
    fault = Fault.context_length_exceeded(limit=4096, requested=5000)
    assert fault.status == 400
    assert fault.code == "context_length_exceeded"
    assert fault.message.startswith("This model's maximum context length is 4096 tokens.")
    assert "5000 tokens" in fault.message


@pytest.mark.parametrize(
    "build",
    [
        lambda: Fault(200, "not an error"),
        lambda: Fault.rate_limit(retry_after=-1),
        lambda: Text("x", chunk_size=0),
        lambda: ToolCalls([]),
        lambda: Call(""),
        lambda: Delay(-1, Text("x")),
        lambda: DropConnection(after_chunks=-1),
        lambda: Usage(-1, 0),
    ],
)
def test_invalid_responses_are_rejected(build: Any) -> None:
    with pytest.raises(ConfigurationError):
        build()


# -- delays, dropped connections, malformed bodies ---------------------------------


def test_delay_with_client_timeout_raises_timeout(litellm: ModuleType) -> None:
    with LocalLLMServer([Delay(30, Text("too late")), Text("next")]) as server:
        with pytest.raises(litellm.Timeout):
            complete(litellm, server, timeout=0.2)
        assert complete(litellm, server).choices[0].message.content == "next"


def test_delay_then_serves_its_response(litellm: ModuleType) -> None:
    with LocalLLMServer([Delay(0.05, Delay(0.0, Text("eventually")))]) as server:
        started = time.monotonic()
        response = complete(litellm, server)
    assert response.choices[0].message.content == "eventually"
    assert time.monotonic() - started >= 0.05


async def test_delay_does_not_block_other_connections() -> None:
    with LocalLLMServer([Delay(30, Text("slow")), Text("fast")]) as server:
        async with httpx.AsyncClient(timeout=20) as client:
            url = f"{server.url}/chat/completions"
            slow = asyncio.create_task(client.post(url, json={"messages": HELLO}))
            while server.request_count == 0:
                await asyncio.sleep(0.005)
            fast = await client.post(url, json={"messages": HELLO})
            assert fast.json()["choices"][0]["message"]["content"] == "fast"
            assert not slow.done()
            slow.cancel()


def test_drop_connection_mid_stream_raises_while_iterating(litellm: ModuleType) -> None:
    received: list[str] = []
    with LocalLLMServer([DropConnection(after_chunks=2, then_content="partial answer")]) as server:
        stream = complete(litellm, server, stream=True)
        with pytest.raises(Exception, match="(?i)connection|incomplete|peer closed"):
            for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
        served = server.tokens_served
    assert "".join(received) == "partial "
    assert served == (0, 0)


def test_drop_connection_without_stream_sends_nothing(litellm: ModuleType) -> None:
    with LocalLLMServer([DropConnection(), Text("after the drop")]) as server:
        with pytest.raises((litellm.APIConnectionError, litellm.InternalServerError)):
            complete(litellm, server)
        assert complete(litellm, server).choices[0].message.content == "after the drop"


def test_malformed_body_raises(litellm: ModuleType) -> None:
    with LocalLLMServer([MalformedBody(), MalformedBody(), Text("fine")]) as server:
        with pytest.raises(Exception, match="Expecting"):
            complete(litellm, server)
        with pytest.raises(Exception, match="Expecting"):
            list(complete(litellm, server, stream=True))
        assert complete(litellm, server).choices[0].message.content == "fine"


def test_malformed_body_wire_format() -> None:
    with LocalLLMServer([MalformedBody()]) as server, httpx.Client() as client:
        response = client.post(f"{server.url}/chat/completions", json={"messages": []})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.content)


def test_chunk_delay_spaces_out_deltas(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("abcdefgh", chunk_size=2, chunk_delay=0.03)]) as server:
        stream = complete(litellm, server, stream=True, stream_options={"include_usage": True})
        stamps = [time.monotonic() for _ in stream]
        served = server.tokens_served
    assert stamps[-1] - stamps[0] >= 0.03 * 4
    assert served == (3, 2)


# -- callables, defaults, exhaustion -----------------------------------------------


def test_callable_response_sees_the_request(litellm: ModuleType) -> None:
    def echo(request: RecordedRequest) -> Text:
        return Text(f"you said: {request.messages[-1]['content']}")

    def pick_tool(request: RecordedRequest) -> ToolCalls:
        return ToolCalls([Call(request.tools[0]["function"]["name"], {})])

    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]
    with LocalLLMServer([echo, pick_tool]) as server:
        echoed = complete(litellm, server, messages=[{"role": "user", "content": "ping"}])
        called = complete(litellm, server, tools=tools)

    assert echoed.choices[0].message.content == "you said: ping"
    assert called.choices[0].message.tool_calls[0].function.name == "lookup"


def test_callable_that_raises_becomes_a_recorded_500(litellm: ModuleType) -> None:
    def broken(request: RecordedRequest) -> Text:
        raise RuntimeError("boom")

    def not_a_response(request: RecordedRequest) -> Any:
        return 42

    with LocalLLMServer([broken, not_a_response]) as server:
        with pytest.raises(litellm.InternalServerError, match="boom"):
            complete(litellm, server)
        with pytest.raises(litellm.InternalServerError):
            complete(litellm, server)
        errors = server.errors
    assert "RuntimeError: boom" in errors[0]
    assert "int is not a response" in errors[1]


def test_script_exhaustion_is_a_recorded_500(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("only one")]) as server:
        complete(litellm, server)
        with pytest.raises(litellm.InternalServerError, match=EXHAUSTED_MESSAGE):
            complete(litellm, server)
        assert server.errors == [EXHAUSTED_MESSAGE]
        assert server.request_count == 2
        assert server.remaining == 0


def test_default_is_served_after_the_script(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("scripted")], default=Text("default")) as server:
        answers = [complete(litellm, server).choices[0].message.content for _ in range(3)]
        server.default = lambda request: Text(f"call {server.request_count}")
        computed = complete(litellm, server).choices[0].message.content
        errors = server.errors
    assert answers == ["scripted", "default", "default"]
    assert computed == "call 4"
    assert errors == []


def test_add_and_extend_append_fifo(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("1")]) as server:
        server.add(Text("2"), Text("3"))
        server.extend([Text("4")])
        assert server.remaining == 4
        answers = [complete(litellm, server).choices[0].message.content for _ in range(4)]
    assert answers == ["1", "2", "3", "4"]


# -- recording -----------------------------------------------------------------------


def test_requests_are_recorded(litellm: ModuleType) -> None:
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]
    with LocalLLMServer([Text("a"), Text("b")]) as server:
        complete(litellm, server, tools=tools)
        list(complete(litellm, server, stream=True))
        first, second = server.requests
        count = server.request_count

    assert count == 2
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == "Bearer x"
    assert first.headers["content-type"] == "application/json"
    assert first.body["messages"] == HELLO
    assert first.messages == HELLO
    assert first.tools == tools
    assert first.model == "test-model"
    assert first.stream is False
    assert second.stream is True
    assert second.tools == []
    assert first.received_at <= second.received_at <= time.monotonic()


def test_reset_clears_script_requests_and_totals(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("a"), Text("b")]) as server:
        complete(litellm, server)
        server.reset()
        state = (server.requests, server.request_count, server.tokens_served, server.remaining)
        server.add(Text("fresh"))
        fresh = complete(litellm, server).choices[0].message.content
    assert state == ([], 0, (0, 0), 0)
    assert fresh == "fresh"


def test_max_recorded_keeps_the_latest_requests(litellm: ModuleType) -> None:
    with LocalLLMServer(default=Text("ok"), max_recorded=2) as server:
        for word in ["one", "two", "three"]:
            complete(litellm, server, messages=[{"role": "user", "content": word}])
        kept = [request.messages[0]["content"] for request in server.requests]
        count = server.request_count
    assert kept == ["two", "three"]
    assert count == 3


# -- routes and HTTP -----------------------------------------------------------------


def test_models_route_and_unknown_routes() -> None:
    with LocalLLMServer(default=Text("ok"), models=["alpha"]) as server, httpx.Client() as client:
        client.post(f"{server.url}/chat/completions", json={"model": "beta", "messages": []})
        models = client.get(f"{server.url}/models").json()
        missing = client.get(f"{server.url}/embeddings")
        wrong_method = client.get(f"{server.url}/chat/completions")
        count = server.request_count

    assert [m["id"] for m in models["data"]] == ["alpha", "beta"]
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert wrong_method.status_code == 404
    assert count == 1


def test_unprefixed_chat_path_and_model_echo() -> None:
    with LocalLLMServer([Text("hi")]) as server, httpx.Client() as client:
        base = server.url.removesuffix("/v1")
        response = client.post(f"{base}/chat/completions", json={"model": "m1", "messages": []})
        path = server.requests[0].path
    assert response.json()["model"] == "m1"
    assert response.json()["object"] == "chat.completion"
    assert path == "/chat/completions"


def test_invalid_json_request_is_a_400() -> None:
    with LocalLLMServer([Text("unused")]) as server, httpx.Client() as client:
        response = client.post(f"{server.url}/chat/completions", content=b"{nope")
        remaining, errors = server.remaining, server.errors
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert remaining == 1
    assert errors == ["LocalLLMServer: request body is not a JSON object"]


def _read_response(sock_file: Any) -> tuple[str, dict[str, str], bytes]:
    status = sock_file.readline().decode().strip()
    headers: dict[str, str] = {}
    while (line := sock_file.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, sock_file.read(int(headers["content-length"]))


def test_keep_alive_serves_several_requests_on_one_socket() -> None:
    body = json.dumps({"model": "test-model", "messages": HELLO}).encode()
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%b" % (len(body), body)
    )
    with (
        LocalLLMServer([Text("one"), Text("two")]) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock,
    ):
        sock_file = sock.makefile("rb")
        sock.sendall(request)
        first = _read_response(sock_file)
        sock.sendall(request)
        second = _read_response(sock_file)

    assert first[0] == second[0] == "HTTP/1.1 200 OK"
    assert first[1]["connection"] == "keep-alive"
    assert json.loads(first[2])["choices"][0]["message"]["content"] == "one"
    assert json.loads(second[2])["choices"][0]["message"]["content"] == "two"


def test_expect_100_continue_is_answered() -> None:
    body = json.dumps({"model": "test-model", "messages": HELLO}).encode()
    with (
        LocalLLMServer([Text("continued")]) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock,
    ):
        sock_file = sock.makefile("rb")
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nExpect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        interim = [sock_file.readline(), sock_file.readline()]
        sock.sendall(body)
        status, _, payload = _read_response(sock_file)
    assert interim == [b"HTTP/1.1 100 Continue\r\n", b"\r\n"]
    assert status == "HTTP/1.1 200 OK"
    assert json.loads(payload)["choices"][0]["message"]["content"] == "continued"


def test_chunked_request_body_is_accepted() -> None:
    payload = json.dumps({"model": "test-model", "messages": HELLO}).encode()

    def pieces() -> Any:
        yield payload[:10]
        yield payload[10:]

    with LocalLLMServer([Text("ok")]) as server, httpx.Client() as client:
        response = client.post(f"{server.url}/chat/completions", content=pieces())
        messages = server.requests[0].messages
    assert response.json()["choices"][0]["message"]["content"] == "ok"
    assert messages == HELLO


# -- concurrency and lifecycle --------------------------------------------------------


async def test_200_concurrent_aiohttp_requests_get_every_scripted_answer() -> None:
    script = [Text(f"answer {i}") for i in range(200)]
    with LocalLLMServer(script) as server:
        connector = aiohttp.TCPConnector(limit=200)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def ask(stream: bool) -> str:
                body = {"model": "test-model", "messages": HELLO, "stream": stream}
                async with session.post(f"{server.url}/chat/completions", json=body) as resp:
                    text = await resp.text()
                if not stream:
                    return str(json.loads(text)["choices"][0]["message"]["content"])
                events = [line[6:] for line in text.splitlines() if line[6:7] == "{"]
                chunks = [json.loads(event)["choices"][0]["delta"] for event in events]
                return "".join(delta.get("content", "") for delta in chunks)

            answers = await asyncio.wait_for(
                asyncio.gather(*(ask(i % 2 == 0) for i in range(200))), timeout=60
            )
        count = server.request_count
    assert sorted(answers) == sorted(t.content for t in script)
    assert count == 200


async def test_200_concurrent_httpx_requests_complete() -> None:
    with LocalLLMServer(default=Text("ok")) as server:
        limits = httpx.Limits(max_connections=200)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            url = f"{server.url}/chat/completions"
            responses = await asyncio.wait_for(
                asyncio.gather(*(client.post(url, json={"messages": HELLO}) for _ in range(200))),
                timeout=60,
            )
        count = server.request_count
    assert {r.status_code for r in responses} == {200}
    assert count == 200


def test_script_is_thread_safe() -> None:
    with LocalLLMServer() as server:
        threads = [
            threading.Thread(target=lambda n=n: server.extend(Text(f"{n}-{i}") for i in range(50)))
            for n in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        remaining = server.remaining
    assert remaining == 400


def test_stop_closes_open_connections_and_joins_thread() -> None:
    server = LocalLLMServer([Delay(60, Text("never"))]).start()
    body = json.dumps({"messages": HELLO}).encode()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n%b" % (len(body), body)
    )
    while server.request_count == 0:
        time.sleep(0.005)

    server.stop()

    try:
        assert sock.recv(1024) == b""
    except ConnectionResetError:
        pass
    finally:
        sock.close()
    assert not server.running
    assert not any(t.name == "LocalLLMServer" and t.is_alive() for t in threading.enumerate())
    with pytest.raises(ConfigurationError):
        _ = server.url
    server.stop()


def test_server_can_restart_and_rejects_double_start(litellm: ModuleType) -> None:
    server = LocalLLMServer(default=Text("again"))
    with server, pytest.raises(ConfigurationError):
        server.start()
    with server:
        assert complete(litellm, server).choices[0].message.content == "again"


def test_llm_config_drives_litellm(litellm: ModuleType) -> None:
    with LocalLLMServer([Text("configured")]) as server:
        config = server.llm_config()
        response = litellm.completion(**config, messages=HELLO, max_retries=0)
        alt = server.llm_config("other-model")
        url = server.url
    assert config == {"model": "openai/test-model", "api_base": url, "api_key": "sk-test"}
    assert alt["model"] == "openai/other-model"
    assert response.choices[0].message.content == "configured"


def test_plugin_fixture_yields_a_running_server(
    llm_server: LocalLLMServer, litellm: ModuleType
) -> None:
    assert llm_server.running
    llm_server.add(Text("from the fixture"))
    assert complete(litellm, llm_server).choices[0].message.content == "from the fixture"
