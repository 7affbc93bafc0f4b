"""A proposed rule carries its replay: where it would have fired among the calls the person
corrected and the calls the person let pass; a proposal that would fire on let-pass calls is
narrowed or offered as a reminder, and says which.

The person's sessions are Claude Code transcripts in Claude Code's format (records as in
tests/fixtures/real/transcripts); the corrections go through capture as the prompt hook sends
them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from memory_cli import review
from memory_cli.capture.corrections import capture
from memory_cli.replay import proposals

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)


def _ts(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Transcripts:
    """Claude Code sessions under HOME/.claude/projects/<project>/<session>.jsonl."""

    def __init__(self, home):
        self.dir = home / ".claude" / "projects" / "-work-app"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.clock = 0.0

    def session(self, sid: str, turns: list[tuple[str, list[str]]]) -> list[str]:
        """``turns``: (what the person typed, the Bash commands the agent then ran). Returns
        when each prompt was typed."""
        records, typed = [], []
        base = {"sessionId": sid, "cwd": "/work/app", "version": "2.1.0", "gitBranch": "main", "isSidechain": False}
        for n, (prompt, commands) in enumerate(turns):
            self.clock += 60
            typed.append(_ts(self.clock))
            records.append(
                dict(
                    base,
                    type="user",
                    uuid=f"{sid}-u{n}",
                    timestamp=_ts(self.clock),
                    message={"role": "user", "content": prompt},
                )
            )
            for k, command in enumerate(commands):
                self.clock += 5
                tid = f"toolu_{sid}_{n}_{k}"
                records.append(
                    dict(
                        base,
                        type="assistant",
                        uuid=f"{sid}-a{n}{k}",
                        timestamp=_ts(self.clock),
                        message={
                            "role": "assistant",
                            "type": "message",
                            "model": "claude-sonnet-4-5",
                            "content": [
                                {
                                    "type": "tool_use",
                                    "id": tid,
                                    "name": "Bash",
                                    "input": {"command": command, "description": "run"},
                                }
                            ],
                        },
                    )
                )
                records.append(
                    dict(
                        base,
                        type="user",
                        uuid=f"{sid}-r{n}{k}",
                        timestamp=_ts(self.clock + 1),
                        message={
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "tool_use_id": tid, "content": "ok", "is_error": False}
                            ],
                        },
                    )
                )
        (self.dir / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
        return typed


def _correct(store, said: str, sid: str, when: str) -> dict:
    r = capture(store, said, session_id=sid)
    store.execute(
        "UPDATE corrections SET detected_at = min(detected_at, ?), last_seen_at = ? WHERE id = ?", (when, when, r["id"])
    )
    return r


@pytest.fixture
def history(isolated_env):
    return Transcripts(isolated_env.parent)


def _proposal(store):
    [item] = [i for i in review.pending(store) if i["item"] == "proposal"]
    proposals.attach([item])
    return item


def test_never_commit_on_main_is_offered_as_a_reminder_not_a_gate_on_every_commit(store, history, cli, db_path):
    for sid, message in (("c1", "feat: login"), ("c2", "feat: login"), ("c3", "docs")):
        typed = history.session(
            sid, [("commit the change", [f'git commit -m "{message}"']), ("never git commit on main", [])]
        )
        _correct(store, "never git commit on main", sid, typed[1])
    for sid in ("ok1", "ok2"):
        history.session(sid, [("commit it", ["git switch -c feat/x", "git commit -m wip"]), ("thanks", [])])
    item = _proposal(store)
    assert item["rule"]["pattern"] == "git commit"
    replay = item["replay"]
    assert (replay["fires_on_corrected"], replay["fires_on_let_pass"], replay["let_pass_sessions"]) == (3, 2, 2)
    assert {c["session_id"] for c in replay["corrected"]} == {"c1", "c2", "c3"}
    assert {c["call"] for c in replay["let_pass"]} == {"git commit -m wip"}
    assert replay["offer"] == "reminder" and "reminder, not a gate" in replay["why"]
    # the review says so, and approving it keeps a reminder without a gate
    listed = cli("review", "--list").stdout
    assert "fires on 3 of 3 corrected call(s), 2 you let pass" in listed and "offered as a reminder" in listed
    done = cli("--json", "review", "--approve", item["id"])
    assert "reminder" in done.stderr
    rule = store.row("SELECT active FROM enforcement_rules WHERE id = ?", (item["promoted_rule_id"],))
    assert rule["active"] == 0
    entry = store.row("SELECT status FROM memory_entries WHERE id = ?", (item["promoted_rule_id"],))
    assert entry["status"] == "active"


def _newcomer(store, history) -> dict:
    """The words a newcomer typed, after a commit on main in three sessions, while commits on
    branches passed in two others."""
    for sid in ("m1", "m2", "m3"):
        typed = history.session(
            sid, [("commit the change", ['git commit -m "feat: login"']), ("never commit directly to main", [])]
        )
        _correct(store, "never commit directly to main", sid, typed[1])
    for sid in ("b1", "b2"):
        history.session(sid, [("commit it", ["git switch -c feat/x", "git commit -m wip"]), ("thanks", [])])
    return _proposal(store)


def test_commit_directly_to_main_in_the_newcomers_words_never_gates_every_commit(store, history, cli):
    """Approved as proposed it is a memory with no gate on `git commit`; edited to `git commit`,
    the replay shows it firing on the commits the person let pass and offers a reminder."""
    item = _newcomer(store, history)
    rule, replay = item.get("rule"), item.get("replay") or {}
    if rule and rule.get("pattern"):
        assert replay["fires_on_let_pass"] == 0 or replay["offer"] in ("reminder", "narrowed"), (rule, replay)
    edited = review.replay_pattern(item, "git commit", "command")
    assert edited["fires_on_let_pass"] == 2 and edited["offer"] == "reminder", edited
    cli("review", "--approve", item["id"])
    verdict = json.loads(cli("rules", "test", "--input", "git commit -m wip", "--json").stdout)
    assert verdict["decision"] == "allow" and verdict["rules"] == [], verdict


def test_a_pattern_given_with_approve_is_kept_and_its_replay_said_first(store, history, cli):
    """The newcomer's edit on the command line: the person chose it, so it is kept, and the
    approval says where it will also fire before the next session meets it."""
    item = _newcomer(store, history)
    done = cli("--json", "review", "--approve", item["id"], "--pattern", "git commit")
    assert "fires on 3 of 3 corrected call(s) and on 2 you let pass" in done.stderr, done.stderr
    assert json.loads(done.stdout)["replay"]["fires_on_let_pass"] == 2


def test_a_proposal_firing_on_let_pass_calls_is_narrowed_to_what_was_corrected(store, history, cli):
    for sid in ("n1", "n2", "n3"):
        typed = history.session(
            sid, [("ship it", ["npm test", "npm publish --access public"]), ("no, never run npm publish from here", [])]
        )
        _correct(store, "stop running npm, it breaks the release", sid, typed[1])
    history.session("n4", [("check", ["npm test", "npm install"])])
    item = _proposal(store)
    assert item["rule"]["pattern"] == "npm"
    replay = item["replay"]
    # the corrected turn ran npm test and npm publish: both corrected; n4's two calls passed
    assert replay["fires_on_corrected"] == 6 and replay["fires_on_let_pass"] == 2
    assert replay["offer"] == "reminder", replay  # "npm test" ran in both: no word of all corrected calls


def test_narrowing_keeps_every_corrected_call(store, history, cli):
    for sid in ("p1", "p2", "p3"):
        typed = history.session(sid, [("release", ["npm publish --access public"]), ("stop running npm", [])])
        _correct(store, "stop running npm", sid, typed[1])
    history.session("p4", [("check", ["npm test", "npm install left-pad"])])
    item = _proposal(store)
    replay = item["replay"]
    assert (replay["fires_on_corrected"], replay["fires_on_let_pass"]) == (3, 2)
    assert replay["offer"] == "narrowed" and replay["narrowed_pattern"] in ("npm publish", "npm --access")
    listed = cli("review", "--list").stdout
    assert "offered narrowed" in listed
    cli("review", "--approve", item["id"])
    rule = store.row(
        "SELECT pattern, active, confirmed FROM enforcement_rules WHERE id = ?", (item["promoted_rule_id"],)
    )
    assert rule["pattern"] == replay["narrowed_pattern"] and rule["active"] == 1 and rule["confirmed"] == 1


def test_a_proposal_that_fires_only_where_corrected_stays_a_gate(store, history):
    for sid in ("g1", "g2", "g3"):
        typed = history.session(sid, [("push", ["git push --force origin main"]), ("never use git push --force", [])])
        _correct(store, "never use git push --force", sid, typed[1])
    history.session("g4", [("push", ["git push origin feat"])])
    replay = _proposal(store)["replay"]
    assert (replay["offer"], replay["fires_on_corrected"], replay["fires_on_let_pass"]) == ("gate", 3, 0)


def test_without_recorded_sessions_the_review_says_there_is_no_evidence(store, cli):
    for sid in ("x1", "x2", "x3"):
        capture(store, "never use git push --force", session_id=sid)
    replay = _proposal(store)["replay"]
    assert replay["offer"] == "unknown" and replay["calls_read"] == 0
    cli("review", "--approve", _proposal(store)["id"])
    assert store.value("SELECT count(*) FROM enforcement_rules WHERE active = 1 AND confirmed = 1") == 1


def test_interactive_review_shows_the_replay_and_replays_an_edited_pattern(store, history, db_path):
    from helpers.terminal import Terminal

    for sid, message in (("c1", "feat: login"), ("c2", "fix"), ("c3", "docs")):
        typed = history.session(sid, [("commit it", [f'git commit -m "{message}"']), ("never git commit on main", [])])
        _correct(store, "never git commit on main", sid, typed[1])
    history.session("ok1", [("commit it", ["git commit -m wip"])])
    t = Terminal(["--db", str(db_path), "review"])
    try:
        screen = t.expect("(q)uit? ")
        assert "fires on 3 of 3 corrected call(s), 1 you let pass" in screen
        assert "offered as a reminder" in screen
        t.type("a")
        t.answer("Action warn/block [warn]: ", "block")
        t.answer("Pattern ('-' for no rule) [-]: ", "git commit -m")  # the reminder is the default
        t.answer("Pattern type command/regex [command]: ", "")
        screen = t.expect("Keep this pattern? y/n [n]: ")
        assert "fires on 3 of 3 corrected call(s), 1 you let pass" in screen
        t.type("n")
        t.answer("]: ", "")  # message
        t.answer("Scope [global]: ", "")
        t.answer("Enforced as rule/reminder/ask/stop-check/advice [", "")
        done = t.expect("Done:")
        assert "Approved. (rule: command 'git commit' -> warn, unconfirmed, disabled)" in done
        assert "1 approved" in t.expect("\n")
    finally:
        t.kill()
    assert store.value("SELECT count(*) FROM enforcement_rules WHERE active = 1") == 0
