from __future__ import annotations

import re
from typing import Any

from context_factories import text, tool_round, user
from hypothesis import given, settings
from hypothesis import strategies as st

from praisonlike.context import truncate_tool_output
from praisonlike.context.truncation import cut_content, is_cut_of, truncate_oversize_tools


def test_short_text_is_returned_unchanged() -> None:
    assert truncate_tool_output("short", 100) == "short"
    assert truncate_tool_output("x" * 100, 100) == "x" * 100


def test_long_text_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    original = "HEAD" + "m" * 10_000 + "TAIL"
    cut = truncate_tool_output(original, 200)
    assert len(cut) <= 200
    assert cut.startswith("HEAD") and cut.endswith("TAIL")
    removed = int(re.search(r"\[truncated (\d+) chars\]", cut).group(1))  # type: ignore[union-attr]
    marker = f"\n...[truncated {removed} chars]...\n"
    assert len(cut) - len(marker) + removed == len(original)


def test_limit_smaller_than_the_marker_keeps_the_head_only() -> None:
    assert truncate_tool_output("abcdefghijklmnopqrstuvwxyz" * 10, 5) == "abcde"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000), st.integers(0, 4000))
def test_truncation_never_exceeds_the_limit(value: str, limit: int) -> None:
    cut = truncate_tool_output(value, limit)
    assert len(cut) <= limit or cut == value
    assert is_cut_of(value, cut)


def test_cutting_a_cut_still_reads_as_a_cut_of_the_original() -> None:
    original = text(3000)
    once = truncate_tool_output(original, 2000)
    twice = truncate_tool_output(once, 2000 - 64)
    assert is_cut_of(original, twice)
    assert not is_cut_of(original, "something else entirely")


def test_list_content_cuts_each_text_part_and_keeps_images() -> None:
    image = {"type": "image_url", "image_url": {"url": "http://x/y.png"}}
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "a" * 3000},
        image,
        {"type": "text", "text": "b" * 1000},
    ]
    cut = cut_content(content, 400)
    assert cut[1] is image
    assert len(cut[0]["text"]) + len(cut[2]["text"]) <= 400
    assert content[0]["text"] == "a" * 3000
    assert cut_content(content, 10_000) is content


def test_only_oversize_tool_results_are_cut() -> None:
    small = tool_round(["c1"], ["tiny"])
    big = tool_round(["c2"], [text(2000)])
    question = user(text(2000))
    messages = [question, *small, *big]
    result, count = truncate_oversize_tools(messages, 500)
    assert count == 1
    assert result[0] is question and result[1:3] == small[:2]
    assert result[1] is small[0] and result[2] is small[1]
    assert len(result[4]["content"]) <= 500
    assert result[4]["tool_call_id"] == "c2"
    assert len(messages[4]["content"]) > 500
