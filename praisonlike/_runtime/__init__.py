"""Private runtime support: cancellation, worker threads, lazy imports, loggers, progress."""
