"""The local reader (provider none) stores a session memory only where the transcript proves it:
the same command failed, then passed after exactly one change. Each test writes a session in
Claude Code's transcript format (the records the real binary writes: user and assistant messages
with tool_use and tool_result blocks) and reads it as the session-end job does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_cli import entries
from memory_cli import settings as settings_mod
from memory_cli.llm.summarize import summarize_transcript
from memory_cli.reports import api as reports
from memory_cli.reports.hook import MAX_CHARS, fit


class Session:
    """A transcript being written, record by record, as Claude Code writes one."""

    def __init__(self, path: Path, cwd: str):
        self.path, self.cwd, self.n = path, cwd, 0
        self.records: list[dict] = []

    def _rec(self, kind: str, content) -> None:
        self.n += 1
        self.records.append(
            {
                "type": kind,
                "uuid": f"u{self.n}",
                "sessionId": "5e55-10n",
                "cwd": self.cwd,
                "timestamp": f"2026-11-20T10:{self.n // 60:02d}:{self.n % 60:02d}Z",
                "message": {"role": kind, "content": content},
            }
        )

    def person(self, text: str) -> Session:
        self._rec("user", text)
        return self

    def says(self, text: str) -> Session:
        self._rec("assistant", [{"type": "text", "text": text}])
        return self

    def call(self, tool: str, result: str, *, error: bool = False, **tool_input) -> Session:
        uid = f"toolu_{self.n}"
        self._rec("assistant", [{"type": "tool_use", "id": uid, "name": tool, "input": tool_input}])
        self._rec("user", [{"type": "tool_result", "tool_use_id": uid, "content": result, "is_error": error}])
        return self

    def bash(self, command: str, result: str = "ok", *, error: bool = False) -> Session:
        return self.call("Bash", result, error=error, command=command)

    def edit(self, path: str) -> Session:
        return self.call("Edit", f"The file {path} has been updated.", file_path=path, old_string="a", new_string="b")

    def write(self) -> Path:
        self.path.write_text("\n".join(json.dumps(r) for r in self.records) + "\n")
        return self.path


@pytest.fixture
def session(tmp_path, project):
    return Session(tmp_path / "s.jsonl", str(project))


def _summarize(store, path: Path) -> tuple[list[str], dict]:
    r = summarize_transcript(store, settings_mod.load("/nonexistent/config.json"), path)
    assert r["provider"] == "extractive"
    return [e["content"] for e in entries.list_entries(store, status="all") if e["source"] == "session"], r


FAIL = "FAILED tests/test_app.py::test_login - ModuleNotFoundError: No module named 'jwt'\nexit code 1"


def test_the_same_command_passing_after_one_install_is_stored_with_that_install(store, session):
    session.person("fix the login tests").bash("pytest -q", FAIL, error=True)
    session.bash("pip install pyjwt", "Successfully installed pyjwt-2.9.0").bash("pytest -q", "5 passed")
    stored, _ = _summarize(store, session.write())
    assert len(stored) == 1 and stored[0].startswith("`pytest -q` failed (")
    assert "No module named 'jwt'" in stored[0] and stored[0].endswith("it passed after `pip install pyjwt`.")


def test_the_same_command_passing_after_edits_alone_names_the_files(store, session):
    session.person("fix the login tests").bash("pytest -q", FAIL, error=True).edit("src/auth.py")
    session.call("Read", "1\timport jwt", file_path="src/auth.py").bash("pytest -q", "5 passed")
    stored, _ = _summarize(store, session.write())
    assert len(stored) == 1 and stored[0].endswith("it passed after editing src/auth.py.")


def test_installs_and_edits_in_between_prove_nothing(store, session):
    # Which of the two fixed it is not in the transcript.
    session.person("fix the login tests").bash("pytest -q", FAIL, error=True).edit("src/auth.py")
    session.bash("pip install pyjwt", "Successfully installed pyjwt-2.9.0").bash("pytest -q", "5 passed")
    stored, _ = _summarize(store, session.write())
    assert stored == []


def test_a_change_that_itself_failed_proves_nothing(store, session):
    session.person("fix it").bash("pytest -q", FAIL, error=True)
    session.bash("pip install jwt-extras", "ERROR: No matching distribution found for jwt-extras", error=True)
    session.bash("pytest -q", "5 passed")
    stored, _ = _summarize(store, session.write())
    assert stored == []


def test_a_variant_of_the_failed_command_is_not_its_fix(store, session):
    # Two commits with heredoc messages, a hint in git's output naming `git add`: none of it
    # proves what was wrong with the first command.
    first = "git commit -m \"$(cat <<'EOF'\nAdd login\nEOF\n)\""
    second = "git commit -m \"$(cat <<'EOF'\nAdd login and tests\nEOF\n)\""
    hint = 'no changes added to commit (use "git add" and/or "git commit -a")\nexit code 1'
    session.person("commit it").bash(first, hint, error=True).bash("git add -A", "").bash(second, "[main 1a2b3c4] Add")
    stored, _ = _summarize(store, session.write())
    assert stored == []


def test_a_retry_after_many_other_commands_is_not_a_fix(store, session):
    session.person("deploy").bash("make deploy", "Error: connection refused\nexit code 2", error=True)
    for cmd in ("docker compose up -d db", "sleep 5", "make migrate"):
        session.bash(cmd, "done")
    session.bash("make deploy", "deployed")
    stored, _ = _summarize(store, session.write())
    assert stored == []


def test_the_error_shown_is_the_error_not_a_warning_before_it(store, session):
    out = (
        "npm warn deprecated inflight@1.0.6: This module is not supported, failed to load\n"
        "Error: Cannot find module 'left-pad'\nexit code 1"
    )
    session.person("build it").bash("npm run build", out, error=True).bash("npm install left-pad", "added 1 package")
    session.bash("npm run build", "built in 2s")
    stored, _ = _summarize(store, session.write())
    assert stored and "(Error: Cannot find module 'left-pad')" in stored[0] and "deprecated" not in stored[0]


@pytest.mark.parametrize("folder", ["home", "Desktop", "C:\\Users\\ana\\Documents"])
def test_a_session_in_a_home_or_desktop_folder_leaves_no_memory_for_every_later_session_there(store, tmp_path, folder):
    cwd = {"home": "/home/ana", "Desktop": "/home/ana/Desktop"}.get(folder, folder)
    s = Session(tmp_path / "s.jsonl", cwd).person("fix the login tests").bash("pytest -q", FAIL, error=True)
    s.bash("pip install pyjwt", "ok").bash("pytest -q", "5 passed")
    stored, r = _summarize(store, s.write())
    assert stored == [] and "not a project folder" in r["skipped_memories"]
    assert r["report"].startswith("Session 5e55-10n")  # the report of the session is still written


def test_the_report_names_the_approved_plan_and_skips_the_placeholder_answer(store, session):
    plan = "## Implementation Plan\n\n### Overview\nMove the installer into installers/ and drop the pro suffix.\n"
    session.person("plan the installer move").call(
        "ExitPlanMode", "User has approved your plan. You can now start coding.", plan=plan
    )
    session.says("Moved the installer; the old path now prints where it went.").person("thanks")
    session.says("No response requested.")
    _, r = _summarize(store, session.write())
    assert "plan approved: Move the installer into installers/ and drop the pro suffix." in r["report"], r["report"]
    assert "Last answer: Moved the installer" in r["report"] and "No response requested" not in r["report"]


def test_the_next_session_sees_what_the_person_corrected_after_a_long_first_request():
    summary = "\n".join(
        [
            "Session s1 in project:shop: 3 typed request(s), 12 tool call(s), 1 failed.",
            "First request: " + "please look at this stack trace " * 40,
            'Corrections (1): "no, use pnpm here, not npm"',
            "Last answer: Switched the scripts to pnpm.",
        ]
    )
    shown = fit(summary)
    assert 'Corrections (1): "no, use pnpm here, not npm"' in shown and "Last answer: Switched" in shown
    assert len(shown) <= MAX_CHARS


def test_the_previous_report_reaches_the_next_session_line_by_line(hook, db_path, project):
    from memory_cli import scope as scopes
    from memory_cli.store.db import Store

    with Store.open(db_path) as st:
        reports.save_report(
            st,
            "Session s0: 2 typed request(s).\nFirst request: " + "x " * 400 + '\nCorrections (1): "never use npm"',
            scope=scopes.checkout(str(project)),
            session_id="s0",
            source="session",
        )
    from helpers.hooks import payload

    r = hook("SessionStart", payload("SessionStart", cwd=str(project), session_id="s1"))
    assert r.returncode == 0
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert 'Corrections (1): "never use npm"' in context


def test_a_slip_in_the_script_being_written_is_not_a_lesson(store, session):
    # The agent's own syntax error in the file it then edits teaches a later session nothing.
    session.person("write the report script").bash(
        "node report.js", "report.js:12\nSyntaxError: Unexpected token ','\nexit code 1", error=True
    )
    session.edit("report.js").bash("node report.js", "report written")
    stored, _ = _summarize(store, session.write())
    assert stored == []


def test_an_environment_fact_found_by_editing_is_kept_and_colour_codes_are_not_the_error(store, session):
    out = "\x1b[31mTraceback (most recent call last):\x1b[0m\nUnicodeEncodeError: 'charmap' codec can't encode '\\u2713'\nexit code 1"
    session.person("run the check").bash("python check.py", out, error=True).edit("check.py")
    session.bash("python check.py", "OK")
    stored, _ = _summarize(store, session.write())
    assert len(stored) == 1 and "(UnicodeEncodeError: 'charmap' codec can't encode" in stored[0]
    assert "\x1b" not in stored[0] and "[31m" not in stored[0]


def test_output_that_names_no_error_leaves_nothing(store, session):
    # A banner and a log line are not an error a later session could recognise.
    out = "2026-05-27 01:14:05,416 INFO odoo18 loading 1 modules...\n╚════════════╝\nexit code 1"
    session.person("upgrade the module").bash("make upgrade", out, error=True)
    session.bash("pip install odoo-addon", "ok").bash("make upgrade", "done")
    stored, _ = _summarize(store, session.write())
    assert stored == []
