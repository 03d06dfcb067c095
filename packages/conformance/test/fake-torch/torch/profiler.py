"""torch.profiler of the fake torch: importable, so a test can see whether the script imports it."""
