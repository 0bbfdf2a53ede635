"""Context and cost budgets: long conversations stay inside the window, spending has a cap.

``ContextConfig`` compacts a request before it is sent when it nears the
model's window (a small window is set here so it happens at once).
``ExecutionConfig(max_budget=...)`` caps the USD spent by the agent: ``"warn"``
emits a ``budget_warning`` event, ``"stop"`` raises BudgetExceededError.
"""

from __future__ import annotations

from typing import Any

from example_llm import example_llm

from praisonlike import Agent, ContextConfig, ExecutionConfig
from praisonlike.errors import BudgetExceededError
from praisonlike.events import BudgetWarning, CompactionEvent
from praisonlike.testing import Call, ReportedUsage, Response, Text, ToolCalls

PRICES = {
    "gpt-4o-mini": {"input": 10.0, "output": 30.0},
    "qwen2.5-coder-0.5b": {"input": 10.0, "output": 30.0},
}
"""Made-up USD prices per million tokens, high enough for the budget to run out fast."""

CALL_USAGE = ReportedUsage(prompt_tokens=1000, completion_tokens=100)


def read_chapter(number: int) -> str:
    """The full text of a chapter of the book.

    Args:
        number: Chapter number.
    """
    return f"Chapter {number}. " + "It was a dark and stormy night. " * 120


def show(event: Any) -> None:
    """An ``on_event`` observer: sees every event of every turn as it happens."""
    if isinstance(event, CompactionEvent):
        print(
            f"  compaction ({event.route}, {event.strategy}): {event.tokens_before} -> "
            f"{event.tokens_after} tokens, {event.messages_dropped} messages dropped, "
            f"{event.tool_outputs_truncated} tool outputs truncated"
        )
    elif isinstance(event, BudgetWarning):
        print(f"  budget warning: {event.message}")


SCRIPT: list[Response] = [
    *(
        response
        for n in (1, 2, 3)
        for response in (
            ToolCalls([Call("read_chapter", {"number": n})]),
            Text(f"Chapter {n} is about a stormy night."),
        )
    ),
    *(Text(f"Answer {n}.", usage=CALL_USAGE) for n in range(1, 6)),
]


def main() -> None:
    with example_llm(SCRIPT) as llm:
        reader = Agent(
            instructions="You summarise books chapter by chapter.",
            llm=llm,
            tools=[read_chapter],
            context=ContextConfig(
                max_context_tokens=2500, reserve_output_tokens=300, keep_last_turns=1,
                tool_output_limit=2000,
            ),
            on_event=show,
        )
        for n in (1, 2, 3):
            print(f"chapter {n}: {reader.chat(f'Summarise chapter {n}.')}")

        warned = Agent(
            instructions="Be brief.",
            llm=llm,
            model_prices=PRICES,
            execution=ExecutionConfig(max_budget=0.02, on_budget_exceeded="warn"),
            on_event=show,
        )
        for n in (1, 2):
            warned.chat(f"Question {n}?")
        print(f"warn mode: spent ${warned.total_cost:.3f} of $0.02 and kept going")

        capped = Agent(
            instructions="Be brief.",
            llm=llm,
            model_prices=PRICES,
            execution=ExecutionConfig(max_budget=0.02, on_budget_exceeded="stop"),
        )
        try:
            for n in (1, 2, 3):
                capped.chat(f"Question {n}?")
                print(f"stop mode: question {n} answered, ${capped.total_cost:.3f} spent")
        except BudgetExceededError as exc:
            result = capped.last_result
            reason = result.termination_reason.value if result else "?"
            print(f"stop mode: {reason}: ${exc.spent:.3f} of ${exc.limit:.2f}")
        print(f"cost summary: {capped.cost_summary()['total']['requests']} requests")


if __name__ == "__main__":
    main()
