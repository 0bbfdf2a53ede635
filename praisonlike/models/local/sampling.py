"""The sampling settings of a local model's text-only replies.

A local model decodes greedily (temperature 0, see
:func:`~praisonlike.models.local.server.with_local_defaults`), and the 0.5B model
then repeats its paragraphs until the token cap. A request whose reply can only
be text (no tool offered, no structured answer asked for) therefore carries
llama.cpp's repetition penalty, the one Qwen2.5's own generation settings use.
A round that offers tools does not: a call's arguments, and an answer that
quotes a tool's result, must copy words verbatim, which the penalty (over the
prompt too) discourages: with it the model wrote a tool's ``2026-11-30`` as
``November 30, 2026``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from praisonlike.models.capabilities import model_features
from praisonlike.models.config import LLMConfig

TEXT_SAMPLING: Mapping[str, Any] = {"repeat_penalty": 1.1, "repeat_last_n": 512}
"""What a text-only reply of a local model is sampled with (llama.cpp's names): asked
for a 400-word story, 7 distinct sentences of 28 and cut at 512 tokens without it;
11 of 11, finished at 428 tokens, with it."""


def for_text_reply(llm: LLMConfig, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` of a call to ``llm`` whose reply can only be text: a copy with
    :data:`TEXT_SAMPLING` in the request body (``extra_body``; keys already in
    ``params`` or ``llm.extra`` win) when ``llm`` runs on a llama.cpp server
    praisonlike started (the ``local_server`` model feature); ``params`` itself,
    not copied, otherwise."""
    if not model_features(llm.model, llm.features).local_server:
        return params
    return {**params, "extra_body": {**TEXT_SAMPLING, **llm.extra_body(params)}}


__all__ = ["TEXT_SAMPLING", "for_text_reply"]
