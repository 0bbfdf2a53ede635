"""The shape of one turn: how deep an event travels and how many modules a turn touches.

Runs a one-tool ``chat()`` turn (a tool call, then the answer) against a
scripted ``LocalLLMServer`` over HTTP on 127.0.0.1, after a warm-up turn, and
reports:

* **frames from the loop to ``chat()``**: when the step machine yields the
  turn's ``ToolCallEvent``, the number of frames between the generator frame
  that yielded it and the agent's ``chat`` frame that receives it;
* **files**: the distinct ``praisonlike`` source files whose functions ran
  during the measured turn;
* **package figures**: lines of ``praisonlike/``, its largest module, and the
  number of modules.

Not a timed benchmark (nothing here depends on the machine's speed). Point
``--package`` at another checkout's ``praisonlike`` directory to compare two
revisions; run it with that checkout first on ``PYTHONPATH``::

    PYTHONPATH=/tmp/base .venv/bin/python benchmarks/turn_shape.py --package /tmp/base/praisonlike
"""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path
from typing import Any

from praisonlike import Agent
from praisonlike.events import ToolCallEvent
from praisonlike.testing import Call, LocalLLMServer, Text, ToolCalls


def get_time(city: str) -> str:
    """The local time in a city.

    Args:
        city: The city's name.
    """
    return f"12:00 in {city}"


class TurnProbe:
    """A profile function that records the files run and the event's depth."""

    def __init__(self, package: Path) -> None:
        self.package = str(package.resolve())
        self.files: set[str] = set()
        self.depth: int | None = None
        self.path: list[str] = []

    def __call__(self, frame: types.FrameType, event: str, arg: Any) -> None:
        filename = frame.f_code.co_filename
        if event == "call" and filename.startswith(self.package):
            self.files.add(filename)
        elif event == "return" and self.depth is None and isinstance(arg, ToolCallEvent):
            self._measure(frame)

    def _measure(self, frame: types.FrameType) -> None:
        chain: list[str] = []
        current: types.FrameType | None = frame
        while current is not None:
            code = current.f_code
            chain.append(f"{Path(code.co_filename).name}:{code.co_name}")
            if code.co_name == "chat" and code.co_filename.endswith("chat.py"):
                self.depth = len(chain) - 1
                self.path = chain
                return
            current = current.f_back


def measure_turn(package: Path) -> TurnProbe:
    with LocalLLMServer() as server:
        agent = Agent(instructions="You tell the time.", llm=server.llm_config(), tools=[get_time])
        server.extend([ToolCalls([Call("get_time", {"city": "Oslo"})]), Text("It is noon.")])
        agent.chat("What time is it in Oslo?")
        server.extend([ToolCalls([Call("get_time", {"city": "Rome"})]), Text("It is noon.")])
        probe = TurnProbe(package)
        sys.setprofile(probe)
        try:
            agent.chat("And in Rome?")
        finally:
            sys.setprofile(None)
    return probe


def package_figures(package: Path) -> tuple[int, int, tuple[str, int]]:
    sizes = {
        str(path.relative_to(package.parent)): len(path.read_text().splitlines())
        for path in package.rglob("*.py")
    }
    largest = max(sizes.items(), key=lambda item: item[1])
    return sum(sizes.values()), len(sizes), largest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__import__("praisonlike").__file__).parent
    parser.add_argument("--package", type=Path, default=default)
    parser.add_argument("--show", action="store_true", help="print the frames and the files")
    args = parser.parse_args()
    probe = measure_turn(args.package)
    lines, modules, (largest, largest_lines) = package_figures(args.package)
    print(f"package: {args.package}")
    print(f"frames from the loop's ToolCallEvent to chat(): {probe.depth}")
    print(f"praisonlike files a one-tool chat() turn runs: {len(probe.files)}")
    print(f"package lines: {lines} in {modules} modules; largest {largest} ({largest_lines})")
    if args.show:
        print("frames (innermost first):", " <- ".join(probe.path))
        for name in sorted(probe.files):
            print("  ", Path(name).relative_to(args.package.parent))


if __name__ == "__main__":
    main()
