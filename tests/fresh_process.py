"""Running a short script in a fresh interpreter with no provider key set, to see
what a first command does before anything (LiteLLM above all) is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def fresh_python(
    script: str, home: Path | str, *, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``python -c`` in ``home`` (also its ``HOME``), with no
    ``*_API_KEY`` / ``*_AUTH_TOKEN`` variable, no forced transport and no warm-up."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_AUTH_TOKEN")) and k != "PRAISONLIKE_TRANSPORT"
    }
    env.update(HOME=str(home), PRAISONLIKE_NO_WARMUP="1")
    return subprocess.run(
        [sys.executable, "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=str(home),
    )
