#!/usr/bin/env python3
"""Replay a person's real prompts one at a time, so that a model driving a shell can act as the
coding agent: it sees what the agent would see and records lessons as the agent would.

Everything runs as Claude Code and memory-cli run it, in a home of its own under ``--dir``:
``memory-cli install`` writes the hooks into that home's Claude Code settings, a git-initialised
project folder makes lessons project-scoped as in a real repository, and each step runs the
installed hook commands with the payloads Claude Code sends (SessionStart, UserPromptSubmit,
SessionEnd; the detached maintenance job SessionEnd starts, where grouping by meaning happens,
is waited for). ``record`` calls the MCP server's ``record_correction`` tool through the server
itself, from the project folder, and prints what the agent would receive.

    agent_replay.py init --dir D (--labelled PERSON | --transcripts FILE [FILE ...])
    agent_replay.py next --dir D
    agent_replay.py record --dir D --quote Q --lesson L [--wrong W] [--right R]
                    [--kind pushback|standing] [--same-as ID]
    agent_replay.py finish --dir D

``--labelled``: the candidates ``scripts/score_grouping.py`` scores for that person (their
labelled repeated instructions and their other prompts labelled as corrections with a lesson),
session by session in file order, each with the agent's last turn before it (``context.jsonl``).
The labels are kept in ``D/.labels.json`` only, for ``score_grouping.py --agent``; nothing here
prints them. ``--transcripts``: the typed prompts of real Claude Code session logs, one session
per file; the session's transcript is written as it grows, so the hooks read the agent's turn
from it as they do live.

``finish`` writes ``D/result.json``: for each prompt that ended in a stored correction, its key,
the correction, and the item of the review queue that holds it after all grouping.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATE = "state.json"
LABELS = ".labels.json"
RESULT = "result.json"
PROJECT = "project"
TURN_CHARS = 600
WAIT_S = 600.0  # the longest a maintenance job (summaries, grouping with the encoder) is waited for
_SCRUB = ("CLAUDE_CONFIG_DIR", "MEMORY_CLI_")


# --------------------------------------------------------------------------- the home


def _home(d: Path) -> Path:
    return d / "home"


def _project(d: Path) -> Path:
    return _home(d) / "work" / PROJECT


DAEMON = ".daemon"  # in the replay folder: `init --daemon` was given


def _env(d: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB)}
    env.update({"HOME": str(_home(d)), "PYTHONPATH": str(ROOT)})
    if not (d / DAEMON).exists():
        # no resident daemon per replay: the session-end job loads the encoder itself, and
        # record_correction ranks the closest lessons by words alone
        env["MEMORY_CLI_DAEMON_AUTOSTART"] = "0"
    return env


def _enter(d: Path) -> None:
    """Point this process at the replay's home before memory-cli is imported (its paths and the
    store are read from the environment), and run from the project folder as the MCP server does."""
    for k in [k for k in os.environ if k.startswith(_SCRUB)]:
        del os.environ[k]
    os.environ.update(_env(d))
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.chdir(_project(d))


def _db(d: Path) -> Path:
    return _home(d) / ".claude" / "memory" / "memory.db"


def _cli(d: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memory_cli", *args],
        env=_env(d),
        cwd=str(_project(d)),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def _hook(d: Path, event: str, payload: dict) -> dict:
    """Run the hook command ``memory-cli install`` wrote for ``event`` with Claude Code's payload
    on stdin; its JSON answer ({} when it printed nothing)."""
    settings = json.loads((_home(d) / ".claude" / "settings.json").read_text())
    commands = [
        h["command"]
        for group in settings.get("hooks", {}).get(event, [])
        for h in group.get("hooks", [])
        if h.get("type") == "command" and "fasthook.py" in h.get("command", "")
    ]
    if not commands:
        raise SystemExit(f"agent_replay: no memory-cli {event} hook installed in {_home(d)}")
    body = {"hook_event_name": event, "cwd": str(_project(d)), "permission_mode": "default", **payload}
    proc = subprocess.run(
        shlex.split(commands[0]),
        input=json.dumps(body),
        env=_env(d),
        cwd=str(_project(d)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode not in (0,):
        raise SystemExit(f"agent_replay: the {event} hook exited {proc.returncode}: {proc.stderr.strip()[:500]}")
    out = proc.stdout.strip()
    try:
        return json.loads(out) if out else {}
    except ValueError:
        return {"plain": out}


def _context(answer: dict) -> str:
    spec = answer.get("hookSpecificOutput") or {}
    return (spec.get("additionalContext") or answer.get("plain") or "").strip()


def _wait_for_maintenance(d: Path) -> None:
    """Wait until no maintenance job of this store holds its lock (it holds it until it exits)."""
    from memory_cli.maintenance import detached
    from memory_cli.store.locks import open_lock_file, try_lock_fd

    run = _home(d) / ".claude" / "memory" / "run"
    if not run.is_dir():
        return
    path = detached.lock_path(run, detached.db_key(_db(d)))
    deadline = time.monotonic() + WAIT_S
    while True:
        fd = open_lock_file(path)
        try:
            if try_lock_fd(fd):
                return
        finally:
            os.close(fd)
        if time.monotonic() > deadline:
            raise SystemExit(f"agent_replay: maintenance still running after {WAIT_S:g}s ({path})")
        time.sleep(0.3)


# --------------------------------------------------------------------------- the queue of prompts


def _labelled(person: str) -> tuple[list[dict], dict]:
    """The sessions of ``person``'s candidates (as score_grouping.py reads them) and their labels."""
    sys.path.insert(0, str(ROOT / "scripts"))
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    import real_prompts as rp
    import score_grouping

    people = score_grouping.load("prompt")
    if person not in people:
        raise SystemExit(f"agent_replay: no labelled candidates for {person!r} (people: {', '.join(sorted(people))})")
    prompts = rp.load_prompts()
    turns = {}
    with rp.CONTEXT.open(encoding="utf-8") as fh:
        for r, line in zip(prompts, fh):
            turns[(r["file"], r["line"])] = json.loads(line)
    text = {(r["file"], r["line"]): r["prompt"] for r in prompts}
    sessions: dict[str, dict] = {}
    labels = {}
    for c in people[person]:  # prompts.jsonl order: the order typed
        key = list(c["key"])
        s = sessions.setdefault(c["session"], {"name": c["session"], "prompts": []})
        t = turns.get(tuple(key), {})
        s["prompts"].append(
            {
                "key": key,
                "text": text[tuple(key)],
                "turn": {k: t.get(k) for k in ("found", "text", "tools", "last_input", "errors", "rejected")},
            }
        )
        labels[f"{key[0]}:{key[1]}"] = c["group"]
    return list(sessions.values()), {"person": person, "groups": labels}


def _typed_prompts(path: Path) -> list[dict]:
    """The prompts the person typed in one Claude Code session log, as memory-cli's readers tell
    them from meta, sidechain, compact-summary, tool-result and command records."""
    from memory_cli.capture.transcript_records import blocks, decode_line, is_person_prompt
    from memory_cli.llm.transcript import _NOISE_PREFIXES

    out = []
    with path.open("rb") as fh:
        for n, raw in enumerate(fh):
            rec = decode_line(raw)
            if rec is None or not is_person_prompt(rec):
                continue
            typed = "\n".join(b["text"] for b in blocks(rec) if b.get("type") == "text").strip()
            if not typed or typed.startswith(_NOISE_PREFIXES):
                continue
            out.append({"key": [path.name, len(out)], "text": typed, "line": n})
    return out


# --------------------------------------------------------------------------- state


def _load(d: Path) -> dict:
    try:
        return json.loads((d / STATE).read_text())
    except FileNotFoundError:
        raise SystemExit(f"agent_replay: {d} is not a replay folder (run init first)") from None


def _save(d: Path, state: dict) -> None:
    tmp = d / (STATE + ".tmp")
    tmp.write_text(json.dumps(state, ensure_ascii=False, indent=1))
    os.replace(tmp, d / STATE)


def _transcript(d: Path, state: dict, s: int) -> Path:
    return Path(state["sessions"][s]["transcript"])


# --------------------------------------------------------------------------- what the agent is told


def _tool_doc() -> str:
    from memory_cli.mcp import server

    return " ".join((server.record_correction.__doc__ or "").split())


def _help(d: Path) -> str:
    me = f"{sys.executable} {Path(__file__).resolve()}"
    return (
        "You are the coding agent in this conversation. You have one tool, record_correction:\n"
        f"  {_tool_doc()}\n"
        "Call it from the shell:\n"
        f'  {me} record --dir {d} --quote "..." --lesson "..." [--wrong "..."] [--right "..."]'
        " [--kind pushback|standing] [--same-as ID]\n"
        f"Then see the next prompt with: {me} next --dir {d}\n"
    )


def _turn_lines(turn: dict | None) -> list[str]:
    if not turn or not turn.get("found"):
        return ["(none known: no turn of yours before this prompt in this session)"]
    out = []
    text = (turn.get("text") or "").strip()
    if text:
        out.append("Your last words:\n" + (text if len(text) <= TURN_CHARS else "\u2026" + text[-TURN_CHARS:]))
    tools = turn.get("tools") or []
    if tools:
        last = turn.get("last_input") or ""
        out.append("Tools you called: " + _runs(tools) + (f" (last: {last})" if last else ""))
    if turn.get("errors"):
        out.append(
            f"Tool calls that failed: {turn['errors']}" + (" (the person rejected one)" if turn.get("rejected") else "")
        )
    return out or ["(your last turn had no words or tools)"]


def _runs(names: list[str]) -> str:
    """Tool names in order, a run of one tool written once with its count ("Edit x10")."""
    out: list[list] = []
    for n in names:
        if out and out[-1][0] == n:
            out[-1][1] += 1
        else:
            out.append([n, 1])
    return ", ".join(n if k == 1 else f"{n} x{k}" for n, k in out)


def _person_record(state: dict, s: int, text: str) -> dict:
    sess = state["sessions"][s]
    return {
        "type": "user",
        "isSidechain": False,
        "sessionId": sess["id"],
        "cwd": state["project"],
        "uuid": str(uuid.uuid4()),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        "message": {"role": "user", "content": text},
    }


def _agent_records(state: dict, s: int, turn: dict) -> list[dict]:
    """The agent's last turn (labelled prompts: read from the source logs) as transcript records."""
    if not turn or not turn.get("found"):
        return []
    content: list[dict] = []
    if turn.get("text"):
        content.append({"type": "text", "text": turn["text"]})
    tools = turn.get("tools") or []
    for n, name in enumerate(tools):
        last = n == len(tools) - 1
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{s}_{n}",
                "name": name,
                "input": {"command": turn.get("last_input") or ""} if last else {},
            }
        )
    sess = state["sessions"][s]
    recs = [
        {
            "type": "assistant",
            "isSidechain": False,
            "sessionId": sess["id"],
            "uuid": str(uuid.uuid4()),
            "message": {"role": "assistant", "content": content},
        }
    ]
    if turn.get("errors") and tools:
        recs.append(
            {
                "type": "user",
                "sessionId": sess["id"],
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"toolu_{s}_{len(tools) - 1}",
                            "is_error": True,
                            "content": "The user doesn't want to proceed with this tool use."
                            if turn.get("rejected")
                            else "error",
                        }
                    ],
                },
            }
        )
    return recs


def _append(path: Path, recs: list[dict]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        for r in recs:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def _copy_lines(src: Path, dst: Path, upto: int | None) -> None:
    """The source log's lines before ``upto`` (all with None): the transcript as Claude Code had
    written it when the person typed that prompt."""
    with src.open("rb") as fh:
        lines = fh.readlines()
    dst.write_bytes(b"".join(lines if upto is None else lines[:upto]))


def _end_session(d: Path, state: dict, s: int) -> None:
    """SessionEnd as Claude Code sends it, then the maintenance job it started, waited for."""
    sess = state["sessions"][s]
    if sess.get("ended") or not sess.get("started"):
        return
    path = _transcript(d, state, s)
    if sess.get("source"):
        _copy_lines(Path(sess["source"]), path, None)
    _wait_for_maintenance(d)  # a job still running from SessionStart would make SessionEnd's a no-op
    _hook(d, "SessionEnd", {"session_id": sess["id"], "transcript_path": str(path), "reason": "prompt_input_exit"})
    _wait_for_maintenance(d)
    sess["ended"] = True
    _save(d, state)


def _last_prompt_row(d: Path) -> int | None:
    from memory_cli.store.db import Store

    with Store.open(str(_db(d))) as store:
        return store.value("SELECT max(id) FROM capture_prompts")


# --------------------------------------------------------------------------- commands


def cmd_init(args) -> int:
    d = Path(args.dir).resolve()
    if d.exists() and any(d.iterdir()):
        raise SystemExit(f"agent_replay: {d} is not empty; give a new folder")
    d.mkdir(parents=True, exist_ok=True)
    project = _project(d)
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    if args.daemon:
        (d / DAEMON).write_text("session start starts the embedding daemon, as it does by default\n")
    files = [Path(f).resolve() for f in args.transcripts or []]
    _enter(d)
    if args.labelled:
        sessions, labels = _labelled(args.labelled)
        (d / LABELS).write_text(json.dumps(labels, ensure_ascii=False))
        os.chmod(d / LABELS, 0o600)
    else:
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise SystemExit(f"agent_replay: no such transcript: {', '.join(missing)}")
        sessions = [{"name": f.name, "source": str(f), "prompts": _typed_prompts(f)} for f in files]
    installed = _cli(d, "install")
    if installed.returncode != 0:
        raise SystemExit(f"agent_replay: memory-cli install failed: {installed.stderr.strip()[:500]}")
    slug = str(project).replace("/", "-")
    folder = _home(d) / ".claude" / "projects" / slug
    folder.mkdir(parents=True, exist_ok=True)
    for n, s in enumerate(sessions):
        s["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{d}#{n}"))
        s["transcript"] = str(folder / f"{s['id']}.jsonl")
    state = {
        "mode": "labelled" if args.labelled else "transcripts",
        "project": str(project),
        "sessions": sessions,
        "cursor": [0, 0],
        "shown": [],
    }
    _save(d, state)
    count = sum(len(s["prompts"]) for s in sessions)
    print(f"replay ready in {d}: {count} prompts in {len(sessions)} sessions; run `next --dir {d}`")
    return 0


def cmd_next(args) -> int:
    d = Path(args.dir).resolve()
    state = _load(d)
    _enter(d)
    s, p = state["cursor"]
    sessions = state["sessions"]
    while s < len(sessions) and p >= len(sessions[s]["prompts"]):
        _end_session(d, state, s)
        s, p = s + 1, 0
        state["cursor"] = [s, p]
        _save(d, state)
    print(_help(d))
    if s >= len(sessions):
        print("no more prompts")
        return 0
    sess = sessions[s]
    prompt = sess["prompts"][p]
    path = _transcript(d, state, s)
    if not sess.get("started"):
        answer = _hook(d, "SessionStart", {"session_id": sess["id"], "transcript_path": str(path), "source": "startup"})
        sess["started"] = True
        _save(d, state)
        print(f"=== session {s + 1} of {len(sessions)} starts ===")
        print("memory-cli's SessionStart context (in your system prompt):")
        print(_context(answer) or "(none)")
        print()
    if sess.get("source"):
        from memory_cli.capture import agent_turn

        _copy_lines(Path(sess["source"]), path, prompt["line"])
        turn = agent_turn.read(str(path), prompt["text"])
        turn_d = turn.as_dict() if turn is not None else None
    else:
        turn_d = prompt.get("turn")
        if p == 0:
            path.write_text("")
        _append(path, _agent_records(state, s, turn_d or {}))
    before = _last_prompt_row(d) or 0
    answer = _hook(
        d, "UserPromptSubmit", {"session_id": sess["id"], "transcript_path": str(path), "prompt": prompt["text"]}
    )
    after = _last_prompt_row(d) or 0
    prompt["row"] = after if after > before else None
    if not sess.get("source"):
        _append(path, [_person_record(state, s, prompt["text"])])
    state["cursor"] = [s, p + 1]
    state["shown"].append([s, p])
    _save(d, state)
    total = sum(len(x["prompts"]) for x in sessions)
    number = sum(len(x["prompts"]) for x in sessions[:s]) + p + 1
    print("--- your last turn before the prompt ---")
    print("\n".join(_turn_lines(turn_d)))
    added = _context(answer)
    if added:
        print("--- memory-cli added to the prompt (you see this with it) ---")
        print(added)
    print(
        f"--- prompt {number} of {total} (session {s + 1} of {len(sessions)}, prompt {p + 1} of {len(sess['prompts'])}) ---"
    )
    print(prompt["text"])
    return 0


def cmd_record(args) -> int:
    d = Path(args.dir).resolve()
    _load(d)
    _enter(d)
    import asyncio

    from mcp.server.mcpserver.exceptions import ToolError

    from memory_cli.mcp import server

    arguments = {"quote": args.quote, "lesson": args.lesson}
    for name in ("wrong", "right", "kind", "same_as"):
        if getattr(args, name) is not None:
            arguments[name] = getattr(args, name)
    try:
        result = asyncio.run(server.app.call_tool("record_correction", arguments))
    except ToolError as e:
        print(str(e))
        return 1
    print(_as_text(result))
    return 0


def _as_text(result) -> str:
    """The text of a tool result as the MCP client receives it."""
    content = result[0] if isinstance(result, tuple) else getattr(result, "content", result)
    if isinstance(content, (list, tuple)):
        return "\n".join(getattr(c, "text", str(c)) for c in content)
    return json.dumps(content, ensure_ascii=False, indent=2)


def _final_items(store) -> dict[str, str]:
    """Correction id -> the id of the review item that holds it (a recurring proposal's
    instances are held by the proposal; anything else is its own item)."""
    from memory_cli.capture.recurring import INSTANCES_KEY
    from memory_cli.store import kvstate

    out = {}
    for key, value in kvstate.with_prefix(store, INSTANCES_KEY).items():
        for i in (value or {}).get("instances", []):
            out[i] = key
    return out


def cmd_finish(args) -> int:
    d = Path(args.dir).resolve()
    state = _load(d)
    _enter(d)
    for s in range(len(state["sessions"])):
        _end_session(d, state, s)
    shown = _cli(d, "review", "--list")
    print(shown.stdout.rstrip() or shown.stderr.rstrip())
    if (d / DAEMON).exists():
        _cli(d, "daemon", "stop")
    from memory_cli.store.db import Store

    rows = []
    with Store.open(str(_db(d))) as store:
        held = _final_items(store)
        for sess in state["sessions"]:
            for prompt in sess["prompts"]:
                if not prompt.get("row"):
                    continue
                cid = store.value("SELECT correction_id FROM capture_prompts WHERE id = ?", (prompt["row"],))
                if not cid:
                    continue
                item = held.get(cid, cid)
                row = store.row(
                    "SELECT status, detection_type, origin, statement FROM corrections WHERE id = ?", (item,)
                )
                by = store.value("SELECT origin FROM corrections WHERE id = ?", (cid,))
                rows.append(
                    {
                        "key": prompt["key"],
                        "session": sess["name"],
                        "correction": cid,
                        "read_by": "agent" if by == "agent" else "hook",
                        "item": item,
                        "item_status": row["status"] if row else None,
                        "item_kind": row["detection_type"] if row else None,
                        "statement": row["statement"] if row else None,
                    }
                )
        from memory_cli import audit

        failed = audit.query(store, action="hook_error", limit=1000)
    errors_log = _home(d) / ".claude" / "memory" / "hook-errors.log"
    if failed or (errors_log.exists() and errors_log.stat().st_size):
        print(f"WARNING: hooks failed open during the replay ({len(failed)} audit rows; see {errors_log})")
    out = {
        "mode": state["mode"],
        "prompts": sum(len(s["prompts"]) for s in state["sessions"]),
        "hook_errors": len(failed),
        "recorded": rows,
    }
    (d / RESULT).write_text(json.dumps(out, ensure_ascii=False, indent=1))
    agent = sum(1 for r in rows if r["read_by"] == "agent")
    print(
        f"\nwrote {d / RESULT}: {len(rows)} of {out['prompts']} prompts ended in a stored correction"
        f" ({agent} recorded or counted by the agent, {len(rows) - agent} read by the hook alone)"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("init", help="a fresh memory-cli home and the queue of prompts")
    p.add_argument("--dir", required=True)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--labelled", metavar="PERSON")
    g.add_argument("--transcripts", nargs="+", metavar="FILE")
    p.add_argument(
        "--daemon",
        action="store_true",
        help="let session start run the embedding daemon, as it does by default (finish stops it)",
    )
    p = sub.add_parser("next", help="what the agent sees next")
    p.add_argument("--dir", required=True)
    p = sub.add_parser("record", help="the record_correction tool")
    p.add_argument("--dir", required=True)
    p.add_argument("--quote", required=True)
    p.add_argument("--lesson", required=True)
    p.add_argument("--wrong")
    p.add_argument("--right")
    p.add_argument("--kind")
    p.add_argument("--same-as", dest="same_as")
    p = sub.add_parser("finish", help="end the last session, show the review queue, write result.json")
    p.add_argument("--dir", required=True)
    args = ap.parse_args(argv)
    return {"init": cmd_init, "next": cmd_next, "record": cmd_record, "finish": cmd_finish}[args.cmd](args)


if __name__ == "__main__":
    raise SystemExit(main())
