"""The cases of benchmarks/tool_calls.py: questions, the tools offered, the accepted calls.

Written for this project. Each case offers one or two tools (plain Python
functions, so praisonlike and the bare server see the same JSON schemas) and
names the call(s) that count as correct, or ``None`` when the question needs no
tool. Categories: single calls, argument types (int, float, enum, list, nested
object, optional), a question that needs no tool, and two tools to choose from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel


def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 21 C"


def get_stock_price(symbol: str) -> str:
    """Get the latest price of a stock.

    Args:
        symbol: Ticker symbol, e.g. AAPL.
    """
    return f"{symbol}: 100.0"


def set_timer(minutes: int) -> str:
    """Start a countdown timer.

    Args:
        minutes: Length of the timer in whole minutes.
    """
    return f"timer set for {minutes} min"


def set_thermostat(celsius: float) -> str:
    """Set the thermostat's target temperature.

    Args:
        celsius: Target temperature in degrees Celsius.
    """
    return f"thermostat at {celsius} C"


def set_fan_mode(mode: Literal["eco", "normal", "turbo"]) -> str:
    """Set the fan's mode.

    Args:
        mode: One of eco, normal or turbo.
    """
    return f"fan in {mode} mode"


def add_to_cart(items: list[str]) -> str:
    """Add items to the shopping cart.

    Args:
        items: Names of the items to add.
    """
    return f"added {len(items)} items"


class Booking(BaseModel):
    name: str
    people: int


def book_table(booking: Booking) -> str:
    """Book a restaurant table.

    Args:
        booking: Who books (name) and for how many people.
    """
    return f"table for {booking.people}"


def search_books(query: str, max_results: int | None = None) -> str:
    """Search the library catalogue.

    Args:
        query: Words to search for.
        max_results: How many results to return at most (optional).
    """
    return f"3 books about {query}"


def send_email(to: str, subject: str) -> str:
    """Send an email.

    Args:
        to: Recipient's email address.
        subject: Subject line.
    """
    return "sent"


@dataclass(frozen=True)
class Call:
    """An accepted call: the tool's name and its arguments.

    A string argument matches when the model's value, lower-cased, contains
    this one lower-cased; a list matches element by element in any order;
    numbers match by value (not as strings). Keys in ``optional`` may be left
    out or null.
    """

    name: str
    arguments: dict[str, Any]
    optional: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Case:
    category: str
    question: str
    tools: tuple[Callable[..., Any], ...]
    expected: Call | None


def _cases() -> list[Case]:
    weather, stock = (get_weather,), (get_stock_price,)
    cases = [
        Case(
            "single",
            f"What is the weather in {city}?",
            weather,
            Call("get_weather", {"city": city}),
        )
        for city in ("Paris", "Tokyo", "Nairobi", "Lima", "Oslo")
    ]
    cases += [
        Case(
            "single",
            f"What is {name}'s stock trading at?",
            stock,
            Call("get_stock_price", {"symbol": symbol}),
        )
        for name, symbol in (
            ("Apple (AAPL)", "AAPL"),
            ("Microsoft (MSFT)", "MSFT"),
            ("Tesla (TSLA)", "TSLA"),
        )
    ]
    cases += [
        Case("int", question, (set_timer,), Call("set_timer", {"minutes": minutes}))
        for question, minutes in (
            ("Set a timer for 5 minutes.", 5),
            ("Start a 25 minute timer.", 25),
            ("Timer for 90 minutes please.", 90),
            ("Remind me in 12 minutes with a timer.", 12),
            ("I need a 3-minute timer for my tea.", 3),
            ("Set a timer of one hour (60 minutes).", 60),
        )
    ]
    cases += [
        Case("float", question, (set_thermostat,), Call("set_thermostat", {"celsius": value}))
        for question, value in (
            ("Set the thermostat to 21.5 degrees.", 21.5),
            ("Make it 19.5 C in here.", 19.5),
            ("Thermostat to 22.75 Celsius.", 22.75),
            ("Please set the heating to 18.5 degrees Celsius.", 18.5),
            ("Target temperature 20.25 C.", 20.25),
        )
    ]
    cases += [
        Case("enum", question, (set_fan_mode,), Call("set_fan_mode", {"mode": mode}))
        for question, mode in (
            ("Put the fan in turbo mode.", "turbo"),
            ("Switch the fan to eco.", "eco"),
            ("Set the fan back to normal.", "normal"),
            ("The room is hot, run the fan at full power (turbo).", "turbo"),
            ("Save energy: set the fan mode to eco.", "eco"),
        )
    ]
    cases += [
        Case("list", question, (add_to_cart,), Call("add_to_cart", {"items": items}))
        for question, items in (
            ("Add milk and bread to my cart.", ["milk", "bread"]),
            ("Put apples, pears and plums in the cart.", ["apples", "pears", "plums"]),
            ("Add a notebook to the cart.", ["notebook"]),
            ("Cart: eggs, butter.", ["eggs", "butter"]),
            ("Please add rice, beans and salt to my shopping cart.", ["rice", "beans", "salt"]),
        )
    ]
    cases += [
        Case(
            "nested",
            question,
            (book_table,),
            Call("book_table", {"booking": {"name": name, "people": people}}),
        )
        for question, name, people in (
            ("Book a table for 4 under the name Alice.", "Alice", 4),
            ("Reserve a table for two people, name Bob.", "Bob", 2),
            ("Table for 6, the booking is for Chen.", "Chen", 6),
            ("Book for Dana, 3 people.", "Dana", 3),
            ("I'd like a table for 8; my name is Emeka.", "Emeka", 8),
        )
    ]
    cases += [
        Case("optional", question, (search_books,), Call("search_books", arguments, optional))
        for question, arguments, optional in (
            (
                "Search the library for books about volcanoes.",
                {"query": "volcano"},
                frozenset({"max_results"}),
            ),
            ("Find books on chess.", {"query": "chess"}, frozenset({"max_results"})),
            (
                "Find at most 3 books about gardening.",
                {"query": "garden", "max_results": 3},
                frozenset(),
            ),
            (
                "Search for 10 books on python programming.",
                {"query": "python", "max_results": 10},
                frozenset(),
            ),
            (
                "Look up books about the moon, 5 results max.",
                {"query": "moon", "max_results": 5},
                frozenset(),
            ),
        )
    ]
    cases += [
        Case("no_tool", question, tools, None)
        for question, tools in (
            ("What is 2 + 2? Answer with the number.", weather),
            ("Say hello in French.", weather),
            ("What is the capital of Italy?", weather),
            ("Write a haiku about the sea.", weather),
            ("How many days are in a week?", (set_timer,)),
            ("Translate 'thank you' into Spanish.", stock),
            ("What colour do you get by mixing blue and yellow?", (set_fan_mode,)),
            ("Spell the word 'cat' backwards.", (add_to_cart,)),
        )
    ]
    both = (get_weather, get_stock_price)
    mail = (set_timer, send_email)
    cases += [
        Case("choose", "Is it raining in Berlin?", both, Call("get_weather", {"city": "Berlin"})),
        Case(
            "choose", "How is NVDA stock doing?", both, Call("get_stock_price", {"symbol": "NVDA"})
        ),
        Case("choose", "Weather in Madrid, please.", both, Call("get_weather", {"city": "Madrid"})),
        Case("choose", "Price of IBM shares?", both, Call("get_stock_price", {"symbol": "IBM"})),
        Case("choose", "Set a 15 minute timer.", mail, Call("set_timer", {"minutes": 15})),
        Case(
            "choose",
            "Email bob@example.com with the subject 'Lunch'.",
            mail,
            Call("send_email", {"to": "bob@example.com", "subject": "lunch"}),
        ),
        Case("choose", "Start a timer for 40 minutes.", mail, Call("set_timer", {"minutes": 40})),
        Case(
            "choose",
            "Send an email to ann@example.org, subject: Report.",
            mail,
            Call("send_email", {"to": "ann@example.org", "subject": "report"}),
        ),
    ]
    return cases


CASES: list[Case] = _cases()
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(case.category for case in CASES))


def matches(expected: Call, name: str, arguments: Any) -> bool:
    """Whether a call of ``name`` with ``arguments`` is ``expected`` (see :class:`Call`)."""
    if name != expected.name or not isinstance(arguments, dict):
        return False
    for key, value in arguments.items():
        if key not in expected.arguments and not (key in expected.optional and value is None):
            return False
    return all(
        key in arguments and _same(want, arguments[key]) for key, want in expected.arguments.items()
    )


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, str):
        return isinstance(got, str) and want.lower() in got.lower().strip()
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, int | float):
        return isinstance(got, int | float) and abs(got - want) < 1e-9
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(any(_same(w, g) for g in got) for w in want)
        )
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and set(got) == set(want)
            and all(_same(w, got[k]) for k, w in want.items())
        )
    return bool(want == got)
