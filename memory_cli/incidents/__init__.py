"""The incident journal: what broke, how it showed, why, and what fixed it, so that the next
time the same symptoms appear an agent (or a hook after a failed command) can ask "has this
happened before?" and get the resolution."""
