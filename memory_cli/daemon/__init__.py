"""The embedding daemon: one resident process per user that holds the model.

Loading PyTorch and the model costs seconds and ~500 MB, which no hook can pay on every tool
call. The daemon pays it once; hooks ask it over a Unix socket with a hard time limit
(:mod:`.client`, standard library only) and fall back to keyword search when it is cold.
"""
