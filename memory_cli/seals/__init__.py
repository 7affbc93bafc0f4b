"""Records of what memory-cli last wrote outside its store (its own code, the settings that
decide enforcement), so a change made by anything else is said at the next SessionStart and by
``doctor`` instead of silently changing what the gate does."""
