"""Metric baselines: samples of a named measurement (a test run's duration, a build's) and the
question "is this value normal for it?", answered only once there are enough samples."""
