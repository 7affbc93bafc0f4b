"""Rules and memories committed with the repository, in ``.claude/memory-cli.toml``.

``share``/``unshare`` write the file; every teammate's memory-cli loads it into the project's
scope when it changed (SessionStart and the commands that read memories), never on a tool
call. The file is reviewed in pull requests like code, because what it holds is enforced in
everyone's sessions.
"""
