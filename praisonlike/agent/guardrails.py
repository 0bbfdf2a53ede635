"""Input review and output guardrails (``Agent(guardrails=GuardrailConfig(...))``).

Input review (the platform's "preset operation"): a query containing one of
``input_keywords`` (case-insensitive) gets ``preset_response`` without any LLM
call; the turn ends with termination reason ``guardrail_blocked``, and events
and history record it (a streamed turn shows it as a ``text_delta``).

Output guardrail: a callable ``(output) -> GuardrailResult`` (an async one is
awaited on the caller's loop under ``achat``, see
:mod:`praisonlike.loop.user_code`) or a string rule that the model judges. A
failed check regenerates the answer with the feedback, up to
``guardrail_retries`` times, then :class:`GuardrailError`. A
``fixed_output`` replaces the answer instead. With ``iter_stream`` the check
runs on the final answer: streamed text of a rejected answer is followed by
the regenerated answer's text (a ``text_delta`` of the next round).

Turn assembly calls :func:`preset_answer` and :func:`output_guardrail_check`.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from praisonlike._runtime.config_checks import is_int
from praisonlike.agent.structured_output import extract_json_text
from praisonlike.errors import ConfigurationError, ConfigurationTypeError, GuardrailError
from praisonlike.loop.answer_checks import Accept, AnswerCheck, Ask, Revise

JUDGE_INSTRUCTIONS = (
    "You check an assistant's answer against a rule. Reply with only a JSON object "
    '{"ok": true|false, "feedback": "what to change, if not ok"}.'
)


@dataclass(frozen=True)
class GuardrailResult:
    ok: bool
    feedback: str | None = None
    fixed_output: str | None = None


OutputGuardrail = Callable[[Any], GuardrailResult | Awaitable[GuardrailResult]] | str


@dataclass(frozen=True)
class GuardrailConfig:
    """Input review and the output guardrail (``Agent(guardrails=...)``); see the module.

    Raises :class:`~praisonlike.errors.ConfigurationError` for a negative
    ``guardrail_retries`` and :class:`~praisonlike.errors.ConfigurationTypeError`
    for a value of the wrong kind.
    """

    input_keywords: Sequence[str] = field(default_factory=tuple)
    preset_response: str = "Sorry, I can't help with that request."
    output: OutputGuardrail | None = None
    guardrail_retries: int = 2

    def __post_init__(self) -> None:
        retries = self.guardrail_retries
        if not is_int(retries):
            raise ConfigurationTypeError(
                f"invalid GuardrailConfig: guardrail_retries must be an int, got {retries!r}"
            )
        if retries < 0:
            raise ConfigurationError(
                f"invalid GuardrailConfig: guardrail_retries must be >= 0, got {retries}"
            )
        if self.output is not None and not (isinstance(self.output, str) or callable(self.output)):
            raise ConfigurationTypeError(
                "invalid GuardrailConfig: output must be a callable or a rule string"
            )
        keywords = self.input_keywords
        if not isinstance(keywords, str) and isinstance(keywords, Iterable):
            keywords = tuple(keywords)
            object.__setattr__(self, "input_keywords", keywords)
        if (
            isinstance(keywords, str)
            or not isinstance(keywords, tuple)
            or not all(isinstance(k, str) for k in keywords)
        ):
            raise ConfigurationTypeError(
                "invalid GuardrailConfig: input_keywords must be a list of strings "
                f"(['password', ...]), got {keywords!r}"
            )
        if not isinstance(self.preset_response, str) or not self.preset_response.strip():
            raise ConfigurationTypeError(
                "invalid GuardrailConfig: preset_response must be a non-empty str (the answer "
                f"to a blocked prompt), got {self.preset_response!r}"
            )

    def blocks(self, prompt: str) -> bool:
        lowered = prompt.lower()
        return any(k and k.lower() in lowered for k in self.input_keywords)


def _judge_verdict(text: str) -> GuardrailResult:
    try:
        data = json.loads(extract_json_text(text))
    except ValueError:
        return GuardrailResult(ok=False, feedback=f"the judge's reply was not JSON: {text[:200]}")
    if not isinstance(data, dict):
        return GuardrailResult(ok=False, feedback="the judge's reply was not a JSON object")
    return GuardrailResult(ok=bool(data.get("ok")), feedback=data.get("feedback") or None)


def output_guardrail_check(config: GuardrailConfig) -> AnswerCheck | None:
    """The answer check for ``config.output`` (fresh retry counter per turn)."""
    rule = config.output
    if rule is None:
        return None
    retries_left = [config.guardrail_retries]

    def verdict_of(answer: str, ask: Ask) -> Generator[Any, Any, GuardrailResult]:
        if isinstance(rule, str):
            reply = yield from ask(
                [
                    {"role": "system", "content": JUDGE_INSTRUCTIONS},
                    {"role": "user", "content": f"Rule: {rule}\n\nAnswer:\n{answer}"},
                ],
                "guardrail",
            )
            return _judge_verdict(reply.content)
        result: Any = rule(answer)
        if inspect.isawaitable(result):
            from praisonlike.loop.user_code import AwaitUserCode

            pending = AwaitUserCode(result)
            yield pending
            result = pending.result()
        if not isinstance(result, GuardrailResult):
            raise GuardrailError(
                f"the output guardrail returned {type(result).__name__}, not GuardrailResult"
            )
        return result

    def check(answer: str, ask: Ask) -> Generator[Any, Any, Accept | Revise]:
        result = yield from verdict_of(answer, ask)
        if result.ok:
            return Accept(answer)
        if result.fixed_output is not None:
            return Accept(result.fixed_output)
        if retries_left[0] <= 0:
            raise GuardrailError(f"the answer failed the output guardrail: {result.feedback}")
        retries_left[0] -= 1
        return Revise(
            f"Your answer was rejected: {result.feedback or 'it broke a rule'}. "
            "Answer again, fixing this."
        )

    return check


def preset_answer(config: GuardrailConfig | None, prompt: str) -> str | None:
    """The preset response when input review blocks ``prompt``, else ``None``."""
    if config is not None and config.blocks(prompt):
        return config.preset_response
    return None
