"""ReflectionMixin: the model rates its own answer and improves it.

With ``Agent(reflection=True)`` or ``reflection=ReflectionConfig(...)`` each
answer is rated by the model (or ``ReflectionConfig.llm``, a model string or a
full configuration, called as a fallback would be: see
:func:`praisonlike.agent.model_resolution.named_llm`) as JSON
``{"reflection": ..., "satisfactory": true|false}``. An unsatisfactory
answer is regenerated with the reflection as feedback, until it is
satisfactory and at least ``min_rounds`` rounds ran, or ``max_rounds`` rounds
ran. Every reflection call counts in usage and cost and emits a ``reflection``
event. Turn assembly calls :func:`reflection_check`.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from praisonlike._runtime.config_checks import is_int
from praisonlike.agent.parts import HasParts
from praisonlike.agent.structured_output import extract_json_text
from praisonlike.errors import ConfigurationError, ConfigurationTypeError
from praisonlike.loop.answer_checks import Accept, AnswerCheck, Ask, Revise
from praisonlike.models.config import LLMConfig, model_entry

REFLECT_INSTRUCTIONS = (
    "Rate the assistant's answer to the user's request. Reply with only a JSON object "
    '{"reflection": "what is wrong or missing, or why it is good", "satisfactory": true|false}.'
)


def parse_reflection(text: str) -> tuple[str, bool]:
    """(reflection, satisfactory); an unreadable rating counts as satisfactory."""
    try:
        data = json.loads(extract_json_text(text))
    except ValueError:
        return text.strip(), True
    if not isinstance(data, dict):
        return text.strip(), True
    return str(data.get("reflection", "")), bool(data.get("satisfactory", True))


@dataclass(frozen=True)
class ReflectionConfig:
    """How the agent rates and improves its own answers (``Agent(reflection=...)``).

    ``min_rounds`` (>= 0) ratings always run, even of a satisfactory answer;
    at most ``max_rounds`` (>= 1, >= ``min_rounds``) run. ``llm`` is the model
    that rates (None: the agent's own), a model string or a full configuration
    as :func:`~praisonlike.models.config.model_entry` says; a dict becomes an
    :class:`LLMConfig`.

    Raises :class:`~praisonlike.errors.ConfigurationError` naming every invalid
    field (a :class:`~praisonlike.errors.ConfigurationTypeError` when one is of
    the wrong kind).
    """

    min_rounds: int = 1
    max_rounds: int = 3
    llm: str | LLMConfig | None = None

    def __post_init__(self) -> None:
        wrong_kind, problems = _reflection_problems(self)
        if self.llm is not None:
            try:
                object.__setattr__(self, "llm", model_entry(self.llm, "llm"))
            except ConfigurationError as exc:
                (wrong_kind if isinstance(exc, TypeError) else problems).append(str(exc))
        if wrong_kind or problems:
            error = ConfigurationTypeError if wrong_kind else ConfigurationError
            raise error("invalid ReflectionConfig: " + "; ".join(wrong_kind + problems))


def _reflection_problems(config: ReflectionConfig) -> tuple[list[str], list[str]]:
    """(values of the wrong kind, values out of range) of the round counts."""
    counts = {"min_rounds": config.min_rounds, "max_rounds": config.max_rounds}
    wrong_kind = [f"{n} must be an int, got {v!r}" for n, v in counts.items() if not is_int(v)]
    if wrong_kind:
        return wrong_kind, []
    problems: list[str] = []
    if config.min_rounds < 0:
        problems.append(f"min_rounds must be >= 0, got {config.min_rounds}")
    if config.max_rounds < 1:
        problems.append(f"max_rounds must be >= 1, got {config.max_rounds}")
    if config.min_rounds > config.max_rounds:
        problems.append(
            f"min_rounds must be <= max_rounds ({config.max_rounds}), got {config.min_rounds}"
        )
    return [], problems


def reflection_check(
    config: ReflectionConfig | None, configured: LLMConfig | None, prompt: str, run_id: str
) -> AnswerCheck | None:
    """The answer check rating answers to ``prompt`` (``None`` when reflection is off).

    ``configured`` is the agent's own model setting, which a judge named by a
    string borrows from as a fallback would.
    """
    if config is None:
        return None
    from praisonlike.events import ReflectionEvent

    rounds = [0]
    minimum, maximum = config.min_rounds, config.max_rounds
    judge: list[LLMConfig | None] = []

    def judge_llm() -> LLMConfig | None:
        if not judge:
            from praisonlike.agent.model_resolution import named_llm

            named = config.llm
            judge.append(None if named is None else named_llm(configured, named, "reflect_llm"))
        return judge[0]

    def check(answer: str, ask: Ask) -> Generator[Any, Any, Accept | Revise]:
        if rounds[0] >= maximum:
            return Accept(answer)
        rounds[0] += 1
        reply = yield from ask(
            [
                {"role": "system", "content": REFLECT_INSTRUCTIONS},
                {"role": "user", "content": f"Request:\n{prompt}\n\nAnswer:\n{answer}"},
            ],
            "reflection",
            judge_llm(),
        )
        reflection, satisfactory = parse_reflection(reply.content)
        yield ReflectionEvent(
            run_id=run_id, round=rounds[0], reflection=reflection, satisfactory=satisfactory
        )
        if (satisfactory and rounds[0] >= minimum) or rounds[0] >= maximum:
            return Accept(answer)
        return Revise(f"Reflect on your answer and improve it: {reflection}")

    return check


class ReflectionMixin(HasParts):
    """The deprecated loose reflection attributes, read from ``spec.reflection``."""

    @property
    def self_reflect(self) -> bool:
        """Whether answers are reflected on (deprecated: read ``reflection``)."""
        return self.spec.reflection is not None

    @property
    def min_reflect(self) -> int:
        """``reflection.min_rounds``, or 1 when off (deprecated: read ``reflection``)."""
        return (self.spec.reflection or ReflectionConfig()).min_rounds

    @property
    def max_reflect(self) -> int:
        """``reflection.max_rounds``, or 3 when off (deprecated: read ``reflection``)."""
        return (self.spec.reflection or ReflectionConfig()).max_rounds

    @property
    def reflect_llm(self) -> str | LLMConfig | None:
        """``reflection.llm``, or None when off (deprecated: read ``reflection``)."""
        return None if self.spec.reflection is None else self.spec.reflection.llm
