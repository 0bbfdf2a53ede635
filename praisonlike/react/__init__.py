"""ReAct: tool calls written as text, for models without native tool calls.

:mod:`.prompt` teaches the protocol, :mod:`.parse` reads calls from a reply,
:mod:`.stream` keeps call text out of a streamed answer, :mod:`.call_faults`
recognises a failed attempt at a call, :mod:`.grammar` constrains a local
model's replies.
"""
