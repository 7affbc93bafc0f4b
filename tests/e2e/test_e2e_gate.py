"""The gate, through the real Claude Code: PreToolUse deny and warn, PostToolUse violation
feedback, and PostToolUseFailure offering a stored fix.

Each scenario asserts both sides: what the model was shown in the request that followed the
tool call (the stand-in recorded it), and what actually ran on the machine.
"""

from __future__ import annotations

import pytest

from .standin import bash, tool_use

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def gate_session(e2e_home):
    """One session: a command a block rule denies, then one a warn rule lets through."""
    e2e_home.cli("rules", "add", "Never use pythonw.exe", "--alternative", "use python.exe")
    e2e_home.cli("rules", "add", "Prefer uv over pip")
    return e2e_home.run_session(
        "launch the app, then check pip",
        [
            bash("touch denied.txt && pythonw.exe src/main.py", "launch"),
            bash("touch warned.txt && pip --version", "check pip"),
            "Done.",
        ],
    )


def test_pre_tool_use_deny_stops_the_command_and_tells_the_model_why(e2e_home, gate_session):
    s = gate_session
    assert s.returncode == 0, s.describe()
    denied = s.main_requests[1].tool_results()[-1]
    assert denied["is_error"], s.describe()
    assert denied["text"].startswith("PreToolUse:Bash hook error:"), denied
    assert "Never use pythonw.exe" in denied["text"] and "use python.exe" in denied["text"], denied
    # Beside the deny, context that says it is no transient error, so the model changes course.
    beside = s.main_requests[1].hook_contexts("PreToolUse:Bash")
    assert any("not a transient error" in c and "do this instead: use python.exe" in c for c in beside), beside
    # The whole command line was refused: its harmless first half did not run either.
    assert not (e2e_home.project / "denied.txt").exists()
    blocks = e2e_home.cli_json("audit", "--action", "enforce_block")
    assert any(r["hook_event"] == "PreToolUse" for r in blocks), blocks


def test_pre_tool_use_warn_lets_the_command_run_and_tells_the_model_why(e2e_home, gate_session):
    s = gate_session
    after_warn = s.main_requests[2]
    result = after_warn.tool_results()[-1]
    assert not result["is_error"], s.describe()
    assert result["text"].startswith("pip "), result  # pip really ran and printed its version
    assert (e2e_home.project / "warned.txt").exists()
    warnings = after_warn.hook_contexts("PreToolUse:Bash")
    assert any("Prefer uv over pip" in w and "allowed" in w for w in warnings), s.describe()
    assert not any("pip" in w for w in s.main_requests[1].hook_contexts("PreToolUse:Bash"))


def test_post_tool_use_feeds_a_rule_violation_in_a_written_file_back(e2e_home):
    """A Write is not a Bash call, so the pythonw.exe command rule does not stop it; after it
    ran, verification reads the written launcher, finds the program the rule forbids, and puts
    the violation beside the tool result."""
    target = e2e_home.project / "src" / "launch.py"
    s = e2e_home.run_session(
        "write a launcher",
        [
            tool_use(
                "Write",
                {
                    "file_path": str(target),
                    "content": "import subprocess\n\nsubprocess.run(['pythonw.exe', 'main.py'])\n",
                },
            ),
            "Written.",
        ],
    )
    assert s.returncode == 0, s.describe()
    assert target.exists()  # the Write itself ran
    assert s.tool_results()[-1]["is_error"] is False
    feedback = s.last_request.hook_feedback("PostToolUse:Write")
    assert feedback, s.describe()
    assert "memory-cli verification" in feedback[-1] and "Never use pythonw.exe" in feedback[-1]
    violations = e2e_home.cli_json("audit", "--action", "verify_fail")
    assert any(r["hook_event"] == "PostToolUse" and r["context"] == "Write" for r in violations), violations


def test_post_tool_use_failure_offers_the_stored_fix(e2e_home):
    e2e_home.cli(
        "add",
        "ModuleNotFoundError: No module named whisper_core means the audio extra is "
        "missing; uv sync --extra audio installs it",
        "--category",
        "remediation",
    )
    s = e2e_home.run_session(
        "run the transcriber",
        [
            bash("python3 -c 'import whisper_core'", "import check"),
            "I will install the extra.",
        ],
    )
    assert s.returncode == 0, s.describe()
    failed = s.tool_results()[-1]
    assert failed["is_error"] and "No module named 'whisper_core'" in failed["text"], failed
    offered = s.last_request.hook_contexts("PostToolUseFailure:Bash")
    assert offered, s.describe()
    assert "Past solutions to similar errors" in offered[-1]
    assert "uv sync --extra audio" in offered[-1]


def test_deny_holds_with_permission_checks_bypassed(e2e_home):
    """``--dangerously-skip-permissions`` (permission mode ``bypassPermissions``, allowed for
    root only in a sandbox) skips Claude Code's own prompts, not memory-cli's gate."""
    s = e2e_home.run_session(
        "launch it, no questions asked",
        [bash("touch bypassed.txt && pythonw.exe src/main.py", "launch"), "Done."],
        extra_args=["--dangerously-skip-permissions"],
        env={"IS_SANDBOX": "1"},
    )
    assert s.returncode == 0, s.describe()
    assert [e.get("permissionMode") for e in s.events if e.get("subtype") == "init"][:1] == ["bypassPermissions"]
    denied = s.tool_results()[-1]
    assert denied["is_error"] and "Never use pythonw.exe" in denied["text"], s.describe()
    assert not (e2e_home.project / "bypassed.txt").exists()


def test_an_ask_rule_in_print_mode_is_a_refusal_the_model_understands(e2e_home):
    """``ask`` hands the decision to the person; ``claude -p`` has nobody to ask, so Claude Code
    refuses the call, lists it in ``permission_denials`` and the model reads the rule."""
    e2e_home.cli(
        "rules", "add", "Ask before pushing", "--pattern", "git push", "--pattern-type", "command", "--action", "ask"
    )
    s = e2e_home.run_session(
        "publish the branch", [bash("touch pushed.txt && git push origin main", "push"), "Waiting for you."]
    )
    assert s.returncode == 0, s.describe()
    refused = s.tool_results()[-1]
    assert refused["is_error"] and "Ask before pushing" in refused["text"], s.describe()
    assert not (e2e_home.project / "pushed.txt").exists()
    denials = s.result.get("permission_denials") or []
    assert [d["tool_input"]["command"] for d in denials] == ["touch pushed.txt && git push origin main"]


def test_a_rule_naming_a_replacement_rewrites_the_call_and_asks(fresh_home):
    """With ``enforcement.rewrite_to_alternative``, "use pnpm, not npm" answers ``npm install``
    with ``ask`` and ``updatedInput``: the call Claude Code holds for the person's answer is the
    rewritten one (``claude -p`` has nobody to ask, so it is listed in ``permission_denials``)."""
    fresh_home.write_config({"enforcement": {"rewrite_to_alternative": True}})
    fresh_home.cli("rules", "add", "use pnpm, not npm")
    s = fresh_home.run_session("add left-pad", [bash("npm install left-pad", "install"), "Waiting for you."])
    assert s.returncode == 0, s.describe()
    denials = s.result.get("permission_denials") or []
    assert [d["tool_input"]["command"] for d in denials] == ["pnpm install left-pad"], s.describe()
    refused = s.tool_results()[-1]
    assert refused["is_error"] and "pnpm install left-pad" in refused["text"], s.describe()


def test_an_ask_rule_defers_a_headless_run_when_configured(fresh_home):
    """``enforcement.headless_ask = "defer"``: in ``claude -p`` (``CLAUDE_CODE_SESSION_ATTENDED=0``)
    an ask rule stops the run with the call pending (``stop_reason: tool_deferred``); nothing ran
    and the model was not asked again."""
    fresh_home.write_config({"enforcement": {"headless_ask": "defer"}})
    fresh_home.cli(
        "rules", "add", "Ask before pushing", "--pattern", "git push", "--pattern-type", "command", "--action", "ask"
    )
    s = fresh_home.run_session("publish the branch", [bash("git push origin main; touch pushed.txt", "push"), "Done."])
    assert s.result.get("stop_reason") == "tool_deferred", s.describe()
    assert not (fresh_home.project / "pushed.txt").exists()
    assert len(s.main_requests) == 1, s.describe()
