"""The Makefile's set-up steps, run by ``make`` on a copy of the Makefile and scripts,
with a stand-in interpreter that records what it is asked to do."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

RECORDING_PYTHON = """#!/bin/sh
echo "$*" >> "{log}"
"""

DEBIAN_PYTHON_WITHOUT_VENV = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin"
    echo "The virtual environment was not created successfully because ensurepip is not"
    echo "available.  On Debian/Ubuntu systems, you need to install the python3-venv"
    echo "package using the following command."
    exit 1
fi
if [ "$1" = "-m" ] && [ "$2" = "ensurepip" ]; then
    echo "ensurepip is disabled in Debian/Ubuntu for the system python." >&2
    exit 1
fi
exec {python} "$@"
"""


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def checkout(tmp_path: Path) -> Path:
    """The Makefile, its scripts and pyproject.toml, and nothing else."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(REPO / name, root / name)
    for script in (REPO / "scripts").glob("*.sh"):
        shutil.copy2(script, root / "scripts" / script.name)
    return root


def make(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=root,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_demo_then_test_installs_the_package_once(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    log = tmp_path / "python.log"
    executable(root / ".venv" / "bin" / "python", RECORDING_PYTHON.format(log=log))
    url = "postgresql://nobody@127.0.0.1:1/none"

    demo = make(root, "demo")
    assert demo.returncode == 0, demo.stderr
    tests = make(root, "test", "PYTEST_ARGS=tests/memory -x", PRAISONLIKE_TEST_POSTGRES_URL=url)
    assert tests.returncode == 0, tests.stderr

    calls = log.read_text().splitlines()
    installs = [call for call in calls if "pip install" in call and "-e" in call]
    assert installs == ['-m pip install --quiet -e .[dev,local]']
    assert calls[-1] == "-m pytest -q tests/memory -x"
    assert "PostgreSQL tests used the server of PRAISONLIKE_TEST_POSTGRES_URL" in tests.stdout


def test_a_python_without_ensurepip_gets_the_command_that_fixes_it(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    python = executable(
        tmp_path / "bin" / "python3", DEBIAN_PYTHON_WITHOUT_VENV.format(python=sys.executable)
    )
    result = make(root, "install", f"PYTHON={python}")
    assert result.returncode != 0
    version = "{}.{}".format(*sys.version_info[:2])
    ours = [line for line in result.stderr.splitlines() if "has no ensurepip" in line]
    assert len(ours) == 1 and f"python{version}-venv" in ours[0]
    if shutil.which("apt-get"):
        assert f"apt-get install python{version}-venv" in ours[0]
    assert not (root / ".venv").exists(), "a half-made venv would pass for a working one"
