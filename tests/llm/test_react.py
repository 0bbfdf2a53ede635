"""Text (ReAct) tool calls: parsing, whole-answer detection, prompts and stream hold-back."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from praisonlike.react.call_faults import find_call_fault
from praisonlike.react.parse import (
    MAX_TEXT_CHARS,
    StreamCallDetector,
    TextToolCall,
    is_whole_answer_a_call,
    parse_text_tool_calls,
)
from praisonlike.react.prompt import observation_message, react_instructions

OFFERED = {"get_weather", "add"}
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
ECHO = json.dumps(
    {
        "name": "get_weather",
        "description": "Current weather.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
)
ADD = '{"name": "add", "arguments": {"a": 1, "b": 2}}'


def names_and_args(calls: list[TextToolCall]) -> list[tuple[str, dict[str, object]]]:
    return [(call.name, call.arguments) for call in calls]


# -- parse_text_tool_calls ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        CALL,
        f"  \n{CALL}\n ",
        f"```json\n{CALL}\n```",
        f"```JSON\n{CALL}```",
        f"```\n{CALL}\n```",
        f"```json {CALL}```",
        f"<tool_call>\n{CALL}\n</tool_call>",
        f"<tool_call>{CALL}",
        f"[{CALL}]",
        f"```json\n{CALL}",
        f"Let me check the weather.\n{CALL}",
        f"Sure: {CALL}",
        f"I will look it up. {CALL}\n",
    ],
)
def test_single_call_forms(text: str) -> None:
    assert names_and_args(parse_text_tool_calls(text, OFFERED)) == [
        ("get_weather", {"city": "Paris"})
    ]


@pytest.mark.parametrize(
    "payload",
    [
        {"name": "add", "arguments": {"a": 1}},
        {"name": "add", "args": {"a": 1}},
        {"name": "add", "parameters": {"a": 1}},
        {"tool": "add", "arguments": {"a": 1}},
        {"function": "add", "arguments": {"a": 1}},
        {"name": "add", "arguments": json.dumps({"a": 1})},
        {"type": "function", "function": {"name": "add", "arguments": json.dumps({"a": 1})}},
        {"type": "function", "id": "c1", "name": "add", "arguments": {"a": 1}},
    ],
)
def test_key_spellings_and_string_arguments(payload: dict[str, object]) -> None:
    calls = parse_text_tool_calls(json.dumps(payload), OFFERED)
    assert names_and_args(calls) == [("add", {"a": 1})]


@pytest.mark.parametrize(
    "payload", [{"name": "add"}, {"name": "add", "arguments": None}, {"name": "add", "args": ""}]
)
def test_missing_arguments_are_empty(payload: dict[str, object]) -> None:
    assert names_and_args(parse_text_tool_calls(json.dumps(payload), OFFERED)) == [("add", {})]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "The weather in Paris is sunny.",
        '{"name": "delete_everything", "arguments": {}}',
        '{"name": "add", "arguments": [1, 2]}',
        '{"name": "add", "arguments": "not json"}',
        '{"name": "add", "arguments": "[1]"}',
        '{"name": "add", "arguments": {}, "city": "Paris"}',
        '{"name": "add", "args": {}, "arguments": {}}',
        '{"name": 3, "arguments": {}}',
        '{"name": "get_weather", "arguments": {"city": "Par',
        '{"name": "get_weather" "arguments": {}}',
        "[]",
        "{}",
        "42",
        '"add"',
        f"[{CALL}, 3]",
        f'[{CALL}, {{"name": "unknown"}}]',
        f"```python\n{CALL}\n```",
        f"I will call {CALL} now.",
        f"I think {CALL} is what I would send.",
        f"```python\n{CALL}\n```\nThat is the format.",
        f"<tool_call>{CALL[:-5]}</tool_call>",
    ],
)
def test_not_a_call(text: str) -> None:
    assert parse_text_tool_calls(text, OFFERED) == []


def test_unknown_tool_name_is_not_a_call_even_if_well_formed() -> None:
    assert parse_text_tool_calls(CALL, {"add"}) == []
    assert parse_text_tool_calls(CALL, set()) == []


def test_several_tool_call_blocks_in_order() -> None:
    text = f"<tool_call>\n{CALL}\n</tool_call>\n<tool_call>\n{ADD}\n</tool_call>"
    calls = parse_text_tool_calls(text, OFFERED)
    assert names_and_args(calls) == [("get_weather", {"city": "Paris"}), ("add", {"a": 1, "b": 2})]
    assert calls[0].raw == f"<tool_call>\n{CALL}\n</tool_call>"


def test_list_of_calls_and_fenced_list() -> None:
    for text in (f"[{CALL}, {ADD}]", f"```json\n[{CALL}, {ADD}]\n```"):
        assert [c.name for c in parse_text_tool_calls(text, OFFERED)] == ["get_weather", "add"]


def test_bare_calls_on_separate_lines_are_all_read() -> None:
    a = '{"name": "add", "arguments": {"a": 1}}'
    b = '{"name": "add", "arguments": {"a": 2}}'
    for text in (f"{a}\n{b}", f"I need two sums.\n{a}\n{b}\n", f"{a}\n\n{b}\nDone."):
        calls = parse_text_tool_calls(text, OFFERED)
        assert names_and_args(calls) == [("add", {"a": 1}), ("add", {"a": 2})]
        assert [call.raw for call in calls] == [a, b]


def test_bare_lines_skip_json_that_is_not_a_call() -> None:
    text = f'{{"note": 1}}\n{CALL}\n{{"name": "unknown", "arguments": {{}}}}'
    assert names_and_args(parse_text_tool_calls(text, OFFERED)) == [
        ("get_weather", {"city": "Paris"})
    ]


def test_bare_calls_need_an_arguments_key_after_prose() -> None:
    assert parse_text_tool_calls('The tool:\n{"name": "add"}', OFFERED) == []


def test_a_schema_under_parameters_is_a_definition_not_a_call() -> None:
    echo = {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    assert parse_text_tool_calls(json.dumps(echo), OFFERED) == []


def test_fenced_call_inside_prose_is_found() -> None:
    text = f"Let me check the weather.\n```json\n{CALL}\n```\nOne moment."
    calls = parse_text_tool_calls(text, OFFERED)
    assert names_and_args(calls) == [("get_weather", {"city": "Paris"})]
    assert calls[0].raw == f"```json\n{CALL}\n```"


def test_tool_call_blocks_take_precedence_over_fences() -> None:
    text = f"```json\n{ADD}\n```\n<tool_call>{CALL}</tool_call>"
    assert [c.name for c in parse_text_tool_calls(text, OFFERED)] == ["get_weather"]


def test_fence_inside_a_tool_call_block() -> None:
    text = f"<tool_call>\n```json\n{CALL}\n```\n</tool_call>"
    assert [c.name for c in parse_text_tool_calls(text, OFFERED)] == ["get_weather"]


def test_non_call_fences_before_a_call_fence() -> None:
    text = f'```python\nprint(1)\n```\n```json\n{{"a": 1}}\n```\n```json\n{ADD}\n```'
    assert [c.name for c in parse_text_tool_calls(text, OFFERED)] == ["add"]


def test_huge_input_is_refused_quietly() -> None:
    padding = " " * (MAX_TEXT_CHARS + 1)
    assert parse_text_tool_calls(CALL + padding, OFFERED) == []
    assert is_whole_answer_a_call(CALL + padding, OFFERED) == []


@pytest.mark.parametrize("depth", [10, 5_000, 100_000])
def test_deep_nesting_never_raises(depth: int) -> None:
    deep = "[" * depth + "]" * depth
    nested_args = '{"name": "add", "arguments": ' + '{"x": ' * depth + "1" + "}" * depth + "}"
    for text in (deep, f"```json\n{deep}\n```", nested_args, "{" * depth):
        for parse in (parse_text_tool_calls, is_whole_answer_a_call):
            result = parse(text, OFFERED)
            assert isinstance(result, list)
    assert parse_text_tool_calls(deep, OFFERED) == []


def test_huge_integer_argument_never_raises() -> None:
    text = '{"name": "add", "arguments": {"a": ' + "9" * 10_000 + "}}"
    assert isinstance(parse_text_tool_calls(text, OFFERED), list)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list('{}[]":,` \nabc<>/_tool_calnmejs0123')), max_size=200))
def test_parsers_never_raise_on_junk(text: str) -> None:
    for parse in (parse_text_tool_calls, is_whole_answer_a_call):
        result = parse(text, OFFERED)
        assert all(call.name in OFFERED for call in result)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(sorted(OFFERED)),
    arguments=st.dictionaries(st.text(max_size=8), json_values, max_size=4),
    name_key=st.sampled_from(["name", "tool", "function"]),
    args_key=st.sampled_from(["arguments", "args", "parameters"]),
    as_string=st.booleans(),
    wrapper=st.sampled_from(["bare", "fence", "json_fence", "tag", "list"]),
)
def test_any_encoded_call_round_trips(
    name: str,
    arguments: dict[str, object],
    name_key: str,
    args_key: str,
    as_string: bool,
    wrapper: str,
) -> None:
    body = json.dumps({name_key: name, args_key: json.dumps(arguments) if as_string else arguments})
    text = {
        "bare": body,
        "fence": f"```\n{body}\n```",
        "json_fence": f"```json\n{body}\n```",
        "tag": f"<tool_call>\n{body}\n</tool_call>",
        "list": f"[{body}]",
    }[wrapper]
    if "```" in body or "<tool_call>" in body or "</tool_call>" in body:
        return
    expected = [(name, arguments)]
    assert names_and_args(parse_text_tool_calls(text, OFFERED)) == expected
    assert names_and_args(is_whole_answer_a_call(text, OFFERED)) == expected
    assert names_and_args(is_whole_answer_a_call(f"  {text}\n", OFFERED)) == expected


@settings(max_examples=100, deadline=None)
@given(
    name=st.text(min_size=1, max_size=12).filter(lambda n: n not in OFFERED),
    arguments=st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
def test_any_unoffered_name_is_never_a_call(name: str, arguments: dict[str, int]) -> None:
    text = json.dumps({"name": name, "arguments": arguments})
    assert parse_text_tool_calls(text, OFFERED) == []
    assert parse_text_tool_calls(f"<tool_call>{text}</tool_call>", OFFERED) == []


# -- is_whole_answer_a_call -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        CALL,
        f"```json\n{CALL}\n```",
        f"<tool_call>{CALL}</tool_call>",
        f"<tool_call>{CALL}</tool_call>\n\n<tool_call>{ADD}</tool_call>",
        f"```json\n{CALL}\n```\n```json\n{ADD}\n```",
    ],
)
def test_whole_answer_calls(text: str) -> None:
    assert is_whole_answer_a_call(text, OFFERED)


@pytest.mark.parametrize(
    "text",
    [
        f"Sure! {CALL}",
        f"{CALL} Done.",
        f"Let me check.\n```json\n{CALL}\n```",
        f"```json\n{CALL}\n```\nThat should work.",
        f"<tool_call>{CALL}</tool_call> and then I answer",
        f"<tool_call>{CALL}</tool_call>\n<tool_call>not json</tool_call>",
        f'```json\n{CALL}\n```\n```json\n{{"a": 1}}\n```',
        '{"name": "unknown_tool", "arguments": {}}',
        "The answer is 42.",
    ],
)
def test_prose_around_json_is_not_a_whole_answer_call(text: str) -> None:
    assert is_whole_answer_a_call(text, OFFERED) == []


def test_whole_answer_keeps_multiple_calls() -> None:
    text = f"<tool_call>{CALL}</tool_call>\n<tool_call>{ADD}</tool_call>"
    assert [c.name for c in is_whole_answer_a_call(text, OFFERED)] == ["get_weather", "add"]


# -- react_instructions and observation_message ---------------------------------------

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {"name": "now", "description": "The current time."},
]


def test_react_instructions_list_every_tool_and_the_protocol() -> None:
    text = react_instructions(TOOLS)
    listed = [json.loads(line) for line in text.splitlines() if line.startswith('{"name": "')]
    assert listed == [
        {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": TOOLS[0]["function"]["parameters"],
        },
        {
            "name": "now",
            "description": "The current time.",
            "parameters": {"type": "object", "properties": {}},
        },
    ]
    assert '{"name": <function-name>, "arguments": <args-json-object>}' in text
    assert "ONLY a JSON object" in text
    assert "plain text" in text


def test_react_instructions_example_format_is_parseable_by_the_parser() -> None:
    example = '{"name": "now", "arguments": {}}'
    assert names_and_args(parse_text_tool_calls(example, {"now"})) == [("now", {})]


def test_observation_message_for_models_without_tool_role() -> None:
    message = observation_message("get_weather", "Sunny, 21 C", is_error=False)
    assert message["role"] == "user"
    assert message["content"].startswith("Observation from get_weather:\nSunny, 21 C\n")
    assert "error" not in message["content"]
    failed = observation_message("get_weather", "city not found", is_error=True)
    assert failed["role"] == "user"
    assert failed["content"].startswith("Observation from get_weather (error):\ncity not found")


def test_observation_message_with_tool_role() -> None:
    message = observation_message(
        "add", "3", is_error=False, has_tool_role=True, tool_call_id="call_1"
    )
    assert message == {"role": "tool", "name": "add", "content": "3", "tool_call_id": "call_1"}
    assert "tool_call_id" not in observation_message("add", "3", is_error=False, has_tool_role=True)


# -- StreamCallDetector ---------------------------------------------------------------

STREAM_SAMPLES = [
    CALL,
    f"  {CALL}  ",
    f"```json\n{CALL}\n```",
    f"<tool_call>\n{CALL}\n</tool_call>",
    f"<tool_call>{CALL}</tool_call><tool_call>{ADD}</tool_call>",
    f"Let me look that up.\n```json\n{CALL}\n```\nOne moment.",
    f"First some code:\n```python\nprint('`hi`')\n```\nthen a call\n<tool_call>{ADD}</tool_call>",
    "Plain answer with `inline code` and a < sign and <b>html</b>.",
    "Here is code:\n```python\nx = {'a': 1}\n```\nDone.",
    '{"answer": 42}',
    "[1, 2, 3] are numbers",
    '```json\n{"not": "a call"}\n```\ntrailing text',
    f"```\n<tool_call>{CALL}</tool_call>\n```",
    f"<tool_call>\n```json\n{CALL}\n```\n</tool_call>",
    f"<tool_call>{CALL}",
    'Unclosed fence ```json\n{"a": 1}',
    "ends with a backtick `",
    "ends with a tag prefix <tool_ca",
    f"I think {CALL} is what I would send.",
    f"Two calls:\n{CALL}\n{ADD}\n",
    f"Sure: {CALL}",
    "Use a dict like {'a': 1} or {x} in prose.",
    ECHO,
    f"```json\n{ECHO}\n```",
    f"Here it is.\n{ECHO}",
    '{"name": "add", "arguments": {"a": 1',
    "",
    "   ",
]


def run_detector(chunks: list[str]) -> tuple[str, list[TextToolCall], list[str]]:
    detector = StreamCallDetector(OFFERED)
    emitted = [detector.feed(chunk) for chunk in chunks]
    released, calls = detector.finish()
    return "".join(emitted), calls, [*emitted, released]


def assert_consistent(text: str, chunks: list[str]) -> None:
    emitted_live, calls, pieces = run_detector(chunks)
    expected = parse_text_tool_calls(text, OFFERED)
    assert calls == expected
    streamed = "".join(pieces)
    if expected:
        assert text.startswith(streamed)
        assert len(streamed) <= text.rfind(expected[-1].raw)
    elif find_call_fault(text, OFFERED) is not None:
        assert text.startswith(streamed)
        assert find_call_fault(streamed, OFFERED) is None
    else:
        assert streamed == text


@pytest.mark.parametrize("text", STREAM_SAMPLES)
def test_detector_every_two_way_split(text: str) -> None:
    for cut in range(len(text) + 1):
        assert_consistent(text, [text[:cut], text[cut:]])


@pytest.mark.parametrize("text", STREAM_SAMPLES)
def test_detector_character_by_character(text: str) -> None:
    assert_consistent(text, list(text))


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=st.sampled_from(STREAM_SAMPLES))
def test_detector_any_chunking(data: st.DataObject, text: str) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    assert_consistent(text, [text[a:b] for a, b in pairwise(bounds)])


pieces = st.sampled_from(
    [
        CALL,
        ADD,
        ECHO,
        "```",
        "```json\n",
        "\n",
        " ",
        "<tool_call>",
        "</tool_call>",
        "hello",
        "{",
        "}",
        "[",
        "`",
        "<",
        '"name"',
        "x",
    ]
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(pieces, max_size=10), data=st.data())
def test_detector_matches_parser_on_generated_text(parts: list[str], data: st.DataObject) -> None:
    text = "".join(parts)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    assert_consistent(text, [text[a:b] for a, b in pairwise(bounds)])


def test_detector_releases_prose_immediately() -> None:
    detector = StreamCallDetector(OFFERED)
    assert detector.feed("The weather ") == "The weather "
    assert detector.feed("is sunny.") == "is sunny."
    assert detector.finish() == ("", [])


def test_detector_holds_a_possible_call_then_releases_non_call() -> None:
    detector = StreamCallDetector(OFFERED)
    assert detector.feed("{") == ""
    assert detector.feed('"answer": 42}') == ""
    assert detector.finish() == ('{"answer": 42}', [])


def test_detector_holds_opener_prefix_until_it_cannot_be_one() -> None:
    detector = StreamCallDetector(OFFERED)
    assert detector.feed("Use <to") == "Use "
    assert detector.feed("day>") == "<today>"
    assert detector.feed(" and `") == " and "
    assert detector.feed("x`") == "`x"
    assert detector.feed(" y") == "` y"


def test_detector_passes_text_through_after_a_non_call_block() -> None:
    detector = StreamCallDetector(OFFERED)
    assert detector.feed("```python\nprint(1)\n") == ""
    assert detector.feed("```") == "```python\nprint(1)\n```"
    assert detector.feed(" done") == " done"


def test_detector_never_emits_a_call_and_returns_it() -> None:
    detector = StreamCallDetector(OFFERED)
    emitted = detector.feed("Checking.\n```json\n")
    emitted += detector.feed(CALL)
    emitted += detector.feed("\n``` ok")
    released, calls = detector.finish()
    assert emitted == "Checking.\n"
    assert released == ""
    assert names_and_args(calls) == [("get_weather", {"city": "Paris"})]


def test_detector_feed_after_finish_raises() -> None:
    detector = StreamCallDetector(OFFERED)
    detector.finish()
    with pytest.raises(RuntimeError):
        detector.feed("x")


def test_detector_stops_holding_past_the_size_limit() -> None:
    detector = StreamCallDetector(OFFERED)
    assert detector.feed("{") == ""
    big = "x" * MAX_TEXT_CHARS
    assert detector.feed(big) == "{" + big
    assert detector.feed("tail") == "tail"
    assert detector.finish() == ("", [])
