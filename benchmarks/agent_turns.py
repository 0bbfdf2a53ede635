"""The agent the overhead benchmarks measure (its turns are timed by :mod:`timing`)."""

from __future__ import annotations

from report import verdict
from served import add

from praisonlike import Agent, ExecutionConfig
from praisonlike.models import model_map

PROMPT = "What is 1 + 2? Use the add tool."
INSTRUCTIONS = "You are a calculator. Use the add tool for sums."


async def add_async(a: int, b: int) -> int:
    """Add two integers."""
    return add(a, b)


add_async.__name__ = "add"  # the server calls the tool by this name


def make_agent(
    llm: dict[str, str], *, interruptible_calls: bool = False, async_tool: bool = False
) -> Agent:
    """The benchmarks' agent: the ``add`` tool, sync unless ``async_tool``."""
    execution = ExecutionConfig(interruptible_calls=interruptible_calls)
    tool = add_async if async_tool else add
    return Agent(instructions=INSTRUCTIONS, llm=llm, tools=[tool], execution=execution)


DIRECT_MODEL = "openai/bench-model"
"""The agent's model on the direct (openai SDK) transport: an ``openai/<name>`` that is
not one of OpenAI's own models (``openai/gpt-4o-mini`` would go through LiteLLM)."""


def direct_llm(llm: dict[str, str]) -> dict[str, str]:
    """``llm`` (a server's ``llm=`` dict) on the direct transport, the model registered.

    The registration gives the model a context window and native tool calls:
    a map entry without ``supports_function_calling`` would put the agent in
    ReAct mode (no ``tools`` in the request; the benchmark server then answers
    at once, and a "one-tool turn" would be one tool-less request).
    """
    model_map.register(
        DIRECT_MODEL,
        {
            "litellm_provider": "openai",
            "max_input_tokens": 128_000,
            "supports_function_calling": True,
        },
    )
    return {**llm, "model": DIRECT_MODEL}


def chat_text(agent: Agent, prompt: str) -> str:
    return str(agent.chat(prompt))


def judgement(passed: bool, judged: bool) -> str:
    return verdict(passed) if judged else "(not judged)"
