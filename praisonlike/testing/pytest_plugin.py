"""The ``llm_server`` pytest fixture: a started :class:`LocalLLMServer` per test.

Installing praisonlike registers this module as the pytest plugin
``praisonlike`` (a ``pytest11`` entry point), so the fixture is available in
every test without imports. With plugin autoloading disabled
(``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``) enable it with ``-p praisonlike``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from praisonlike.testing.server import LocalLLMServer


@pytest.fixture
def llm_server() -> Iterator[LocalLLMServer]:
    """A running server with an empty script; stopped after the test."""
    with LocalLLMServer() as server:
        yield server
