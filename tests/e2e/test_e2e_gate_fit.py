"""The gate's verdicts as the real Claude Code shows them to the model: a block rule is not
walked past by padding a command until its check runs out, nor by words the command builds at
run time; after a call ran, a warn-level rule only warns (context, not a blocking feedback), and
a call that only looks is no violation.

Each scenario asserts what the model was shown in the request that followed the tool call and
what actually ran on the machine.
"""

from __future__ import annotations

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e


def test_a_padded_pipe_to_shell_is_refused_and_the_model_is_told_why(e2e_home):
    e2e_home.cli(
        "rules", "add", "Never pipe curl into a shell", "--pattern", r"curl.*\|\s*(ba)?sh", "--pattern-type", "regex",
        "--action", "block",
    )  # fmt: skip
    # 40 KB on which the regex search takes seconds; the shell would only run `touch` and `echo`.
    padded = "touch padded.txt; echo sh # " + "curl|" * 8000
    s = e2e_home.run_session("fetch the installer", [bash(padded, "install"), "Done."])
    assert s.returncode == 0, s.describe()
    refused = s.main_requests[1].tool_results()[-1]
    assert refused["is_error"], s.describe()
    assert "Never pipe curl into a shell" in refused["text"] and "could not be finished" in refused["text"], refused
    assert not (e2e_home.project / "padded.txt").exists()


def test_after_the_call_a_warn_rule_warns_and_a_look_is_no_violation(e2e_home):
    e2e_home.cli("rules", "add", "Prefer uv over pip")
    s = e2e_home.run_session(
        "check pip, then drop a package",
        [
            bash("pip --version", "check pip"),
            bash("pip uninstall -y memory-cli-e2e-absent-package", "uninstall"),
            "Done.",
        ],
    )
    assert s.returncode == 0, s.describe()
    after_look, after_uninstall = s.main_requests[1], s.main_requests[2]
    assert not after_look.hook_feedback("PostToolUse:Bash"), s.describe()
    assert not any("verification" in c for c in after_look.hook_contexts("PostToolUse:Bash")), s.describe()
    # The uninstall did what the rule is about: the model is told, as a warning beside the
    # result, not as a blocking error.
    assert not after_uninstall.hook_feedback("PostToolUse:Bash"), s.describe()
    warnings = after_uninstall.hook_contexts("PostToolUse:Bash")
    assert any("Prefer uv over pip" in w and "warn" in w for w in warnings), s.describe()
    violations = e2e_home.cli_json("audit", "--action", "verify_fail")
    assert [r["context"] for r in violations] == ["Bash"], violations


def test_a_block_rules_words_built_at_run_time_are_refused_or_asked_and_the_model_is_told_why(e2e_home):
    e2e_home.cli(
        "rules", "add", "Never force-push", "--pattern", "git push --force", "--pattern-type", "command",
        "--action", "block",
    )  # fmt: skip
    s = e2e_home.run_session(
        "publish the branch",
        [
            bash("touch resolved.txt; x=push; git $x --force", "push"),
            bash("touch unknown.txt; G=$(command -v git); $G push --force", "push again"),
            "Waiting for you.",
        ],
    )
    assert s.returncode == 0, s.describe()
    resolved, unknown = s.tool_results()[-2:]
    assert resolved["is_error"] and "Never force-push" in resolved["text"], s.describe()
    # `ask` in print mode: nobody to ask, so Claude Code refuses it and the model reads why
    assert unknown["is_error"] and "builds its words at run time" in unknown["text"], s.describe()
    assert not (e2e_home.project / "resolved.txt").exists()
    assert not (e2e_home.project / "unknown.txt").exists()
