"""The store: the SQLite file and what keeps it whole.

- ``db``: ``Store``, the apsw connection (WAL, busy timeout, transactions, the redaction gate);
- ``migrations``: the numbered schema migrations applied when the store is opened;
- ``kvstate``: the ``kv`` table, small state without a table of its own;
- ``spool``: writes a hook could not make while another process held the write lock;
- ``locks``: advisory file locks that die with their holder;
- ``health``: the file's own state for ``doctor`` (integrity, schema version, journal mode).

The bottom layer: nothing here imports a module above the shared helpers.
"""
