"""Plain LiteLLM, and the plain openai SDK, doing what one agent turn does: the baselines.

A :class:`PlainTurn` sends the two requests of a one-tool turn -- the same
model, messages and tool schemas the agent sends (captured from a real agent
turn by :func:`capture_request`) -- and runs the tool by hand in between, with
``litellm.completion``, ``litellm.acompletion`` or a streamed completion.
:class:`PlainOpenAITurn` does the same with the ``openai`` SDK's
``chat.completions.create`` (sync, async, streamed).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from served import MODEL, add, respond


@dataclass(frozen=True)
class CapturedRequest:
    """The first request of an agent turn: its messages and tool schemas."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


def capture_request(make_agent: Callable[[dict[str, str]], Any], prompt: str) -> CapturedRequest:
    """Run one turn of the agent ``make_agent(llm)`` builds on a scripted server; keep request 1."""
    from praisonlike.testing import Call, LocalLLMServer, Response, Text, ToolCalls

    script: list[Response] = [ToolCalls([Call("add", {"a": 1, "b": 2})]), Text("3")]
    with LocalLLMServer(script) as server:
        make_agent(server.llm_config(MODEL)).chat(prompt)
        first = server.requests[0]
    return CapturedRequest(messages=first.messages, tools=first.tools)


def recorded_bodies(llm: dict[str, str], request: CapturedRequest, *, stream: bool) -> list[bytes]:
    """The JSON bodies plain LiteLLM sends for a one-tool turn to ``llm`` (a config of
    the benchmark server's kind, re-pointed at a local recording server): what a bare
    client must send to time the server's own work on that wire."""
    from praisonlike.testing import LocalLLMServer

    with LocalLLMServer(default=respond) as local:
        wire = "anthropic" if llm["model"].startswith("anthropic/") else "openai"
        model = llm["model"].split("/", 1)[1]
        turn = PlainTurn(local.llm_config(model, wire=wire), request)
        if stream:
            turn.run_streamed()
        else:
            turn.run()
        return [json.dumps(recorded.body).encode() for recorded in local.requests]


def _litellm() -> Any:
    from praisonlike.models.litellm_backend import load_litellm

    return load_litellm()


def _tool_messages(call_id: str, name: str, arguments: str) -> list[dict[str, Any]]:
    result = {"add": add}[name](**json.loads(arguments))
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": str(result)},
    ]


class PlainTurn:
    """One-tool turns with nothing but LiteLLM, against ``llm`` (an agent's ``llm=`` dict).

    For an ``anthropic/...`` model each request carries the agent's prompt-cache
    marks (:func:`praisonlike.models.prompt_cache.with_breakpoints`), so both send
    the same requests.
    """

    def __init__(self, llm: dict[str, str], request: CapturedRequest) -> None:
        self.tools = request.tools
        self.request = request
        self._params: dict[str, Any] = dict(llm, max_retries=0, tools=request.tools)
        self._messages = request.messages
        self._mark: Callable[..., Any] | None = None
        if llm["model"].startswith("anthropic/"):
            # imported here: first_turn.py's plain children import this module
            from praisonlike.models.prompt_cache import with_breakpoints

            self._mark = with_breakpoints

    def _request(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        if self._mark is None:
            return {"messages": messages, **self._params}
        marked, tools = self._mark(messages, self.tools)
        return {**self._params, "messages": marked, "tools": tools}

    def messages_for(self, prompt: str, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The first request's messages for ``prompt`` after ``history``."""
        system = [m for m in self._messages[:1] if m.get("role") == "system"]
        return [*system, *history, {"role": "user", "content": prompt}]

    def run(self, messages: list[dict[str, Any]] | None = None) -> str:
        litellm = _litellm()
        messages = list(messages or self._messages)
        first = litellm.completion(**self._request(messages))
        call = first.choices[0].message.tool_calls[0]
        messages += _tool_messages(call.id, call.function.name, call.function.arguments)
        second = litellm.completion(**self._request(messages))
        return str(second.choices[0].message.content)

    async def arun(
        self, messages: list[dict[str, Any]] | None = None, *, tool_in_thread: bool = False
    ) -> str:
        """The turn with ``litellm.acompletion``; the tool runs on the event loop, or with
        ``tool_in_thread`` on a worker thread (``asyncio.to_thread``), as the agent
        runs a sync tool under ``achat``."""
        litellm = _litellm()
        messages = list(messages or self._messages)
        first = await litellm.acompletion(**self._request(messages))
        call = first.choices[0].message.tool_calls[0]
        arguments = (call.id, call.function.name, call.function.arguments)
        if tool_in_thread:
            messages += await asyncio.to_thread(_tool_messages, *arguments)
        else:
            messages += _tool_messages(*arguments)
        second = await litellm.acompletion(**self._request(messages))
        return str(second.choices[0].message.content)

    def run_streamed(self) -> str:
        litellm = _litellm()
        messages = list(self._messages)
        options = {"stream": True, "stream_options": {"include_usage": True}}
        call_id, name, arguments = "", "", []
        for chunk in litellm.completion(**self._request(messages), **options):
            if not chunk.choices:
                continue
            for fragment in chunk.choices[0].delta.tool_calls or []:
                call_id = fragment.id or call_id
                name = fragment.function.name or name
                arguments.append(fragment.function.arguments or "")
        messages += _tool_messages(call_id, name, "".join(arguments))
        text = []
        for chunk in litellm.completion(**self._request(messages), **options):
            if chunk.choices and chunk.choices[0].delta.content:
                text.append(chunk.choices[0].delta.content)
        return "".join(text)


class PlainOpenAITurn:
    """The same one-tool turns with nothing but the ``openai`` SDK
    (``client.chat.completions.create``), as an application that uses it directly
    would write them: one client per endpoint (and one async client), no retries."""

    def __init__(self, llm: dict[str, str], request: CapturedRequest) -> None:
        from openai import AsyncOpenAI, OpenAI

        self._model = llm["model"].removeprefix("openai/")
        self._client = OpenAI(base_url=llm["api_base"], api_key=llm["api_key"], max_retries=0)
        self._async = AsyncOpenAI(base_url=llm["api_base"], api_key=llm["api_key"], max_retries=0)
        self._tools: Any = request.tools
        self._messages = request.messages

    def run(self) -> str:
        create = self._client.chat.completions.create
        messages: Any = list(self._messages)
        first = create(model=self._model, messages=messages, tools=self._tools)
        call: Any = (first.choices[0].message.tool_calls or [])[0]
        messages += _tool_messages(call.id, call.function.name, call.function.arguments)
        second = create(model=self._model, messages=messages, tools=self._tools)
        return str(second.choices[0].message.content)

    async def arun(self) -> str:
        create = self._async.chat.completions.create
        messages: Any = list(self._messages)
        first = await create(model=self._model, messages=messages, tools=self._tools)
        call: Any = (first.choices[0].message.tool_calls or [])[0]
        messages += _tool_messages(call.id, call.function.name, call.function.arguments)
        second = await create(model=self._model, messages=messages, tools=self._tools)
        return str(second.choices[0].message.content)

    def run_streamed(self) -> str:
        create = self._client.chat.completions.create
        messages: Any = list(self._messages)
        options: Any = {"stream": True, "stream_options": {"include_usage": True}}
        call_id, name, arguments = "", "", []
        for chunk in create(model=self._model, messages=messages, tools=self._tools, **options):
            if not chunk.choices:
                continue
            for fragment in chunk.choices[0].delta.tool_calls or []:
                call_id = fragment.id or call_id
                function: Any = fragment.function
                name = function.name or name
                arguments.append(function.arguments or "")
        messages += _tool_messages(call_id, name, "".join(arguments))
        text = []
        for chunk in create(model=self._model, messages=messages, tools=self._tools, **options):
            if chunk.choices and chunk.choices[0].delta.content:
                text.append(chunk.choices[0].delta.content)
        return "".join(text)


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what LiteLLM left running on ``loop`` (its logging worker), then close it.

    Closing a loop with LiteLLM's logging tasks still pending can crash the
    interpreter when they are garbage-collected at exit.
    """
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
