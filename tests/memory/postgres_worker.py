"""Another process sharing the PostgreSQL store (run as a script); prints one JSON line.

postgres_worker.py handoff URL SCHEMA CONVERSATION
    load the conversation's turns, then save the next turn
    -> {"loaded": [turn ids], "saved": "<id>"}
postgres_worker.py request-stop URL SCHEMA CONVERSATION REQUESTER
    -> {"accepted": <signal id>} or {"refused": "<message>"}
"""

from __future__ import annotations

import json
import sys
import time

from praisonlike.memory import MessageStatus, StepRecord, TurnRecord
from praisonlike.memory.postgres_store import PostgresStore, StopRequestRefused


def handoff(store: PostgresStore, conversation_id: str) -> dict[str, object]:
    loaded = store.load_turns(conversation_id)
    turn = TurnRecord(
        id=f"from-worker-{len(loaded) + 1}",
        conversation_id=conversation_id,
        query="and tomorrow?",
        answer=f"answered after reading {len(loaded)} turn(s)",
        status=MessageStatus.NORMAL,
        model="worker-model",
        created_at=time.time(),
        steps=[StepRecord(position=0, event_type="llm_response", observation="ok")],
    )
    store.save_turn(turn)
    return {"loaded": [t.id for t in loaded], "saved": turn.id}


def request_stop(store: PostgresStore, conversation_id: str, requester: str) -> dict[str, object]:
    try:
        signal = store.request_stop(conversation_id, requester, reason="from the worker")
    except StopRequestRefused as exc:
        return {"refused": str(exc)}
    return {"accepted": signal.id}


def main(argv: list[str]) -> None:
    mode, url, schema, conversation_id = argv[:4]
    with PostgresStore(url, schema=schema) as store:
        if mode == "handoff":
            outcome = handoff(store, conversation_id)
        elif mode == "request-stop":
            outcome = request_stop(store, conversation_id, argv[4])
        else:
            raise SystemExit(f"unknown mode {mode!r}")
    print(json.dumps(outcome), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
