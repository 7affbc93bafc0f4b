"""Session reports: what a session did, kept per scope so the next session starts from it."""
