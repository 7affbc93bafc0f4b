"""Stop checks through the real Claude Code with a scripted model whose evaluator the stand-in
answers: nothing judges a reply before the person approves the lesson; after approval a reply
that breaks it is sent back with the reason and one that keeps it ends the turn; the action
lesson "always commit before you finish a turn that edited files" sends back a turn that wrote
a file without committing and lets it end once it commits (no model asked); a project lesson is
not judged in another project; rejecting and uninstalling take back exactly what was added."""

from __future__ import annotations

import json
import subprocess

import pytest

from .standin import bash, tool_use

pytestmark = pytest.mark.e2e

MARKER = "memory-cli Stop check"
CONFIDENCE = "no, state your confidence when you ask me something"
COMMIT = "no, always commit before you finish a turn that edited files"
BREAKS = "Should I delete the old branch?"
KEEPS = "Should I delete the old branch? Confidence: high, it is merged."


def _hook_input(req) -> dict:
    """The Stop hook input the evaluator was given ($ARGUMENTS, after "Input: ")."""
    last = req.body["messages"][-1]["content"]
    text = last if isinstance(last, str) else "".join(b.get("text", "") for b in last)
    return json.loads(text.rpartition("Input: ")[2])


def _judge(req):
    """The stand-in's evaluator: a question without a stated confidence breaks the lesson."""
    if MARKER not in json.dumps(req.body):
        return None
    said = _hook_input(req).get("last_assistant_message", "")
    tag = json.dumps(req.body).split("Lessons:")[1].split("[", 1)[1].split("]", 1)[0]
    if "?" in said and "confidence" not in said.lower():
        return json.dumps({"ok": False, "reason": f"[{tag}] say how confident you are in the question"})
    return json.dumps({"ok": True, "reason": "kept"})


def _evaluations(session) -> list:
    return [r for r in session.requests if not r.is_main and MARKER in json.dumps(r.body or "")]


def _approve(home, said: str, *args, cwd=None) -> dict:
    cid = home.cli_json("capture", "-m", said, cwd=cwd)["id"]
    return home.cli_json("review", "--approve", cid, *args, cwd=cwd)


def _verdicts(home) -> list[str]:
    rows = home.cli_json("audit", "--action", "stop_check", "--limit", "100")
    return [r["result"] for r in sorted(rows, key=lambda r: r["timestamp"])]


def test_a_judged_lesson_sends_a_breaking_reply_back_once_approved(fresh_home):
    home = fresh_home
    cid = home.cli_json("capture", "-m", CONFIDENCE)["id"]

    unapproved = home.run_session("tidy the branches", [BREAKS], evaluator=_judge)
    assert not _evaluations(unapproved), "a lesson nobody approved was judged"
    assert len(unapproved.main_requests) == 1, unapproved.describe()

    before_settings = (home.claude_dir / "settings.json").read_bytes()
    approved = home.cli_json("review", "--approve", cid, "--form", "stop-check")
    assert approved["form"]["form"] == "stop-check" and approved["form"]["check_kind"] == "judge"

    broken = home.run_session("tidy the branches", [BREAKS, KEEPS], evaluator=_judge)
    evals = _evaluations(broken)
    assert len(evals) == 2, broken.describe()
    first = json.dumps(evals[0].body)
    assert "state your confidence when you ask me something" in first.lower() and BREAKS in first
    assert _hook_input(evals[0])["stop_hook_active"] is False
    # the evaluator is shown the conversation too, not only the hook input
    assert any(BREAKS in json.dumps(m) for m in evals[0].body["messages"][:-1])
    assert len(broken.main_requests) == 2, broken.describe()
    sent_back = json.dumps(broken.main_requests[1].body["messages"][-1])
    assert "Stop hook feedback" in sent_back and "say how confident you are" in sent_back
    assert broken.result.get("result") == KEEPS

    kept = home.run_session("tidy the branches", [KEEPS], evaluator=_judge)
    assert len(_evaluations(kept)) == 1 and len(kept.main_requests) == 1, kept.describe()
    assert _verdicts(home).count("sent_back") == 1

    proof = home.cli_json("lessons")["lessons"]
    [lesson] = [r for r in proof if r["form"] == "stop-check"]
    assert lesson["verdicts"]["sent_back"] == 1 and lesson["verdicts"]["judged"] == 2

    home.cli("review", "--reject", cid)
    assert (home.claude_dir / "settings.json").read_bytes() == before_settings
    after = home.run_session("tidy the branches", [BREAKS], evaluator=_judge)
    assert not _evaluations(after) and len(after.main_requests) == 1


def test_the_commit_lesson_sends_back_a_turn_that_edited_without_committing(fresh_home):
    home = fresh_home
    subprocess.run(["git", "init", "-q", str(home.project)], check=True)
    out = _approve(home, COMMIT)
    assert out["form"]["check_kind"] == "commit_after_edit"
    assert MARKER not in (home.claude_dir / "settings.json").read_text()  # no model judges it

    target = home.project / "src" / "notes.txt"
    commit = "git add -A && git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm notes"
    s = home.run_session(
        "write the notes",
        [tool_use("Write", {"file_path": str(target), "content": "notes\n"}), "Done.", bash(commit), "Committed."],
        evaluator=_judge,
    )
    assert len(s.main_requests) == 4, s.describe()
    fed_back = json.dumps(s.main_requests[2].body["messages"][-1])
    assert "Stop hook blocking error" in fed_back and "ran no `git commit`" in fed_back, fed_back
    assert not _evaluations(s)
    log = subprocess.run(["git", "-C", str(home.project), "log", "--oneline"], capture_output=True, text=True)
    assert "notes" in log.stdout
    assert _verdicts(home) == ["sent_back", "kept_after_send_back"]

    quiet = home.run_session("what is in the notes?", ["It says notes."], evaluator=_judge)
    assert len(quiet.main_requests) == 1  # a turn that changed no file: the lesson does not apply
    assert _verdicts(home)[-1] == "kept"

    home.cli("checks", "pause")
    paused = home.run_session(
        "more notes",
        [tool_use("Write", {"file_path": str(home.project / "src" / "more.txt"), "content": "x\n"}), "Done."],
    )
    assert len(paused.main_requests) == 2, paused.describe()
    home.cli("checks", "resume")


def test_a_project_lesson_is_judged_in_its_project_only_and_uninstall_removes_it(fresh_home):
    home = fresh_home
    other = home.home / "work" / "elsewhere"
    (other / ".git").mkdir(parents=True)
    user_before = (home.claude_dir / "settings.json").read_bytes()
    _approve(home, CONFIDENCE, "--form", "stop-check", "--scope", "project:whisperclick")
    project_settings = home.project / ".claude" / "settings.json"
    assert MARKER in project_settings.read_text()
    assert (home.claude_dir / "settings.json").read_bytes() == user_before

    there = home.run_session("tidy", [BREAKS], evaluator=_judge, cwd=other)
    assert not _evaluations(there) and len(there.main_requests) == 1, there.describe()
    here = home.run_session("tidy", [bash("git branch --list 'old*'"), BREAKS, KEEPS], evaluator=_judge)
    evals = _evaluations(here)
    assert len(evals) == 2 and len(here.main_requests) == 3, here.describe()
    # the platform's evaluator is shown the turn's calls too, not only the final message
    assert "git branch --list" in json.dumps(evals[0].body["messages"][:-1])

    home.cli("uninstall")
    assert not project_settings.exists() and not (home.project / ".claude").exists()
    user_settings = home.claude_dir / "settings.json"  # install created it: it goes once it holds nothing else
    assert not user_settings.exists() or MARKER not in user_settings.read_text()
