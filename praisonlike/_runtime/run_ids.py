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

_generator = random.Random()


def _reseed() -> None:
    _generator.seed()


os.register_at_fork(after_in_child=_reseed)


_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_SET = (0x4000 << 64) | (0x8000 << 48)
"""The version (4) and variant (RFC 4122) bits, as ``uuid.UUID(version=4)`` sets them."""


def new_run_id() -> str:
    """A fresh random id, as 32 lowercase hex digits (a version-4 UUID's ``hex``)."""
    return f"{_generator.getrandbits(128) & _CLEAR | _SET:032x}"
