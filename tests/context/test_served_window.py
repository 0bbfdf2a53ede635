"""A model served on this machine under a name LiteLLM's map does not know is budgeted
with the context window its server lists (vLLM's ``max_model_len``, llama.cpp's
``meta.n_ctx``), not with the 8192-token default."""

from __future__ import annotations

import itertools
import json
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.agent.context import ASK_AGAIN_AFTER
from praisonlike.context.window import ContextWindowUnknownWarning
from praisonlike.errors import APIConnectionError, ConfigurationError
from praisonlike.models.served_window import (
    ServedWindow,
    served_context_window,
    window_in_listing,
)
from praisonlike.testing import LocalLLMServer, Text

_names = itertools.count()
PARAGRAPH = " ".join(f"fact{n} is about the river and the old mill" for n in range(40))
"""About 400 tokens."""


def served_turns(server: LocalLLMServer) -> tuple[list[Any], list[Warning]]:
    """Four turns of a long prompt each on a model named for this test alone: the
    compaction events and the warnings of the turns."""
    server.default = Text("Noted.")
    agent = Agent(instructions="You take notes.", llm=server.llm_config(f"notes-{next(_names)}"))
    compactions: list[Any] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for turn in range(4):
            events = agent.stream_events(f"Note {turn}: {PARAGRAPH}")
            compactions += [e for e in events if e.type == "compaction"]
    return compactions, [w.message for w in caught]


def test_the_window_the_server_lists_budgets_the_requests() -> None:
    with LocalLLMServer(context_window=2048) as server:
        compactions, caught = served_turns(server)
        last = server.requests[-1]

    assert compactions, "a 2048-token window cannot hold four 400-token notes"
    assert compactions[0].tokens_before > compactions[0].tokens_after
    assert not [w for w in caught if isinstance(w, ContextWindowUnknownWarning)]
    assert "Note 0:" not in str(last.messages)  # the oldest turn went to fit the window


def test_without_a_listed_window_the_default_is_assumed_with_a_warning() -> None:
    with LocalLLMServer() as server:
        compactions, caught = served_turns(server)
        last = server.requests[-1]

    assert compactions == []
    assert [w for w in caught if isinstance(w, ContextWindowUnknownWarning)]
    assert "Note 0:" in str(last.messages)


def test_a_listed_window_the_output_reserve_fills_is_a_configuration_error() -> None:
    with LocalLLMServer([Text("unused")], context_window=512) as server:
        agent = Agent(instructions="You answer.", llm=server.llm_config(f"tiny-{next(_names)}"))
        with pytest.raises(ConfigurationError, match=r"512-token context window") as raised:
            agent.chat("hi")
        assert server.request_count == 0

    assert "reserve_output_tokens (1024)" in str(raised.value)
    assert agent.chat_history == []


def test_a_server_down_at_the_first_turn_is_asked_again_once_it_listens() -> None:
    """The window is not settled by a server that did not answer: started after the
    agent's first (failed) turn, it still budgets the turns that follow."""
    with LocalLLMServer() as gone:
        port = gone.port  # free again once it stops
    model = f"notes-{next(_names)}"
    llm = {"model": f"openai/{model}", "api_base": f"http://127.0.0.1:{port}/v1", "api_key": "none"}
    agent = Agent(instructions="You take notes.", llm=llm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextWindowUnknownWarning)
        with pytest.raises(APIConnectionError):
            agent.chat("Note: the server is not up yet.")
    assert agent.chat_history == []

    time.sleep(ASK_AGAIN_AFTER)
    with LocalLLMServer(default=Text("Noted."), context_window=2048, port=port) as server:
        compactions = [
            event
            for turn in range(4)
            for event in agent.stream_events(f"Note {turn}: {PARAGRAPH}")
            if event.type == "compaction"
        ]
        last = server.requests[-1]
    assert compactions, "the 2048-token window the server lists was not used"
    assert "Note 0:" not in str(last.messages)


# Listings as servers write them (llama.cpp's is from the bundled local model's server).
LLAMA_CPP = {
    "object": "list",
    "data": [
        {
            "id": "qwen2.5-coder-0.5b",
            "object": "model",
            "owned_by": "llamacpp",
            "meta": {"n_vocab": 151936, "n_ctx": 4096, "n_ctx_train": 32768},
        }
    ],
}
VLLM = {
    "object": "list",
    "data": [
        {"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "max_model_len": 32768},
        {"id": "my-lora", "object": "model", "max_model_len": 16384},
    ],
}
OTHER = {"data": [{"id": "phi-4", "context_length": 16000}, {"id": "gemma", "foo": 1}]}


@pytest.mark.parametrize(
    ("listing", "model", "window"),
    [
        (LLAMA_CPP, "openai/qwen2.5-coder-0.5b", 4096),  # n_ctx, not the training context
        (LLAMA_CPP, "openai/any-name", 4096),  # a server of one model
        (VLLM, "openai/Qwen/Qwen2.5-7B-Instruct", 32768),
        (VLLM, "openai/my-lora", 16384),
        (VLLM, "openai/other", None),  # several models, none of that name
        (OTHER, "openai/phi-4", 16000),
        (OTHER, "openai/gemma", None),
        ({"data": [{"id": "m", "max_model_len": True}]}, "openai/m", None),
        ({"error": "no"}, "openai/m", None),
        ([], "openai/m", None),
    ],
)
def test_the_window_is_read_from_each_servers_listing(
    listing: Any, model: str, window: int | None
) -> None:
    assert window_in_listing(listing, model) == window


class _Listing(BaseHTTPRequestHandler):
    """``GET /v1/models`` answered with the status the path's last part names."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        status = int(self.path.split("/")[-2])
        body = json.dumps(LLAMA_CPP if status == 200 else {"error": "loading"}).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (200, ServedWindow(4096, answered=True)),
        (404, ServedWindow(None, answered=True)),  # no listing: the server's answer
        (401, ServedWindow(None, answered=True)),
        (503, ServedWindow(None, answered=False)),  # llama.cpp loading its model
    ],
)
def test_a_listing_is_an_answer_and_a_server_error_is_not(
    status: int, expected: ServedWindow
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Listing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/{status}"
        assert served_context_window(base, None, "openai/qwen2.5-coder-0.5b") == expected
    finally:
        server.shutdown()
        server.server_close()
    refused = served_context_window(base, None, "openai/qwen2.5-coder-0.5b")
    assert refused == ServedWindow(None, answered=False)
    remote = served_context_window("https://api.example.com/v1", None, "openai/m")
    assert remote == ServedWindow(None, answered=True)  # never asked
