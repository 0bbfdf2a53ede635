"""The environment variables that name the default model, and the note an error about
a model carries when one of them holds its name.

A name set in a shell profile long ago is easy to forget: an error about a
model name (``UnknownModelError``, an unknown local model) that one of these
variables holds says so, whoever passed the name on (an agent without
``llm``, the ``praisonlike`` command, an application reading the variable).
"""

from __future__ import annotations

import os

MODEL_VARIABLES: tuple[str, ...] = ("PRAISONLIKE_MODEL", "OPENAI_MODEL_NAME")
"""Read in this order by an agent without ``llm``; a blank value counts as unset."""


def variable_holding(model: str) -> str | None:
    """The first of :data:`MODEL_VARIABLES` whose value (spaces stripped) is ``model``."""
    for variable in MODEL_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:
            return variable if value == model else None
    return None


def origin_note(model: str) -> str:
    """`` (PRAISONLIKE_MODEL is set to this name: correct or unset it, or name the
    model explicitly)`` when :func:`variable_holding` finds one, else ``""``."""
    variable = variable_holding(model)
    if variable is None:
        return ""
    return f" ({variable} is set to this name: correct or unset it, or name the model explicitly)"
