"""format_tool_result and the error messages fed back to the model."""

import dataclasses
import datetime
import enum
import json

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from praisonlike.tools import (
    NO_RESULT,
    ToolArgumentError,
    format_tool_result,
    tool_exception_message,
    unknown_tool_message,
)


class Reading(BaseModel):
    city: str
    temperature: float


@dataclasses.dataclass
class Box:
    label: str
    when: datetime.date
    tags: set[str]


class Level(enum.Enum):
    HIGH = "high"


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        return "<Unprintable>"


class Hopeless:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_strings_are_returned_unquoted():
    assert format_tool_result("plain text") == "plain text"
    assert format_tool_result("") == ""


def test_none_means_no_result():
    assert format_tool_result(None) == NO_RESULT == "(the tool returned no result)"


def test_bytes_are_decoded_with_replacement():
    assert format_tool_result("héllo".encode()) == "héllo"
    assert format_tool_result(b"ok \xff") == "ok \ufffd"
    assert format_tool_result(bytearray(b"ab")) == "ab"


def test_pydantic_models_are_json():
    text = format_tool_result(Reading(city="Zürich", temperature=3.5))
    assert json.loads(text) == {"city": "Zürich", "temperature": 3.5}


def test_containers_are_json_with_unicode_kept():
    text = format_tool_result({"city": "Zürich", "values": [1, 2.5, None, True]})
    assert text == '{"city": "Zürich", "values": [1, 2.5, null, true]}'
    assert json.loads(format_tool_result((1, "two"))) == [1, "two"]
    assert json.loads(format_tool_result([Reading(city="a", temperature=1)])) == [
        {"city": "a", "temperature": 1.0}
    ]


def test_dataclasses_and_odd_leaves_are_serialised():
    text = format_tool_result(Box(label="b", when=datetime.date(2024, 5, 1), tags={"x"}))
    assert json.loads(text) == {"label": "b", "when": "2024-05-01", "tags": ["x"]}
    assert json.loads(format_tool_result({"level": Level.HIGH, "obj": object})) == {
        "level": "high",
        "obj": str(object),
    }


def test_other_values_use_str():
    assert format_tool_result(42) == "42"
    assert format_tool_result(1.5) == "1.5"
    assert format_tool_result(Level.HIGH) == str(Level.HIGH)


def test_unserialisable_values_never_raise():
    circular: list = []
    circular.append(circular)
    assert format_tool_result(circular) == str(circular)
    assert format_tool_result(Unprintable()) == "<Unprintable>"
    assert format_tool_result(Hopeless()) == "<unprintable Hopeless object>"
    assert format_tool_result({"x": Unprintable()}) == "{'x': <Unprintable>}"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_json_round_trip_of_plain_dicts(value):
    assert json.loads(format_tool_result(value)) == value


def test_unknown_tool_message_lists_available_tools():
    message = unknown_tool_message("serch", ["weather", "search"])
    assert "'serch'" in message
    assert "Available tools: search, weather." in message
    assert message.startswith("Error:")
    assert "no tools are available" in unknown_tool_message("x", [])


def test_tool_exception_message():
    assert (
        tool_exception_message("divide", ZeroDivisionError("division by zero"))
        == "Error: tool 'divide' raised ZeroDivisionError: division by zero"
    )
    assert tool_exception_message("t", KeyError()) == "Error: tool 't' raised KeyError"
    long = tool_exception_message("t", ValueError("x" * 5000))
    assert long.endswith("... (truncated)")
    assert len(long) < 2100


def test_argument_errors_keep_their_own_text():
    exc = ToolArgumentError("Invalid arguments for tool 't': ...", tool_name="t")
    assert tool_exception_message("t", exc) == "Error: Invalid arguments for tool 't': ..."
