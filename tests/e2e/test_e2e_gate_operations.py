"""A rule on an operation, through the real Claude Code: other spellings of a recursive delete
are denied before they run, and what is only a look-alike runs.

One session with the scripted model: ``find fixtures -delete``, ``shutil.rmtree`` in
``python3 -c`` and ``rm${IFS}-rf${IFS}fixtures`` against the rule ``rm -rf fixtures``; the folder
is still there afterwards, the model was told which rule and which spelling, and the harmless
``ls fixtures`` ran.
"""

from __future__ import annotations

import pytest

from .standin import bash

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
