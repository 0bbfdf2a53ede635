"""Structured answers: ``output_pydantic=Model`` and ``output_json=schema``.

When the model supports response schemas (per LiteLLM) the native
``response_format`` is sent; otherwise the schema goes into the system prompt,
and an endpoint that takes a grammar (the bundled local models) is held to it
while it writes (:mod:`praisonlike.react.grammar`).
Either way the answer is extracted (bare or fenced JSON) and validated; a
failure goes back to the model with the errors, up to ``output_retries``
times, then :class:`OutputValidationError` carries the last raw answer.
Turn assembly calls :func:`answer_policy`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from praisonlike.errors import ConfigurationError, OutputValidationError
from praisonlike.loop.answer_checks import Accept, AnswerCheck, Ask, Revise

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from praisonlike.models.capabilities import ModelFeatures

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def extract_json_text(answer: str) -> str:
    """The JSON inside an answer: the whole answer, a fenced block, or the outermost object."""
    text = answer.strip()
    if text.startswith(("{", "[")):
        return text
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        return text[start : end + 1]
    return text


@dataclass(frozen=True)
class OutputSpec:
    """What the answer must be: a pydantic model or a JSON schema."""

    schema: dict[str, Any]
    name: str
    model: type[BaseModel] | None = None

    def validate(self, answer: str) -> Any:
        """The validated output; raises ValueError with readable errors."""
        raw = extract_json_text(answer)
        if self.model is not None:
            from pydantic import ValidationError

            try:
                return self.model.model_validate_json(raw)
            except ValidationError as exc:
                raise ValueError(_pydantic_errors(exc)) from exc
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the answer is not valid JSON: {exc}") from exc
        _check_json_schema(value, self.schema)
        return value


def _pydantic_errors(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors()[:20]:
        where = ".".join(str(p) for p in error["loc"]) or "(root)"
        lines.append(f"- {where}: {error['msg']}")
    return "\n".join(lines)


def _check_json_schema(value: Any, schema: dict[str, Any]) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    problems = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if problems:
        lines = [
            f"- {'.'.join(str(p) for p in e.path) or '(root)'}: {e.message}" for e in problems[:20]
        ]
        raise ValueError("\n".join(lines))


def _check_schema(schema: dict[str, Any]) -> None:
    """Raise ConfigurationError for a schema the JSON Schema metaschema refuses
    (``{"type": "nonsense"}``): no answer could be checked against it."""
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        raise ConfigurationError(
            f"output_json is not a valid JSON schema: at {where}: {exc.message}"
        ) from None


def output_spec(output_pydantic: Any, output_json: Any) -> OutputSpec | None:
    if output_pydantic is not None and output_json is not None:
        raise ConfigurationError("pass output_pydantic or output_json, not both")
    if output_pydantic is not None:
        from pydantic import BaseModel

        if not (isinstance(output_pydantic, type) and issubclass(output_pydantic, BaseModel)):
            raise ConfigurationError("output_pydantic must be a pydantic BaseModel subclass")
        return OutputSpec(
            schema=output_pydantic.model_json_schema(),
            name=output_pydantic.__name__,
            model=output_pydantic,
        )
    if output_json is not None:
        if not isinstance(output_json, dict):
            raise ConfigurationError("output_json must be a JSON schema dict")
        _check_schema(output_json)
        return OutputSpec(schema=output_json, name=str(output_json.get("title", "output")))
    return None


def schema_instruction(spec: OutputSpec) -> str:
    return (
        "## Answer format\nYour final answer must be only a JSON value matching this JSON "
        f"schema, with no other text:\n```json\n{json.dumps(spec.schema, indent=1)}\n```"
    )


class AnswerPolicy(NamedTuple):
    """How a turn asks for, and checks, a structured answer (all empty for a text answer)."""

    check: AnswerCheck | None
    params: dict[str, Any]
    """Extra call parameters: the native ``response_format`` where the model takes one."""
    instruction: str
    """The system-prompt addition that shows the schema."""
    schema: dict[str, Any] | None
    """The JSON schema the answer must match."""


def answer_policy(
    output_pydantic: Any, output_json: Any, retries: int, features: ModelFeatures
) -> AnswerPolicy:
    """The policy for a turn asking for ``output_pydantic`` or ``output_json``,
    retrying a failed validation ``retries`` times."""
    spec = output_spec(output_pydantic, output_json)
    if spec is None:
        return AnswerPolicy(None, {}, "", None)
    retries_left = [retries]

    def check(answer: str, ask: Ask) -> Accept | Revise:
        try:
            return Accept(spec.validate(answer))
        except ValueError as exc:
            if retries_left[0] <= 0:
                raise OutputValidationError(
                    f"the answer did not validate against {spec.name}:\n{exc}",
                    raw_output=answer,
                    errors=str(exc),
                ) from exc
            retries_left[0] -= 1
            return Revise(
                f"Your answer did not match the required schema:\n{exc}\n"
                "Answer again with only the corrected JSON."
            )

    params: dict[str, Any] = {}
    if features.response_schema:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": _schema_name(spec.name), "schema": spec.schema},
        }
    return AnswerPolicy(check, params, schema_instruction(spec), spec.schema)


def _schema_name(name: str) -> str:
    cleaned = re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64]
    return cleaned or "output"
