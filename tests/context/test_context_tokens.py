from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from context_factories import SEARCH_TOOL, assistant, text, tool_round, user
from hypothesis import given, settings
from hypothesis import strategies as st

from praisonlike.context import TokenCounter, encoding_for_model
from praisonlike.context.encoding import load_encoding
from praisonlike.models.litellm_backend import prepare_environment


def _tiktoken(name: str, value: str) -> int:
    prepare_environment()
    import tiktoken

    return len(tiktoken.get_encoding(name).encode(value, disallowed_special=()))


class CountingCounter(TokenCounter):
    """Counts how many texts reach the encoder."""

    def __init__(self, model: str, **kwargs: int) -> None:
        super().__init__(model, **kwargs)
        self.encoded = 0

    def count_text(self, text: str) -> int:
        self.encoded += 1
        return super().count_text(text)


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("openai/gpt-4o-mini", "o200k_base"),
        ("azure/gpt-4.1-nano", "o200k_base"),
        ("gpt-5-mini", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("openai/o4-mini", "o200k_base"),
        ("ft:gpt-4o-mini:acme::abc", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("anthropic/claude-3-5-sonnet", "cl100k_base"),
        ("ollama/llama3", "cl100k_base"),
        ("omni-model", "cl100k_base"),
    ],
)
def test_encoding_choice(model: str, encoding: str) -> None:
    assert encoding_for_model(model) == encoding
    assert TokenCounter(model).encoding_name == encoding


def test_encodings_are_loaded_once_per_process() -> None:
    assert load_encoding("cl100k_base") is load_encoding("cl100k_base")


def test_openai_cookbook_example_counts() -> None:
    # The worked example of OpenAI's "How to count tokens with tiktoken" cookbook.
    messages = [
        {"role": "system", "content": "You are a helpful, pattern-following assistant that "
         "translates corporate jargon into plain English."},
        {"role": "system", "name": "example_user",
         "content": "New synergies will help drive top-line growth."},
        {"role": "system", "name": "example_assistant",
         "content": "Things working well together will increase revenue."},
        {"role": "system", "name": "example_user", "content": "Let's circle back when we have "
         "more bandwidth to touch base on opportunities for increased leverage."},
        {"role": "system", "name": "example_assistant",
         "content": "Let's talk later when we're less busy about how to do better."},
        {"role": "user", "content": "This late pivot means we don't have time to boil the ocean "
         "for the client deliverable."},
    ]
    assert TokenCounter("gpt-4").count_messages(messages) == 129
    assert TokenCounter("gpt-4o").count_messages(messages) == 124


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4"])
def test_plain_message_matches_tiktoken(model: str) -> None:
    name = encoding_for_model(model)
    counter = TokenCounter(model)
    content = "Héllo wörld, 1234567 tokens <|endoftext|> and emoji 🎉"
    expected = 3 + _tiktoken(name, "user") + _tiktoken(name, content)
    assert counter.count_message(user(content)) == expected
    assert counter.count_messages([user(content)]) == expected + 3
    assert counter.count_messages([]) == 3


def test_tool_calls_count_names_and_arguments() -> None:
    counter = TokenCounter("gpt-4o")
    call, result = tool_round(["call_1"], ["forty two"])
    arguments = call["tool_calls"][0]["function"]["arguments"]
    expected_call = 3 + _tiktoken("o200k_base", "assistant") + 3 + _tiktoken(
        "o200k_base", "search"
    ) + _tiktoken("o200k_base", arguments)
    assert counter.count_message(call) == expected_call
    expected_result = (
        3 + _tiktoken("o200k_base", "tool") + _tiktoken("o200k_base", "forty two")
        + 1 + _tiktoken("o200k_base", "search")
    )
    assert counter.count_message(result) == expected_result


def test_text_and_image_parts() -> None:
    counter = TokenCounter("gpt-4o")
    url = "data:image/png;base64," + "A" * 50_000
    message = {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is in this picture?"},
            {"type": "image_url", "image_url": {"url": url, "detail": "low"}},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }
    expected = 3 + _tiktoken("o200k_base", "user") + _tiktoken(
        "o200k_base", "what is in this picture?"
    ) + 85 + 765
    assert counter.count_message(message) == expected


def test_tools_schema_tokens_and_cache() -> None:
    counter = CountingCounter("gpt-4o")
    assert counter.count_tools([]) == 0
    first = counter.count_tools([SEARCH_TOOL])
    schema = json.dumps([SEARCH_TOOL], sort_keys=True, separators=(",", ":"))
    assert first == 12 + _tiktoken("o200k_base", schema)
    encoded = counter.encoded
    assert counter.count_tools([json.loads(json.dumps(SEARCH_TOOL))]) == first
    assert counter.encoded == encoded
    assert counter.count_tools([SEARCH_TOOL, SEARCH_TOOL]) > first


def test_counting_a_long_history_twice_encodes_nothing_the_second_time() -> None:
    counter = CountingCounter("gpt-4o-mini")
    history = []
    for i in range(2_500):
        history += [user(f"q{i} " + text(8, i)), *tool_round([f"c{i}"], [f"r{i}"])]
        history.append(assistant(f"a{i}"))
    history.append(assistant("done"))
    assert len(history) == 10_001
    first = counter.count_messages(history)
    assert counter.encoded >= len(history)
    encoded = counter.encoded
    assert counter.count_messages(history) == first
    assert counter.encoded == encoded
    new_turn = [*history, user("one more question")]
    assert counter.count_messages(new_turn) == first + counter.count_message(new_turn[-1])
    assert counter.encoded == encoded + 1  # the new content: role counts are remembered
    assert counter.stats.hits >= 2 * len(history)


def test_equal_copies_hit_the_cache_and_changed_messages_are_recounted() -> None:
    counter = CountingCounter("gpt-4o")
    message = user("a fairly ordinary question about caching")
    base = counter.count_message(message)
    encoded = counter.encoded
    assert counter.count_message(dict(message)) == base
    assert counter.encoded == encoded
    message["content"] = message["content"] + " with a much longer tail " * 5
    assert counter.count_message(message) > base
    parts: dict[str, Any] = {"role": "user", "content": [{"type": "text", "text": "short"}]}
    short = counter.count_message(parts)
    parts["content"][0]["text"] = "short and now considerably longer than before"
    assert counter.count_message(parts) > short


def test_cache_is_bounded_by_entries_and_characters() -> None:
    counter = TokenCounter("gpt-4o", cache_size=100, cache_chars=5_000)
    for i in range(1_000):
        counter.count_message(user(f"message number {i}"))
    assert counter.stats.entries == 100
    counter.count_message(user("x" * 6_000))
    for i in range(40):
        counter.count_message(user(f"{i}" + "y" * 400))
    stats = counter.stats
    assert stats.cached_chars <= 5_000
    assert stats.entries <= 100


def test_messages_that_cannot_be_fingerprinted_are_still_counted() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque value"

    counter = TokenCounter("gpt-4o")
    message = {"role": "user", "content": [Opaque()]}
    assert counter.count_message(message) == 3 + _tiktoken("o200k_base", "user") + _tiktoken(
        "o200k_base", "opaque value"
    )


def test_concurrent_counting_agrees_with_sequential_counting() -> None:
    history = [user(f"{i} " + text(30, i)) for i in range(400)]
    expected = TokenCounter("gpt-4o").count_messages(history)
    counter = TokenCounter("gpt-4o", cache_size=150)
    results: list[int] = []

    def work() -> None:
        for _ in range(3):
            results.append(counter.count_messages(history))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [expected] * 18


def test_trim_keeps_only_the_most_recently_used_counts() -> None:
    counter = TokenCounter("gpt-4o-mini")
    system = {"role": "system", "content": "You are terse."}
    old = [{"role": "user", "content": f"question {i}"} for i in range(50)]
    counter.count_messages([system, *old])
    counter.count_message(system)
    counter.trim(1)
    assert counter.stats.entries == 1
    assert counter.stats.cached_chars == len("system") + len("You are terse.")
    misses = counter.stats.misses
    counter.count_message(system)
    assert counter.stats.misses == misses
    counter.count_message(old[0])
    assert counter.stats.misses == misses + 1


BOUND_TEXTS = [
    "",
    "Say hello.",
    "   \n\n\t  many    spaces   ",
    "<|endoftext|><|fim_prefix|> special tokens as text",
    "日本語のテキストと中文文本",
    "emoji 👩‍👩‍👧‍👦🏳️‍🌈🇫🇷 and accents: àéîõü ß Ω",
    "\ud800 lone surrogates \udfff\ud83d",
    "".join(chr(c) for c in range(0x20, 0x3000, 7)),
]


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4"])
@pytest.mark.parametrize("value", BOUND_TEXTS)
def test_the_bound_of_a_text_is_never_below_its_count(model: str, value: str) -> None:
    counter = TokenCounter(model)
    assert counter.bound_text(value) >= counter.count_text(value)


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4"])
@given(st.text(max_size=200))
@settings(max_examples=150, deadline=None)
def test_the_bound_holds_for_any_text(model: str, value: str) -> None:
    counter = TokenCounter(model)
    assert counter.bound_text(value) >= counter.count_text(value)


def test_the_bound_of_messages_and_tool_schemas_is_never_below_their_count() -> None:
    counter = TokenCounter("gpt-4o-mini")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Réponds en français 🇫🇷."},
        {"role": "user", "name": "ana", "content": [
            {"type": "text", "text": "What is in this picture? 日本"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}},
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        ]},
        assistant("I'll look it up."),
        *tool_round(["call_1"], ["résultat: ✓ " * 20]),
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "add", "arguments": {"a": 1}}},
            "not a dict",
        ]},
    ]
    for message in messages:
        assert counter.bound_message(message) >= counter.count_message(message)
    assert counter.bound_tools([SEARCH_TOOL]) >= counter.count_tools([SEARCH_TOOL])
    assert counter.bound_tools([]) == counter.count_tools([]) == 0


def test_a_bound_loads_no_encoding_and_caches_nothing() -> None:
    class NoEncoding(TokenCounter):
        def count_text(self, text: str) -> int:
            raise AssertionError("a bound must not encode")

    counter = NoEncoding("gpt-4o-mini")
    conversation = [user("hello there"), *tool_round(["call_1"], ["42"])]
    assert all(counter.bound_message(message) > 0 for message in conversation)
    assert counter.bound_tools([SEARCH_TOOL]) > 0
    assert counter.stats.entries == 0
