"""ReflectionMixin: the model rates its own answer and improves it.

With ``self_reflect=True`` each answer is rated by the model (or ``reflect_llm``,
a model string or a full configuration, called as a fallback would be: see
:func:`praisonlike.agent.model_resolution.named_llm`) as JSON
``{"reflection": ..., "satisfactory": true|false}``. An unsatisfactory
answer is regenerated with the reflection as feedback, until it is
satisfactory and at least ``min_reflect`` rounds ran, or ``max_reflect`` rounds
ran. Every reflection call counts in usage and cost and emits a ``reflection``
event.

Uses from ``self``: ``self_reflect``, ``min_reflect``, ``max_reflect``, ``reflect_llm``,
``llm_config``.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from praisonlike.agent.structured_output import extract_json_text
from praisonlike.llm.answer_checks import Accept, AnswerCheck, Ask, Revise

if TYPE_CHECKING:
    from praisonlike.llm.config import LLMConfig

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


class ReflectionMixin:
    self_reflect: bool
    min_reflect: int
    max_reflect: int
    reflect_llm: str | LLMConfig | None
    llm_config: LLMConfig | None

    def _reflection_check(self, prompt: str, run_id: str) -> AnswerCheck | None:
        if not self.self_reflect:
            return None
        from praisonlike.events import ReflectionEvent

        rounds = [0]
        minimum, maximum = self.min_reflect, self.max_reflect
        judge: list[LLMConfig | None] = []

        def judge_llm() -> LLMConfig | None:
            if not judge:
                from praisonlike.agent.model_resolution import named_llm

                named = self.reflect_llm
                judge.append(None if named is None else named_llm(self.llm_config, named))
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
