"""The Agent and its mixins, one concern each."""
