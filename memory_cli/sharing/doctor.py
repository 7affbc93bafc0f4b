"""What `doctor` says about the repository's shared file: loaded or not, and its rules."""

from __future__ import annotations

import os


def doctor_checks(store, settings) -> list[dict]:
    from ..errors import InvalidInput
    from ..scope import find_project_root
    from . import api, path_for, repo_file

    checks = []
    root = find_project_root(os.getcwd())
    states = api.file_states(store)
    if root:
        path = path_for(root)
        try:
            data = repo_file.read_bytes(path)
        except InvalidInput as err:
            data = None
            checks.append(
                {"name": "shared file", "status": "fail", "detail": f"{err} (sessions keep the last good load)"}
            )
        if data is not None:
            loaded = (states.get(root) or {}).get("hash")
            try:
                n = len(repo_file.parse(data, path))
            except InvalidInput as err:
                checks.append(
                    {
                        "name": "shared file",
                        "status": "fail",
                        "detail": f"{err} (sessions keep the last good load; fix the file)",
                    }
                )
            else:
                fresh = loaded == repo_file.digest(data)
                checks.append(
                    {
                        "name": "shared file",
                        "status": "ok" if fresh else "warn",
                        "detail": f"{path}: {n} entries, "
                        + (
                            "loaded"
                            if fresh
                            else "changed since the last load (the next session or `memory-cli list` loads it)"
                        ),
                    }
                )
    rules = [r for r in api.loaded_rules(store) if r["status"] == "active"]
    if rules:
        shown = "; ".join(f"{r['id'][:8]} {r['content'][:60]}" for r in rules[:10])
        more = f" (+{len(rules) - 10} more)" if len(rules) > 10 else ""
        checks.append(
            {
                "name": "shared rules",
                "status": "ok",
                "detail": f"{len(rules)} enforced from repository files: {shown}{more}",
            }
        )
    return checks
