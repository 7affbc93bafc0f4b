"""Session reports: a few lines on what a session did, so the next session in the project
starts from there instead of from nothing."""
