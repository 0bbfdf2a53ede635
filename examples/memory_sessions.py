"""Sessions and state: a conversation that outlives the agent (and the process).

With ``session_id`` every turn is stored (here in a throwaway SQLite file); a new
agent on the same session starts from its history and its long-term summary,
which is updated on a background thread after each answered turn.
``save_state()`` / ``Agent.load_state()`` move a conversation as plain JSON.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from example_llm import example_llm

from praisonlike import Agent, MemoryConfig
from praisonlike.memory import atomic_write_json, read_json
from praisonlike.testing import RecordedRequest, Text

SESSION = "user-42"


def scripted_model(request: RecordedRequest) -> Text:
    """Answers from what it was sent, so it shows what the agent remembered."""
    messages = request.messages
    if str(messages[0]["content"]).startswith("You maintain the long-term memory"):
        return Text("The user is Ada; she likes sailing.")
    question = str(messages[-1]["content"])
    earlier = " ".join(str(m["content"]) for m in messages[:-1] if m["role"] == "user")
    if "my name?" in question:
        known = "name is Ada" in earlier
        return Text("Your name is Ada." if known else "I don't know your name yet.")
    return Text("Nice to meet you, Ada!")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, example_llm(default=scripted_model) as llm:
        memory = MemoryConfig(store=Path(folder) / "sessions.db")
        with Agent(
            instructions="You are friendly.", llm=llm, session_id=SESSION, memory=memory
        ) as first:
            print("first agent:", first.chat("Hi! My name is Ada and I like sailing."))

        with Agent(
            instructions="You are friendly.", llm=llm, session_id=SESSION, memory=memory
        ) as second:
            print("second agent:", second.chat("What is my name?"))
            print(f"long-term summary: {second.summary}")
            store = second.store
            assert store is not None
            for turn in store.load_turns(SESSION):
                print(f"stored turn [{turn.status.value}]: {turn.query!r} -> {turn.answer!r}")
            state_file = Path(folder) / "state" / "agent.json"
            atomic_write_json(state_file, second.save_state())

        restored = Agent.load_state(
            read_json(state_file), instructions="You are friendly.", llm=llm
        )
        print(f"restored from {state_file.name}: {len(restored.chat_history)} messages of history")


if __name__ == "__main__":
    main()
