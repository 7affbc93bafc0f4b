"""What never leaves the machine or reaches the store: secrets.

- ``redact``: secret redaction, field limits and the store's write gate (``gate_params``);
- ``secret_formats``: provider token formats (gitleaks' rules as data in
  ``secret_formats.json``, MIT: ``secret_formats.LICENSE``), found by keyword.

Standard library only: hooks redact what they store.
"""
