"""The real-model tests run their servers inside the pytest process (keep-alive 0)
and keep any warm-server state in a temporary folder, so no test reuses or stops
a developer's warm server and none is left running when pytest ends."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from praisonlike.models.local.state_file import STATE_DIR_ENV
from praisonlike.models.local.warm_server import KEEP_ALIVE_ENV, stop_servers


@pytest.fixture(scope="session", autouse=True)
def in_process_local_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("local-servers")
    saved = {name: os.environ.get(name) for name in (STATE_DIR_ENV, KEEP_ALIVE_ENV)}
    os.environ[STATE_DIR_ENV] = str(folder)
    os.environ[KEEP_ALIVE_ENV] = "0"
    try:
        yield folder
    finally:
        stop_servers()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
