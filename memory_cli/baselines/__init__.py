"""Metric baselines: samples of a named metric, and whether a new value is normal for it."""
