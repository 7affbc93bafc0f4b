"""A rule on an operation, through the real Claude Code, Codex CLI and Gemini CLI: other
spellings of a recursive delete are denied before they run, and what is only a look-alike runs.

Against the rule ``rm -rf fixtures``, sessions with the scripted models try ``find fixtures
-delete``, ``shutil.rmtree`` in ``python3 -c`` and ``rm${IFS}-rf${IFS}fixtures``; the folder is
still there afterwards, the model was told which rule, and the harmless ``ls fixtures`` ran.
"""

from __future__ import annotations

import pytest

from .agent_standins import codex_exec, gemini_call
from .standin import bash
from .test_e2e_agents import agent_bins, agents  # noqa: F401  (the pinned Codex and Gemini CLIs)

pytestmark = pytest.mark.e2e


def test_other_spellings_of_a_recursive_delete_are_denied_and_a_look_alike_runs(fresh_home):
    fixtures = fresh_home.project / "fixtures"
    (fixtures / "deep").mkdir(parents=True)
    (fixtures / "deep" / "keep.txt").write_text("keep\n")
    r = fresh_home.cli(
        "rules", "add", "Never delete the fixtures", "--pattern", "rm -rf fixtures", "--pattern-type", "command"
    )
    assert r.returncode == 0 and "recognised as a recursive delete" in r.stderr, r.stderr
    s = fresh_home.run_session(
        "clean up the fixtures",
        [
            bash("touch one.txt && find fixtures -delete", "clean"),
            bash("touch two.txt && python3 -c \"import shutil; shutil.rmtree('fixtures')\"", "clean"),
            bash("touch three.txt && rm${IFS}-rf${IFS}fixtures", "clean"),
            bash("touch four.txt && ls fixtures", "look"),
            "Done.",
        ],
    )
    assert s.returncode == 0, s.describe()
    results = s.tool_results()
    assert len(results) == 4, s.describe()
    for denied in results[:3]:
        assert denied["is_error"] and "Never delete the fixtures" in denied["text"], denied
    # another program: the reason names the spelling found; $IFS is read as bash reads it
    assert "`find fixtures -delete` does what `rm -rf fixtures` does" in results[0]["text"], results[0]
    assert "shutil.rmtree('fixtures')" in results[1]["text"], results[1]
    assert not results[3]["is_error"] and "deep" in results[3]["text"], results[3]
    assert (fixtures / "deep" / "keep.txt").read_text() == "keep\n"
    assert [p.name for p in sorted(fresh_home.project.glob("*.txt"))] == ["four.txt"]


def _fixtures(project):
    fixtures = project / "fixtures"
    (fixtures / "deep").mkdir(parents=True, exist_ok=True)
    (fixtures / "deep" / "keep.txt").write_text("keep\n")
    return fixtures


@pytest.fixture(scope="module")
def fixtures_rule(agents):  # noqa: F811
    r = agents.home.cli(
        "rules", "add", "Never delete the fixtures", "--pattern", "rm -rf fixtures", "--pattern-type", "command"
    )
    assert r.returncode == 0, r.stderr
    return agents


def test_codex_denies_another_spelling_of_the_delete_and_runs_the_look_alike(fixtures_rule):
    project = fixtures_rule.home.project
    fixtures = _fixtures(project)
    run = fixtures_rule.codex(
        "clean up the fixtures",
        [
            [codex_exec("touch cdenied.txt && find fixtures -delete")],
            [codex_exec("touch clookalike.txt && ls fixtures")],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert not (project / "cdenied.txt").exists() and (project / "clookalike.txt").exists(), run.describe()
    assert (fixtures / "deep" / "keep.txt").exists()
    assert "Never delete the fixtures" in run.standin.tool_outputs()[0], run.describe()


def test_gemini_denies_another_spelling_of_the_delete_and_runs_the_look_alike(fixtures_rule):
    project = fixtures_rule.home.project
    fixtures = _fixtures(project)
    delete = "touch gdenied.txt && python3 -c \"import shutil; shutil.rmtree('fixtures')\""
    run = fixtures_rule.gemini(
        "clean up the fixtures",
        [
            [gemini_call("run_shell_command", {"command": delete})],
            [gemini_call("run_shell_command", {"command": "touch glookalike.txt && ls fixtures"})],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert not (project / "gdenied.txt").exists() and (project / "glookalike.txt").exists(), run.describe()
    assert (fixtures / "deep" / "keep.txt").exists()
    assert "Never delete the fixtures" in run.standin.tool_outputs()[0], run.describe()
