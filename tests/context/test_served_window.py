"""A model served on this machine under a name LiteLLM's map does not know is budgeted
with the context window its server lists (vLLM's ``max_model_len``, llama.cpp's
``meta.n_ctx``), not with the 8192-token default."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import pytest

from praisonlike import Agent
from praisonlike.context.window import ContextWindowUnknownWarning
from praisonlike.errors import ConfigurationError
from praisonlike.models.served_window import window_in_listing
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
