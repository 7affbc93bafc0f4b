"""What the tests share besides fixtures: running the CLI and hooks as Claude Code does, payloads
and transcripts shaped like its own, stand-ins for the services memory-cli talks to, and waiting
on other processes.

Tests import these by module (``from helpers.cli import run_cli``): ``tests/`` is on the import
path because pytest puts the folder of the top ``conftest.py`` there. Fixtures stay in
``conftest.py``, which imports what it needs from here; no test imports from a ``conftest``
(``tests/test_architecture.py`` checks it)."""
