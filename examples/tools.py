"""Tools: plain functions, ``@tool`` options, dependencies through RunContext, approval.

The schema the model sees comes from each function's signature and docstring.
A tool that needs approval runs only when the ``approval=`` callback says yes;
a denied call goes back to the model as an error tool result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from example_llm import example_llm

from praisonlike import Agent, RunContext, tool
from praisonlike.testing import Call, Response, Text, ToolCalls


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name, e.g. "Oslo".
        unit: Temperature unit.
    """
    return f"{city}: sunny, {26 if unit == 'c' else 79}{unit}"


@dataclass
class Shop:
    """What the order tools need; passed as ``deps``, never shown to the model."""

    user: str
    orders: dict[str, list[str]] = field(default_factory=dict)
    cancelled: list[str] = field(default_factory=list)


def list_orders(ctx: RunContext[Shop]) -> list[str]:
    """The current user's open orders."""
    return ctx.deps.orders.get(ctx.deps.user, [])


@tool(requires_approval=True)
def cancel_order(ctx: RunContext[Shop], order_id: str) -> str:
    """Cancel one of the user's orders.

    Args:
        order_id: The order to cancel.
    """
    ctx.deps.cancelled.append(order_id)
    return f"order {order_id} cancelled"


def approve(tool_name: str, arguments: dict[str, Any]) -> bool:
    """Allow cancelling order A-1 only (a real app would ask the user)."""
    allowed = arguments.get("order_id") == "A-1"
    print(f"approval asked for {tool_name}({arguments}): {'yes' if allowed else 'no'}")
    return allowed


SCRIPT: list[Response] = [
    ToolCalls([Call("get_weather", {"city": "Oslo"})]),
    Text("It is sunny in Oslo, 26c."),
    ToolCalls([Call("list_orders", {})]),
    ToolCalls(
        [Call("cancel_order", {"order_id": "A-1"}), Call("cancel_order", {"order_id": "B-2"})]
    ),
    Text("I cancelled A-1; cancelling B-2 was not allowed."),
]


def main() -> None:
    shop = Shop(user="alice", orders={"alice": ["A-1", "B-2"]})
    with example_llm(SCRIPT) as llm:
        agent = Agent(
            instructions="You help with the weather and with orders. Use the tools.",
            llm=llm,
            tools=[get_weather, list_orders, cancel_order],
            deps=shop,
            approval=approve,
        )
        print(agent.chat("What is the weather in Oslo?"))
        print(agent.chat("Cancel all my orders."))
        result = agent.last_result
        assert result is not None
        for call in result.tool_calls:
            status = "error" if call.is_error else "ok"
            print(f"tool call {call.name}({call.arguments}) -> {status}: {call.result[:60]}")
        print(f"cancelled: {shop.cancelled}")


if __name__ == "__main__":
    main()
