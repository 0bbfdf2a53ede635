"""Imports of the modules that moved out of ``praisonlike.llm`` keep working, with a warning."""

from __future__ import annotations

import importlib
import sys

import pytest

import praisonlike
from praisonlike.llm import _MOVED, new_name


def _fresh_import(name: str) -> object:
    for loaded in [n for n in sys.modules if n == name or n.startswith(name + ".")]:
        del sys.modules[loaded]
    return importlib.import_module(name)


@pytest.mark.parametrize("old", sorted(_MOVED))
def test_every_old_module_path_imports_with_a_warning_naming_the_new_one(old: str) -> None:
    new = _MOVED[old]
    with pytest.warns(DeprecationWarning, match=f"moved to {new}"):
        module = _fresh_import(f"praisonlike.llm.{old}")
    target = importlib.import_module(new)
    public = [n for n in vars(target) if not n.startswith("__")]
    assert public
    for name in public:
        assert getattr(module, name) is getattr(target, name)


def test_documented_old_imports_give_the_same_objects() -> None:
    with pytest.warns(DeprecationWarning):
        config = _fresh_import("praisonlike.llm.config")
    assert config.LLMConfig is praisonlike.LLMConfig  # type: ignore[attr-defined]
    with pytest.warns(DeprecationWarning):
        warm = _fresh_import("praisonlike.llm.local.warm_server")
    from praisonlike.models.local.warm_server import endpoint_token

    assert warm.endpoint_token is endpoint_token  # type: ignore[attr-defined]


def test_a_name_that_never_lived_in_llm_is_not_invented() -> None:
    assert new_name("praisonlike.llm.no_such_module") is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("praisonlike.llm.no_such_module")


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("praisonlike.hooks", "HookEvent", "HookPoint"),
        ("praisonlike", "HookEvent", "HookPoint"),
        ("praisonlike.testing", "Usage", "ReportedUsage"),
        ("praisonlike.models.local", "LocalModelServer", "LlamaCppServer"),
    ],
)
def test_a_renamed_class_is_still_importable_by_its_old_name(
    module: str, old: str, new: str
) -> None:
    namespace = importlib.import_module(module)
    vars(namespace).pop(old, None)
    with pytest.warns(DeprecationWarning, match=new):
        value = getattr(namespace, old)
    assert value is getattr(namespace, new)


def test_hooks_registered_with_the_old_enum_name_still_run() -> None:
    from praisonlike import Agent
    from praisonlike.testing import LocalLLMServer, Text

    with pytest.warns(DeprecationWarning):
        from praisonlike.hooks import HookEvent  # type: ignore[attr-defined]
    seen: list[str] = []
    with LocalLLMServer([Text("hi")]) as server:
        agent = Agent(instructions="Be brief.", llm=server.llm_config(), memory=False)
        agent.on(HookEvent.BEFORE_LLM)(lambda context: seen.append(context.event.value))
        assert agent.chat("hello") == "hi"
    assert seen == ["before_llm"]
