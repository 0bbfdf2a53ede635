"""Talking to models: configuration, transports, errors, capabilities, prices and usage.

:mod:`.config` (``LLMConfig``, ``ExecutionConfig``) and :mod:`.usage`
(``Usage``) are public and exported by :mod:`praisonlike`; :mod:`.local`
runs the bundled local model. :mod:`.transport` picks the openai SDK
(:mod:`.openai_wire`) or LiteLLM (:mod:`.litellm_backend`, the one module
that imports it); :mod:`.codec` builds requests and reads replies;
:mod:`.error_classification` turns any failure into a typed error.
"""
