"""A separate process for the concurrency and crash tests (run as a script).

    store_worker.py turns PATH CONVERSATION COUNT SEED   write COUNT turns, print "done"
    store_worker.py turns-forever PATH CONVERSATION SEED write turns until killed
    store_worker.py json-forever PATH                    rewrite a JSON file until killed

Every turn's answer is ``steps=<n>`` where n is its number of steps, so a
reader can tell a complete turn from a half-written one. The forever modes
print "ready" once the first write is done.
"""

from __future__ import annotations

import random
import sys
import time
import uuid

from praisonlike.memory import MessageStatus, SQLiteStore, StepRecord, TurnRecord
from praisonlike.memory.state_file import atomic_write_json


def random_turn(rng: random.Random, conversation_id: str) -> TurnRecord:
    n_steps = rng.randint(1, 12)
    steps = [
        StepRecord(
            position=position,
            event_type="tool_call",
            tool="echo",
            tool_input={"n": position},
            messages=[{"role": "user", "content": "x" * rng.randint(100, 4000)}],
            prompt_tokens=position,
        )
        for position in range(n_steps)
    ]
    return TurnRecord(
        id=uuid.uuid4().hex,
        conversation_id=conversation_id,
        query="q",
        answer=f"steps={n_steps}",
        status=MessageStatus.NORMAL,
        created_at=time.time(),
        steps=steps,
    )


def json_payload(index: int) -> dict[str, object]:
    return {"index": index % 2, "items": [f"{index % 2}-{i}" * 20 for i in range(5000)]}


def main(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "turns":
        path, conversation_id, count, seed = argv[1], argv[2], int(argv[3]), int(argv[4])
        rng = random.Random(seed)
        with SQLiteStore(path) as store:
            for _ in range(count):
                store.save_turn(random_turn(rng, conversation_id))
        print("done", flush=True)
    elif mode == "turns-forever":
        path, conversation_id, seed = argv[1], argv[2], int(argv[3])
        rng = random.Random(seed)
        store = SQLiteStore(path)
        store.save_turn(random_turn(rng, conversation_id))
        print("ready", flush=True)
        while True:
            store.save_turn(random_turn(rng, conversation_id))
    elif mode == "json-forever":
        path = argv[1]
        atomic_write_json(path, json_payload(0))
        print("ready", flush=True)
        index = 1
        while True:
            atomic_write_json(path, json_payload(index))
            index += 1
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
