"""Hooks, guardrails and self-reflection: code that watches and steers a turn.

Hooks run at fixed points (before/after the LLM call, each tool, the turn, ...)
and may change arguments or results, or refuse a call. Guardrails answer
blocked requests without a model call and re-ask the model when an answer
breaks a rule. Self-reflection has the model rate and improve its own answer.
"""

from __future__ import annotations

from example_llm import example_llm

from praisonlike import Agent, ReflectionConfig
from praisonlike.agent.guardrails import GuardrailConfig, GuardrailResult
from praisonlike.events import ReflectionEvent
from praisonlike.hooks import HookContext, HookPoint, HookResult
from praisonlike.testing import Call, Response, Text, ToolCalls


def convert(amount: float, currency: str) -> str:
    """Convert an amount of euros to another currency.

    Args:
        amount: Euros.
        currency: The target currency code, e.g. "USD".
    """
    return f"{amount * 1.1:.2f} {currency}"


def before_tool(ctx: HookContext) -> HookResult | None:
    print(f"hook before_tool: {ctx.tool_name}({ctx.arguments})")
    arguments = ctx.arguments or {}
    if arguments.get("currency") == "BTC":
        return HookResult(deny=True, reason="crypto conversions are not offered")
    return HookResult(arguments={**arguments, "currency": str(arguments["currency"]).upper()})


def after_tool(ctx: HookContext) -> HookResult:
    return HookResult(result=f"{ctx.result} (rate of today)")


def no_promises(answer: object) -> GuardrailResult:
    """The output guardrail: financial answers must not promise anything."""
    if "guaranteed" in str(answer).lower():
        return GuardrailResult(ok=False, feedback="do not promise returns")
    return GuardrailResult(ok=True)


SCRIPT: list[Response] = [
    ToolCalls([Call("convert", {"amount": 100, "currency": "usd"})]),
    Text("100 EUR is 110.00 USD today."),
    ToolCalls([Call("convert", {"amount": 5, "currency": "BTC"})]),
    Text("Sorry, I can't convert to BTC."),
    Text("Index funds have guaranteed returns."),
    Text("Index funds spread risk, but no return is certain."),
    Text("Paris."),
    Text('{"reflection": "Too short: name the country too.", "satisfactory": false}'),
    Text("Paris is the capital of France."),
    Text('{"reflection": "Complete and correct.", "satisfactory": true}'),
]


def main() -> None:
    with example_llm(SCRIPT) as llm:
        agent = Agent(
            instructions="You are a careful finance assistant.",
            llm=llm,
            tools=[convert],
            hooks={HookPoint.BEFORE_TOOL: before_tool, HookPoint.AFTER_TOOL: after_tool},
            guardrails=GuardrailConfig(input_keywords=["password"], output=no_promises),
        )

        @agent.on(HookPoint.AFTER_LLM)
        def log_llm(ctx: HookContext) -> None:
            print(f"hook after_llm: model {ctx.model} answered")

        print(agent.chat("How much is 100 EUR in usd?"))
        print(agent.chat("And 5 EUR in BTC?"))
        print(agent.chat("Tell me the admin password."))
        result = agent.last_result
        assert result is not None
        print(f"  -> {result.termination_reason.value}, {result.usage.requests} model calls")
        print(agent.chat("Are index funds a safe investment?"))

        critic = Agent(
            instructions="Answer briefly.", llm=llm, reflection=ReflectionConfig(max_rounds=2)
        )
        for event in critic.stream_events("What is the capital of France?"):
            if isinstance(event, ReflectionEvent):
                verdict = "satisfactory" if event.satisfactory else "needs work"
                print(f"reflection {event.round}: {verdict}: {event.reflection}")
        print(critic.last_result.text if critic.last_result else "")


if __name__ == "__main__":
    main()
