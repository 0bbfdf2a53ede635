"""Model calls: the dispatcher and tool loop, recovery, usage and cost, capabilities."""
