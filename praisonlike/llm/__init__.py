"""Model calls: the run and its tool loop, recovery, usage and cost, capabilities."""
