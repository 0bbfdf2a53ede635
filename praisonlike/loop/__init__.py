"""The tool loop: a turn as a sans-I/O step machine, and the drivers that perform its I/O.

Read in this order: :mod:`.run` (one Run: input, driver, outcome),
:mod:`.turn_spec` (what the loop is given), :mod:`.tool_loop` (the rounds of a
turn), :mod:`.model_round` with :mod:`.round_context` and :mod:`.round_base`
(one model call until it answers), :mod:`.recovery` (what to do about a
failure), :mod:`.commands` (what the loop asks its drivers to do), then the
drivers, :mod:`.drivers` and :mod:`.async_driver`. Internal: nothing here is
part of the public API; the :class:`~praisonlike.Agent` entry points are.
"""
