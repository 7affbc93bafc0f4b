"""The incident journal: what broke, how it showed, why, and what fixed it."""
