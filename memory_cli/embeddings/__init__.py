"""Sentence embeddings for semantic retrieval.

Importing this package is free: the model and PyTorch are loaded only by
:func:`memory_cli.embeddings.model.load_model`, which only the embedding daemon and
``memory-cli reindex`` call. Hooks never load the model; they ask the daemon.
"""
