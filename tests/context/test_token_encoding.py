"""``count_tokens``: the counts of tiktoken's ``encode_ordinary``, without giving up the GIL."""

from __future__ import annotations

import pytest
from gil_watch import gil_watcher
from hypothesis import given, settings
from hypothesis import strategies as st

from praisonlike.context import TokenCounter
from praisonlike.context.encoding import SHORT_TEXT, count_tokens, load_encoding

ENCODINGS = ["o200k_base", "cl100k_base"]

TRICKY = [
    "",
    " ",
    "  \n\n\t  x",
    "Hello, world! It's what they've said we'll do.",
    "1234567890123 + 0.5e-3 = ?",
    "héllo wörld 你好，世界 🎉🎉 😀👍🏽 ﷽",
    "<|endoftext|> is counted as text, <|im_start|> too",
    "def f(x):\n    return {'a': [1, 2, 3]}\n" * 10,
    "a" * 5000,
    "lone surrogate \ud800 here",
    "word " * (SHORT_TEXT // 5) + "tail",
]


def ordinary(name: str, text: str) -> int:
    return len(load_encoding(name).encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_tricky_texts_count_like_encode_ordinary(name: str, text: str) -> None:
    assert count_tokens(name, text) == ordinary(name, text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=SHORT_TEXT + 200), name=st.sampled_from(ENCODINGS))
def test_any_text_counts_like_encode_ordinary(text: str, name: str) -> None:
    assert count_tokens(name, text) == ordinary(name, text)


def test_the_token_counter_uses_the_same_counts() -> None:
    counter = TokenCounter("gpt-4o-mini")
    text = "What is the capital of France? Answer in one word."
    assert counter.count_text(text) == ordinary("o200k_base", text) > 0


def warm_up_encodings() -> None:
    for name in ENCODINGS:  # loading an encoding reads files, which releases the GIL
        count_tokens(name, "warm up")
        count_tokens(name, "warm up " * SHORT_TEXT)


@pytest.mark.parametrize("name", ENCODINGS)
def test_a_short_text_is_counted_without_releasing_the_gil(name: str) -> None:
    shorts = [f"Q{i}: What is {i} + 2? Use the add tool." for i in range(50)]
    long = "word " * SHORT_TEXT
    warm_up_encodings()
    with gil_watcher() as ran:
        for short in shorts:  # a release can go unseen when the GIL is taken back at once
            count_tokens(name, short)
        after_short = list(ran)
        for _ in range(200):  # the long path releases the GIL: proves the watcher was waiting
            count_tokens(name, long)
            if ran:
                break
        after_long = list(ran)
    assert after_short == [], "counting a short text let another thread run"
    assert after_long == ["ran"]
