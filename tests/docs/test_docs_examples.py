"""Every ```python block of README.md and docs/*.md runs, and every link resolves.

The convention, for whoever writes docs:

* Each block runs in a fresh module named ``docs_example`` (not ``__main__``), in an
  empty temporary working directory, with ``HOME`` and ``PRAISONLIKE_HOME`` inside
  it, ``PRAISONLIKE_ALLOW_MODEL_REQUESTS=0``, and this interpreter's ``python``
  first on ``PATH``.
* ``server`` is a started :class:`~praisonlike.testing.LocalLLMServer` with an empty
  script, and the bundled local model is pointed at it: a block that uses
  ``llm="local"``, or no ``llm`` at all (``PRAISONLIKE_MODEL=local`` is set), runs
  as written, answered by ``server``'s script.
* HTML comments directly above a block (blank lines between them are fine; they
  are invisible on the rendered page) adjust how it runs:

  - ``<!-- setup: CODE -->`` runs CODE first, in the block's namespace; CODE may
    span lines. Use it to script ``server`` (``server.add(Text("..."))``) and to
    define what a fragment assumes (an ``agent``, a ``store``, ...).
  - ``<!-- continue -->`` runs the block in the previous block's namespace (same
    ``server``), for a page that builds on an earlier block.
  - ``<!-- expect: TEXT -->`` the block's output must contain TEXT (repeatable).
  - ``<!-- needs: MODULE -->`` the block is skipped when MODULE cannot be imported.
  - ``<!-- no-run: REASON -->`` the block is only compiled: it needs what a test
    cannot have (a provider key, a database server, the real local model).

* Top-level ``test_*`` functions a block defines are called after it; a parameter
  named ``llm_server`` gets a fresh started LocalLLMServer, as the pytest fixture.
* After the blocks, ``server.errors`` must be empty (no request went unanswered).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import textwrap
import types
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from praisonlike.testing import LocalLLMServer

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKERS = {"setup", "continue", "expect", "needs", "no-run"}
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
ANY_PYTHON_FENCE = re.compile(r"^[ \t]*```[ \t]*py", re.MULTILINE | re.IGNORECASE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@dataclass
class Block:
    page: Path
    line: int
    code: str
    setup: list[str] = field(default_factory=list)
    expect: list[str] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    no_run: str | None = None
    continues: bool = False

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def _markers(before: str) -> list[tuple[str, str]]:
    """The (key, value) of the HTML comments at the end of ``before``, in page order."""
    found: list[tuple[str, str]] = []
    text = before.rstrip()
    while text.endswith("-->") and "<!--" in text:
        start = text.rfind("<!--")
        body = text[start + 4 : -3]
        key, _, value = body.strip().partition(":")
        found.append((key.strip().lower(), value))
        text = text[:start].rstrip()
    return found[::-1]


def parse_blocks(page: Path, text: str | None = None) -> list[Block]:
    """The python blocks of ``page`` (or of ``text``) with their markers.

    Unknown markers are an error.
    """
    if text is None:
        text = page.read_text(encoding="utf-8")
    blocks: list[Block] = []
    previous_end = 0
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        block = Block(page, line, match.group(1))
        for key, value in _markers(text[previous_end : match.start()]):
            if key not in MARKERS:
                raise ValueError(f"{block.where}: unknown docs-test marker {key!r}")
            if key == "setup":
                block.setup.append(textwrap.dedent(value.strip("\n")).strip())
            elif key == "expect":
                block.expect.append(value.strip())
            elif key == "needs":
                block.needs.append(value.strip())
            elif key == "no-run":
                block.no_run = value.strip() or "no reason given"
            else:
                block.continues = True
        blocks.append(block)
        previous_end = match.end()
    fences = len(ANY_PYTHON_FENCE.findall(text))
    if fences != len(blocks):
        raise ValueError(
            f"{page.relative_to(ROOT)}: {fences} python fences but {len(blocks)} runnable blocks; "
            "start each block with a line that is exactly ```python, at column 0"
        )
    return blocks


def chains() -> list[list[Block]]:
    """Blocks grouped so each ``continue`` block runs after the ones it builds on."""
    grouped: list[list[Block]] = []
    for page in PAGES:
        for block in parse_blocks(page):
            if block.continues:
                if not grouped or grouped[-1][0].page != page:
                    raise ValueError(f"{block.where}: 'continue' without an earlier block")
                grouped[-1].append(block)
            else:
                grouped.append([block])
    return grouped


CHAINS = chains()


def _compile(block: Block, code: str, label: str = "") -> Any:
    name = f"<{block.where}{label}>"
    return compile(code, name, "exec", dont_inherit=True)


def _test_functions(block: Block, namespace: dict[str, Any]) -> list[Any]:
    name = f"<{block.where}>"
    return [
        value
        for key, value in namespace.items()
        if key.startswith("test_")
        and inspect.isfunction(value)
        and value.__code__.co_filename == name
    ]


def _call_test(function: Any, stack: ExitStack) -> None:
    arguments: dict[str, Any] = {}
    for parameter in inspect.signature(function).parameters:
        if parameter != "llm_server":
            raise ValueError(f"{function.__name__}: no docs fixture named {parameter!r}")
        arguments[parameter] = stack.enter_context(LocalLLMServer())
    function(**arguments)


@pytest.fixture
def docs_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalLLMServer]:
    """The working directory, environment and ``server`` every block runs with."""
    import praisonlike.models.local

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PRAISONLIKE_HOME", str(tmp_path / "home" / ".praisonlike"))
    monkeypatch.setenv("PRAISONLIKE_ALLOW_MODEL_REQUESTS", "0")
    monkeypatch.setenv("PRAISONLIKE_MODEL", "local")
    python_folder = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([python_folder, os.environ.get("PATH", "")]))
    with LocalLLMServer() as server:
        monkeypatch.setattr(
            praisonlike.models.local,
            "local_endpoint",
            lambda model: ("openai/test-model", server.url),
        )
        yield server


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _chain_id(chain: list[Block]) -> str:
    more = f"+{len(chain) - 1}" if len(chain) > 1 else ""
    return chain[0].where + more


@pytest.mark.parametrize("chain", CHAINS, ids=[_chain_id(c) for c in CHAINS])
def test_docs_block_runs(
    chain: list[Block],
    docs_sandbox: LocalLLMServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for block in chain:
        _compile(block, block.code)
    if chain[0].no_run is not None:
        return
    for block in chain:
        if block.no_run is not None:
            raise ValueError(f"{block.where}: a 'continue' block cannot be 'no-run'")
        for needed in block.needs:
            if not _importable(needed):
                pytest.skip(f"{block.where} needs {needed}")
    module = types.ModuleType("docs_example")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace = module.__dict__
    namespace["server"] = docs_sandbox
    with ExitStack() as stack:
        for block in chain:
            for n, code in enumerate(block.setup):
                exec(_compile(block, code, f" setup {n + 1}"), namespace)
            exec(_compile(block, block.code), namespace)
            for function in _test_functions(block, namespace):
                _call_test(function, stack)
            output = capsys.readouterr().out
            missing = [text for text in block.expect if text not in output]
            assert not missing, f"{block.where} did not print {missing}; it printed:\n{output}"
    assert docs_sandbox.errors == [], f"{chain[0].where}: {docs_sandbox.errors}"


def test_markers_attach_to_the_block_below_them() -> None:
    text = (
        "<!-- ordinary: comment, followed by text -->\ntext\n\n<!-- setup:\n    x = 1\n"
        "    y = 2\n-->\n\n<!-- expect: 3 -->\n```python\nprint(x + y)\n```\n\n"
        "<!-- continue -->\n<!-- needs: yaml -->\n```python\nprint(x)\n```\n"
        "<!-- no-run: needs a key -->\n```python\nboom()\n```\n"
    )
    first, second, third = parse_blocks(ROOT / "README.md", text)
    assert (first.line, first.code, first.setup, first.expect) == (
        10,
        "print(x + y)\n",
        ["x = 1\ny = 2"],
        ["3"],
    )
    assert not first.continues and first.no_run is None
    assert second.continues and second.needs == ["yaml"] and second.setup == []
    assert third.no_run == "needs a key" and not third.continues
    with pytest.raises(ValueError, match="unknown docs-test marker 'note'"):
        parse_blocks(ROOT / "README.md", "<!-- note: hi -->\n```python\npass\n```\n")
    with pytest.raises(ValueError, match="2 python fences but 1 runnable blocks"):
        indented = "```python\npass\n```\n1. step\n   ```python\n   x\n   ```\n"
        parse_blocks(ROOT / "README.md", indented)


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [target for target in LINK.findall(text) if "://" not in target]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in _links(page):
        path = target.split("#", 1)[0]
        if path.startswith("mailto:") or not path:
            continue
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, f"{page.name} links to missing files: {broken}"


@pytest.mark.parametrize("index", ["README.md", "docs/index.md"])
def test_every_docs_page_is_linked(index: str) -> None:
    page = ROOT / index
    linked = {(page.parent / t.split("#", 1)[0]).resolve() for t in _links(page)}
    pages = {p.resolve() for p in (ROOT / "docs").glob("*.md")} - {page.resolve()}
    missing = sorted(p.name for p in pages - linked)
    assert not missing, f"{index} does not link to {missing}"
