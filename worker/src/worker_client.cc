// Filled in by the worker client commit.
