"""validate(): parsing the model's argument text and the errors it gets back."""

import dataclasses
import enum
from typing import Literal

import pytest
from pydantic import BaseModel

from praisonlike.errors import PraisonlikeError
from praisonlike.tools import RawTool, ToolArgumentError, tool


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


class Item(BaseModel):
    sku: str
    quantity: int = 1


class Order(BaseModel):
    customer: str
    items: list[Item]


@dataclasses.dataclass
class Window:
    start: int
    end: int


@tool
def submit(
    order: Order,
    priority: Priority = Priority.LOW,
    window: Window | None = None,
    note: str | None = "default note",
    retries: int = 2,
    mode: Literal["fast", "safe"] = "safe",
) -> str:
    """Submit an order."""
    return "ok"


@tool
def no_args() -> str:
    """Nothing."""
    return "done"


def problems(excinfo: pytest.ExceptionInfo[ToolArgumentError]) -> list[str]:
    return [line for line in str(excinfo.value).splitlines() if line.startswith("- ")]


def test_success_instantiates_nested_models_enums_and_dataclasses():
    arguments = submit.validate(
        '{"order": {"customer": "ada", "items": [{"sku": "a1"}, {"sku": "b2", "quantity": "3"}]},'
        ' "priority": "high", "window": {"start": 1, "end": 2}, "mode": "fast"}'
    )
    order = arguments["order"]
    assert isinstance(order, Order)
    assert order.items == [Item(sku="a1", quantity=1), Item(sku="b2", quantity=3)]
    assert arguments["priority"] is Priority.HIGH
    assert arguments["window"] == Window(start=1, end=2)
    assert arguments["mode"] == "fast"
    assert "retries" not in arguments


def test_accepts_a_mapping_as_well_as_json_text():
    arguments = submit.validate({"order": {"customer": "c", "items": []}, "retries": "4"})
    assert arguments["retries"] == 4


@pytest.mark.parametrize("raw", [None, "", "   ", "null", "{}", {}])
def test_empty_arguments(raw):
    assert no_args.validate(raw) == {}
    assert no_args.call(no_args.validate(raw)) == "done"


def test_malformed_json_names_tool_and_position():
    with pytest.raises(ToolArgumentError) as excinfo:
        submit.validate('{"order": {"customer": "ada"} "priority": "high"}')
    message = str(excinfo.value)
    assert "submit" in message
    assert "not valid JSON" in message
    assert "line 1, column 31 (char 30)" in message
    assert excinfo.value.tool_name == "submit"
    assert excinfo.value.errors[0]["pos"] == 30
    assert isinstance(excinfo.value, PraisonlikeError)


@pytest.mark.parametrize(
    ("raw", "kind"), [("[1, 2]", "array"), ('"text"', "string"), ("3", "number")]
)
def test_non_object_json_is_rejected(raw, kind):
    with pytest.raises(ToolArgumentError, match=f"must be a JSON object.*JSON {kind}"):
        submit.validate(raw)


def test_missing_wrong_typed_and_unknown_arguments_are_all_listed():
    with pytest.raises(ToolArgumentError) as excinfo:
        submit.validate(
            {
                "order": {"customer": "ada", "items": [{"sku": "a"}, {"quantity": "many"}]},
                "priority": "urgent",
                "colour": "red",
            }
        )
    lines = problems(excinfo)
    assert "- order.items[1].sku: missing required argument" in lines
    assert any(
        line.startswith("- order.items[1].quantity: Input should be a valid integer")
        and "(got 'many')" in line
        for line in lines
    )
    assert any(line.startswith("- priority: Input should be 'low' or 'high'") for line in lines)
    assert (
        "- colour: unknown argument; this tool accepts only: "
        "order, priority, window, note, retries, mode" in lines
    )
    assert len(lines) == 4
    assert str(excinfo.value).startswith("Invalid arguments for tool 'submit' (4 problems):")
    assert {tuple(error["loc"]) for error in excinfo.value.errors} >= {("colour",), ("priority",)}


def test_missing_top_level_argument():
    with pytest.raises(ToolArgumentError) as excinfo:
        submit.validate("{}")
    assert problems(excinfo) == ["- order: missing required argument"]


def test_null_for_a_defaulted_non_nullable_argument_means_default():
    arguments = submit.validate({"order": {"customer": "c", "items": []}, "retries": None})
    assert "retries" not in arguments


def test_null_for_a_nullable_argument_is_kept():
    arguments = submit.validate({"order": {"customer": "c", "items": []}, "note": None})
    assert arguments["note"] is None


def test_null_for_a_required_argument_is_an_error():
    with pytest.raises(ToolArgumentError, match="order"):
        submit.validate({"order": None})


RAW = RawTool(
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up a record.",
            "parameters": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "kind": {"type": "string", "enum": ["user", "group"]},
                    "ratio": {"type": "number"},
                    "label": {"type": ["string", "null"]},
                    "extra": {"description": "anything"},
                },
                "required": ["id"],
                "additionalProperties": False,
            },
        },
    }
)


def test_raw_tool_validation_success_returns_the_parsed_object():
    raw = '{"id": 3, "kind": "user", "ratio": 1, "label": null, "extra": [1]}'
    assert RAW.validate(raw) == {"id": 3, "kind": "user", "ratio": 1, "label": None, "extra": [1]}


def test_raw_tool_validation_errors():
    with pytest.raises(ToolArgumentError) as excinfo:
        RAW.validate({"id": True, "kind": "robot", "ratio": "x", "label": 5, "other": 1})
    lines = problems(excinfo)
    assert "- id: Input should be of JSON type integer (got True)" in lines
    assert "- kind: Input should be one of 'user', 'group' (got 'robot')" in lines
    assert "- ratio: Input should be of JSON type number (got 'x')" in lines
    assert "- label: Input should be of JSON type string or null (got 5)" in lines
    assert any(line.startswith("- other: unknown argument") for line in lines)
    assert len(lines) == 5


def test_raw_tool_missing_required_and_bad_json():
    with pytest.raises(ToolArgumentError) as excinfo:
        RAW.validate("{}")
    assert problems(excinfo) == ["- id: missing required argument"]
    with pytest.raises(ToolArgumentError, match="not valid JSON"):
        RAW.validate("{id: 1}")


def test_raw_tool_without_additional_properties_false_allows_extra_keys():
    permissive = RawTool({"name": "p", "parameters": {"type": "object", "properties": {}}})
    assert permissive.validate({"anything": 1}) == {"anything": 1}
