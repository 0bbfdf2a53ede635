"""The set of tools offered to the model in a turn."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from praisonlike.errors import ConfigurationError

if TYPE_CHECKING:
    from praisonlike.tools.python_tool import AnyTool


@runtime_checkable
class ToolProvider(Protocol):
    """An object that stands for several tools (e.g. ``MCPTools``), listed when first needed."""

    def as_tools(self) -> Sequence[Any]:
        """The tools, each an entry :func:`as_tool` accepts."""
        ...


def _is_provider(entry: Any) -> bool:
    return isinstance(entry, ToolProvider) and not isinstance(entry, type)


class ToolRegistry:
    """Tools by name, offered in a deterministic order (sorted by name).

    Every entry goes through :func:`~praisonlike.tools.python_tool.as_tool`,
    except a :class:`ToolProvider` (an object with ``as_tools()``): it is
    expanded into its tools on the first lookup (``names``, ``get``,
    ``schemas``, ``len``, ``in``, iteration), not at construction, so building
    an agent never starts a tool server. An error of ``as_tools()`` propagates
    from that lookup and the next lookup tries again.

    Raises:
        ConfigurationError: (a ``ValueError``) two tools share a name; the
            message names it.
        TypeError: an entry is not a tool (from ``as_tool``).
    """

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        self._schemas: list[dict[str, Any]] | None = None
        self._providers: list[ToolProvider] = []
        self._pending: list[ToolProvider] = []
        self._expand_lock = threading.Lock()
        for entry in tools:
            if _is_provider(entry):
                self._providers.append(entry)
                self._pending.append(entry)
            else:
                self.register(entry)

    def register(self, entry: Any) -> AnyTool:
        """Add one tool (normalised with ``as_tool``) and return it.

        Raises:
            ConfigurationError: a tool with the same name is already registered.
        """
        from praisonlike.tools.python_tool import as_tool

        normalised = as_tool(entry)
        if normalised.name in self._tools:
            raise ConfigurationError(
                f"duplicate tool name '{normalised.name}': each tool needs a unique name "
                "(pass name=... to @tool to rename one)"
            )
        self._tools[normalised.name] = normalised
        self._schemas = None
        return normalised

    def _expand(self) -> None:
        if not self._pending:
            return
        with self._expand_lock:
            while self._pending:
                for entry in self._pending[0].as_tools():
                    self.register(entry)
                self._pending.pop(0)

    @property
    def providers(self) -> list[ToolProvider]:
        """The :class:`ToolProvider` entries given to this registry, expanded or not."""
        return list(self._providers)

    @property
    def names(self) -> list[str]:
        """The registered names, sorted."""
        self._expand()
        return sorted(self._tools)

    def get(self, name: str) -> AnyTool | None:
        """The tool called ``name``, or ``None`` if no such tool is registered."""
        self._expand()
        return self._tools.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        """``openai_schema()`` of every tool, sorted by name.

        Built once and reused until a tool is registered; the list is a fresh
        copy each call, the schema dicts inside are shared and must not be mutated.
        """
        self._expand()
        if self._schemas is None:
            self._schemas = [self._tools[name].openai_schema() for name in self.names]
        return list(self._schemas)

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        """A new registry with only the tools called ``names``; unknown names are ignored."""
        wanted = set(names)
        return ToolRegistry(self._tools[name] for name in self.names if name in wanted)

    def with_tools(self, extra: Iterable[Any]) -> ToolRegistry:
        """A new registry with these tools plus ``extra``; this one is unchanged.

        Raises:
            ConfigurationError: an extra tool's name is already taken.
        """
        return ToolRegistry([*self._tools.values(), *self._pending, *extra])

    def __len__(self) -> int:
        self._expand()
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        self._expand()
        return isinstance(name, str) and name in self._tools

    def __iter__(self) -> Iterator[AnyTool]:
        return iter([self._tools[name] for name in self.names])

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names!r})"
