#!/usr/bin/env python3
"""Team memory at organisation size, against a real PostgreSQL started for the run.

N members, each with a local store, share E entries each (a tenth of them rules); then R rounds
in which every member edits and deletes at random (its own entries and teammates') and syncs,
W members at a time (concurrent syncs on the server). Then every member syncs until quiet, and
the script checks what the issue of team memory is about:

* lost entries: a live server entry missing from a member's store (must be 0);
* duplicates: two live local entries for one shared entry (must be 0);
* convergence: every member holds exactly the server's live set, with the server's content;
* no silent loss: every edit the server refused (a teammate changed or deleted the entry first)
  is kept in its author's store (a superseded or archived entry, with a team_conflict row);
* incremental sync: one member changes 100 entries, another's sync pulls them (target < 1 s);
* PreToolUse through the real hook, with the team joined vs the same store without it
  (interleaved runs: a joined store must cost a hook nothing).

    .venv/bin/python scripts/sim_team.py                       # 50 members x 2,000 entries
    .venv/bin/python scripts/sim_team.py --members 5 --entries 200 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _store(db):
    from memory_cli.store.db import Store

    return Store.open(db)


def create_member(args) -> dict:
    """A member's own entries, shared, and the first sync (push them, pull what is there)."""
    db, url, m, n = args
    from memory_cli import entries
    from memory_cli.rules import api as rules
    from memory_cli.team import api

    t = time.perf_counter()
    with _store(db) as s:
        api.join(s, url)
        with s.transaction():
            for i in range(n):
                if i % 10 == 0:
                    e = rules.create_rule(
                        s,
                        f"member {m} rule {i}: never run tool{m}x{i} --dangerous",
                        pattern=f"tool{m}x{i} --dangerous",
                        pattern_type="command",
                        action="warn",
                    )
                else:
                    e = entries.add(s, f"member {m} fact {i}: service {i % 97} restarts in {i % 60} s", "fact")
                s.execute("INSERT INTO team_entries(entry_id, shared_at) VALUES (?, ?)", (e["id"], "sim"))
        out = api.sync_now(s)
    return {"member": m, "seconds": time.perf_counter() - t, **out}


def round_member(args) -> dict:
    """Random edits and deletes of shared entries (anyone's), then a sync."""
    db, m, rnd, edits, deletes, seed = args
    from memory_cli import entries
    from memory_cli.team import api

    rng = random.Random(seed)
    tokens, edited = [], []
    with _store(db) as s:
        ids = [
            r["entry_id"]
            for r in s.rows(
                "SELECT t.entry_id FROM team_entries t JOIN memory_entries e ON e.id = t.entry_id"
                " WHERE t.state = 'shared' AND e.status = 'active'"
            )
        ]
        rng.shuffle(ids)
        for n, eid in enumerate(ids[:edits]):
            token = f"[edit {m}-{rnd}-{n}]"
            row = s.row("SELECT content FROM memory_entries WHERE id = ?", (eid,))
            base = row["content"].split(" [edit ")[0]
            entries.update(s, eid, content=f"{base} {token}")
            tokens.append(token)
            edited.append((eid, token))
        for eid in ids[edits : edits + deletes]:
            if rng.random() < 0.5:
                api.unmark_shared(s, eid)
            else:
                entries.delete(s, eid)
        # api.sync_now's steps, with a look between push and pull: which edits did the server take?
        from memory_cli.store import kvstate
        from memory_cli.team import server, sync

        refused = []
        try:
            conn = server.connect(api.joined(s))
            try:
                out = sync.push(s, conn)
                for eid, token in edited:
                    m_row = s.row("SELECT synced_hash FROM team_entries WHERE entry_id = ?", (eid,))
                    if not m_row or m_row["synced_hash"] != sync.payload_hash(sync.local_payload(s, eid)):
                        refused.append(token)
                pulled, mark = sync.pull(s, conn, kvstate.get(s, api.KEY_MARK, "0"))
                with s.transaction():
                    kvstate.put(s, api.KEY_MARK, mark)
                out.update(pulled)
            finally:
                conn.close()
        except Exception as err:  # a failed sync is retried by the next one, as in real use
            out = {"error": str(err)}
            refused = [t for _, t in edited]
    return {**out, "member": m, "tokens": tokens, "refused_tokens": refused}


def sync_member(db) -> dict:
    from memory_cli.team import api

    with _store(db) as s:
        return api.sync_now(s)


def local_state(db) -> dict:
    with _store(db) as s:
        live = {
            r["id"]: r["content"]
            for r in s.rows(
                "SELECT e.id, e.content FROM memory_entries e JOIN team_entries t ON t.entry_id = e.id"
                " WHERE e.status = 'active'"
            )
        }
        kept = [
            r["content"]
            for r in s.rows("SELECT content FROM memory_entries WHERE status IN ('superseded', 'archived')")
        ]
        dup = s.value(
            "SELECT count(*) FROM (SELECT content FROM memory_entries e JOIN team_entries t"
            " ON t.entry_id = e.id WHERE e.status = 'active' GROUP BY content HAVING count(*) > 1)"
        )
        conflicts = s.value("SELECT count(*) FROM memory_audit_log WHERE action = 'team_conflict'")
    return {"live": live, "kept": kept, "duplicates": dup, "conflicts": conflicts}


def hook_times(db: str, runs: int) -> list[float]:
    from tests.helpers.hooks import hook_cmd, payload

    body = json.dumps(payload("PreToolUse", tool_input={"command": "ls -la"})).encode()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(
            hook_cmd() + ["--db", db, "hook", "PreToolUse"],
            input=body,
            capture_output=True,
            check=True,
            env={**os.environ, "MEMORY_CLI_DAEMON_AUTOSTART": "0"},
        )
        times.append((time.perf_counter() - t) * 1000)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=50)
    ap.add_argument("--entries", type=int, default=2000, help="shared entries per member")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--edits", type=int, default=40, help="edits per member per round")
    ap.add_argument("--deletes", type=int, default=10, help="deletes per member per round")
    ap.add_argument("--workers", type=int, default=4, help="members syncing at the same time")
    ap.add_argument("--hook-runs", type=int, default=21)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the stores and the server's directory")
    args = ap.parse_args()

    from tests.helpers.pgserver import ADMIN_PASSWORD, PgServer, missing_reason

    reason = missing_reason()
    if reason:
        print(f"sim_team: {reason}", file=sys.stderr)
        return 2
    os.environ["PGPASSWORD"] = ADMIN_PASSWORD
    os.environ["MEMORY_CLI_DAEMON_AUTOSTART"] = "0"
    work = Path(tempfile.mkdtemp(prefix="memory-cli-sim-"))
    os.environ["HOME"] = str(work / "home")
    os.environ["CLAUDE_CONFIG_DIR"] = str(work / "home" / ".claude")
    (work / "home" / ".claude").mkdir(parents=True)
    pg = PgServer().init().start()
    started = time.perf_counter()
    try:
        from memory_cli.team import api

        url = pg.url(db="postgres")
        api.init(url)
        dbs = [str(work / f"member{m:02d}.db") for m in range(args.members)]
        rows = []

        def phase(name, fn, items):
            t = time.perf_counter()
            with ProcessPoolExecutor(args.workers) as pool:
                out = list(pool.map(fn, items))
            rows.append((name, time.perf_counter() - t))
            print(f"  {name}: {rows[-1][1]:.1f} s", file=sys.stderr, flush=True)
            return out

        phase(
            "share: every member adds and pushes its entries",
            create_member,
            [(db, url, m, args.entries) for m, db in enumerate(dbs)],
        )
        tokens, refused = {}, {}
        errors = 0
        for rnd in range(args.rounds):
            out = phase(
                f"round {rnd + 1}: random edits and deletes, concurrent syncs",
                round_member,
                [(db, m, rnd, args.edits, args.deletes, args.seed * 1000 + rnd * 100 + m) for m, db in enumerate(dbs)],
            )
            for r in out:
                tokens.setdefault(r["member"], []).extend(r["tokens"])
                refused.setdefault(r["member"], []).extend(r["refused_tokens"])
                errors += "error" in r
        for n in range(3):  # until quiet: push what is left, then everyone pulls everything
            phase(f"converge {n + 1}: every member syncs", sync_member, dbs)

        server_live = {r[0]: r[1] for r in pg.sql("SELECT id, content FROM memory_cli.entries WHERE NOT deleted")}
        server_all = pg.sql("SELECT content FROM memory_cli.entries")
        states = [local_state(db) for db in dbs]
        lost = sum(len(set(server_live) - set(st["live"])) for st in states)
        extra = sum(len(set(st["live"]) - set(server_live)) for st in states)
        differ = sum(sum(1 for k, v in st["live"].items() if server_live.get(k) not in (None, v)) for st in states)
        duplicates = sum(st["duplicates"] for st in states)
        # An edit the server took may be overwritten later by a newer edit: that is history, not
        # loss. An edit the server refused (a teammate changed or deleted the entry first) must
        # still be in its author's store, as a superseded or archived entry.
        silent = 0
        for m, toks in refused.items():
            kept = "\n".join(states[m]["kept"])
            silent += sum(1 for tok in toks if tok not in kept)
        conflicts = sum(st["conflicts"] for st in states)

        # Incremental: member 0 changes 100 entries; member 1's sync pulls them.
        from memory_cli import entries

        with _store(dbs[0]) as s:
            ids = [r["entry_id"] for r in s.rows("SELECT entry_id FROM team_entries LIMIT 100")]
            for i, eid in enumerate(ids):
                entries.update(s, eid, content=f"incremental change {i} {uuid.uuid4().hex[:6]}")
            api.sync_now(s)
        t = time.perf_counter()
        inc = sync_member(dbs[1])
        incremental_s = time.perf_counter() - t

        # PreToolUse: the same store joined vs not, interleaved.
        joined_db, alone_db = dbs[1], str(work / "alone.db")
        with _store(joined_db) as s:  # the copy must hold what is still in the write-ahead log
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy(joined_db, alone_db)
        with _store(alone_db) as s:
            api.leave(s)
        hook_times(joined_db, 3), hook_times(alone_db, 3)  # warm the rule caches
        joined_t, alone_t = [], []
        for _ in range(args.hook_runs):
            joined_t += hook_times(joined_db, 1)
            alone_t += hook_times(alone_db, 1)

        total = len(server_all)
        print()
        print(
            f"Team memory simulation: {args.members} members x {args.entries} shared entries, {args.rounds} rounds "
            f"of {args.edits} edits + {args.deletes} deletes per member, {args.workers} members syncing at once"
        )
        print()
        print("| phase | seconds |")
        print("|---|---|")
        for name, sec in rows:
            print(f"| {name} | {sec:.1f} |")
        print()
        print("| check | result | target |")
        print("|---|---|---|")
        print(f"| server rows (live / tombstones) | {len(server_live):,} / {total - len(server_live):,} | |")
        print(f"| lost entries (live on the server, missing in a store), all members | {lost} | 0 |")
        print(f"| duplicates, all members | {duplicates} | 0 |")
        print(
            f"| stores holding exactly the server's live set and content | "
            f"{sum(1 for st in states if set(st['live']) == set(server_live) and all(server_live[k] == v for k, v in st['live'].items()))}"  # noqa: E501
            f" of {len(states)} (extra {extra}, content differs {differ}) | all |"
        )
        print(
            f"| edits made / refused by a newer teammate change / refused and not kept | "
            f"{sum(len(v) for v in tokens.values()):,} / {sum(len(v) for v in refused.values())} / {silent} | 0 |"
        )
        print(f"| conflicts resolved (team_conflict audit rows, all members) | {conflicts} | |")
        print(f"| failed syncs during the rounds (retried by the next) | {errors} | |")
        print(
            f"| incremental sync pulling {inc['updated'] + inc['added']} remote changes | {incremental_s * 1000:.0f} ms"
            f" | < 1 s |"
        )
        jm, am = statistics.median(joined_t), statistics.median(alone_t)
        print(
            f"| PreToolUse median, team joined / not joined ({args.hook_runs} interleaved runs, "
            f"{args.entries * args.members // 10:,} rules) | {jm:.1f} ms / {am:.1f} ms ({jm / am:.2f}x) | 1.0x |"
        )
        print()
        print(f"whole run: {time.perf_counter() - started:.0f} s")
        ok = lost == 0 and duplicates == 0 and extra == 0 and differ == 0 and silent == 0
        return 0 if ok else 1
    finally:
        pg.destroy()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
