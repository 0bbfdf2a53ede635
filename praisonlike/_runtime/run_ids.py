"""Run ids: random 128-bit ids made without a system call each.

``uuid.uuid4()`` reads ``os.urandom`` for every id, and that read gives the
GIL up: a turn opening while another thread holds work (LiteLLM's logging
thread finishing the previous call, say) can then wait up to a switch
interval to get it back. Here one generator, seeded from ``os.urandom`` when
this module is first imported and again in every forked child, makes the
ids. They have the form of version-4 UUIDs (32 hex digits) and the same odds
of colliding; they are identifiers, not secrets.
"""

from __future__ import annotations

import os
import random
import uuid

_generator = random.Random()


def _reseed() -> None:
    _generator.seed()


os.register_at_fork(after_in_child=_reseed)


def new_run_id() -> str:
    """A fresh random id, as 32 lowercase hex digits (a version-4 UUID's ``hex``)."""
    return uuid.UUID(int=_generator.getrandbits(128), version=4).hex
