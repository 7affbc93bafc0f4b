"""Team memory on a PostgreSQL server: shared entries pushed and pulled by a detached sync.

The local SQLite store stays the only thing a hook reads. This package talks to the server
(``server``), decides what to push and how to apply what comes back (``sync``), and offers the
functions the CLI, the hooks' detached work and the sharing commands call (``api``). psycopg is
imported only inside :mod:`memory_cli.team.server`, and only when a sync or a team command runs.
"""
