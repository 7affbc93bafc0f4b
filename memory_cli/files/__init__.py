"""Files memory-cli writes outside the store, and how it trusts what it reads back.

- ``safe_write``: a file outside memory-cli's own folders (settings, CLAUDE.md, native rule
  copies): a new temporary file under a random name, its real path checked, fsync, replace;
- ``private_file``: a cache file beside the store (rule set, compiled regexes), mode 0600;
- ``cache_seal``: the digest of each cache file kept in the store, so a hook reads only a
  cache memory-cli wrote;
- ``regex_cache``: memory-cli's own regular expressions compiled once per machine.

Standard library only: the hook path reads the caches.
"""
