"""Correction detection on what people actually type: what counts, what only looks like it."""

from __future__ import annotations

import pytest

from memory_cli.capture.detect import detect, detect_by_rules
from memory_cli.capture.wording import is_confident

E, I = "explicit", "implicit"

# (message, kind, confidence, what_was_wrong, what_is_right); None = "not checked"
POSITIVE = [
    # seed 002 success criterion and the examples
    ("No, use python.exe not pythonw.exe", E, 0.9, "pythonw.exe", "python.exe"),
    ("use pnpm, not npm", E, 0.9, "npm", "pnpm"),
    ("never use pythonw.exe", E, 0.9, "pythonw.exe", ""),
    ("No! Don't use pythonw.exe again", E, 0.9, "pythonw.exe", ""),
    ("stop using pythonw.exe", E, 0.9, "pythonw.exe", ""),
    ("NEVER use pythonw.exe!!!", E, 0.9, "pythonw.exe", ""),
    ("Never use pythonw.exe because it hides the console errors", E, 0.9, "pythonw.exe", ""),
    (
        "No, do it this way: read the config first, then start the server",
        E,
        0.9,
        "",
        "read the config first, then start the server",
    ),
    ("Don't use npm, use pnpm instead", E, 0.9, "npm", "pnpm"),
    ("Don't use npm. Use pnpm instead.", E, 0.9, "npm", "pnpm"),
    ("do not run the migrations by hand", E, 0.9, "run the migrations by hand", ""),
    ("Please don't hardcode paths", E, 0.9, "hardcode paths", ""),
    ("Avoid global state in the handlers", E, 0.9, "global state in the handlers", ""),
    ("Avoid using print for logging", E, 0.9, "print for logging", ""),
    ("Always run the tests before committing", E, 0.9, "", "run the tests before committing"),
    ("always use absolute imports", E, 0.9, "", "absolute imports"),
    ("From now on, use tabs", E, 0.9, "", "tabs"),
    ("Use `pnpm install`, not `npm install`", E, 0.9, "npm install", "pnpm install"),
    ("Use ruff instead of flake8", E, 0.9, "flake8", "ruff"),
    ("use httpx rather than requests", E, 0.9, "requests", "httpx"),
    ("Instead of pip, use uv", E, 0.9, "pip", "uv"),
    ("Prefer f-strings over format()", E, 0.9, "format()", "f-strings"),
    ("It's pnpm, not npm", E, 0.9, "npm", "pnpm"),
    ("it should be port 8080, not 3000", E, 0.9, "3000", "port 8080"),
    ("Tabs, not spaces.", E, 0.9, "spaces", "Tabs"),
    ("That's wrong, the port is 8080", E, 0.9, "", "the port is 8080"),
    ("That's wrong. Use pnpm, not npm.", E, 0.9, "npm", "pnpm"),
    ("that is not what I asked for", E, 0.9, "", ""),
    # a verdict on what the agent said, not a ban on "true" (which grouped as "do not true")
    ("Not true. You have been modifying the aws setup an hour before!!", E, 0.9, "", ""),
    ("no, not correct", E, 0.9, "", ""),
    ("No, I meant the other file", E, 0.9, "", "the other file"),
    ("Nope, not that one, the staging config", E, 0.9, "that one", "the staging config"),
    ("No. Use the staging database.", E, 0.9, "", "the staging database"),
    # any verb after "no": the rule reads what is right and what was wrong, not only the model
    ("no, tag the image with the git sha, not latest", E, 0.9, "latest", "tag the image with the git sha"),
    ("Wrong branch, use develop", E, 0.9, "the wrong branch", "develop"),
    ("You used the wrong file", E, 0.9, "the wrong file", ""),
    ("You should have used pathlib", E, 0.9, "", "pathlib"),
    ("you shouldn't have deleted that file", E, 0.9, "deleted that file", ""),
    ("We don't use npm here", E, 0.9, "npm", ""),
    ("don't forget to update the changelog", E, 0.9, "", "update the changelog"),
    ("Can you please stop using emojis?", E, 0.9, "emojis", ""),
    ("Like I said, never use npm in this repo", E, 0.9, "npm", ""),
    ("ok so don't commit the .env file", E, 0.9, "commit the .env file", ""),
    ("Stop adding docstrings to every function", E, 0.9, "add docstrings to every function", ""),
    ("never push directly to main", E, 0.9, "push directly to main", ""),
    ("Please never use --no-verify when committing", E, 0.9, "--no-verify when committing", ""),
    ("I don't want you to touch the lockfile", E, 0.9, "touch the lockfile", ""),
    # implicit
    ("I already told you to use pnpm", I, 0.6, "", "pnpm"),
    ("I already told you not to touch the migrations", I, 0.6, "touch the migrations", ""),
    ("I've told you this before", I, 0.6, "", ""),
    ("Again, use pnpm.", I, 0.6, "", "pnpm"),
    ("again: run black before you commit", I, 0.6, "", "run black before you commit"),
    ("Like I said, the config lives in ~/.config/app", I, 0.6, "", "the config lives in ~/.config/app"),
    ("For the third time, run the linter before pushing", I, 0.6, "", "run the linter before pushing"),
    ("How many times do I have to tell you to use pnpm?", I, 0.6, "", "pnpm"),
    ("Didn't I tell you to use the venv?", I, 0.6, "", "the venv"),
    ("I didn't ask for that", I, 0.6, "", ""),
    ("I never asked you to refactor the whole module", I, 0.6, "refactor the whole module", ""),
    ("You keep adding comments everywhere", I, 0.6, "add comments everywhere", ""),
    ("you're still using the old API", I, 0.6, "the old API", ""),
    ("Why do you keep using print statements?", I, 0.6, "print statements", ""),
    ("you did it again", I, 0.6, "", ""),
    ("You forgot to run the tests", I, 0.6, "", "run the tests"),
    # inferred from a rhetorical question
    ("Why did you delete the tests?", I, 0.3, "delete the tests", ""),
    ("why are you using sudo?", I, 0.3, "sudo", ""),
    ("Why didn't you run the formatter?", I, 0.3, "", "run the formatter"),
    ("you used npm, use pnpm instead", E, 0.9, "npm", "pnpm"),
    ("you edited the generated file, edit the template instead", E, 0.9, "the generated file", "the template"),
    ("the env var is DATABASE_URL, not DB_URL", E, 0.9, "DB_URL", "DATABASE_URL"),
    ("incorrect, timeout should be 30 seconds", E, 0.9, "", "timeout should be 30 seconds"),
]

NEGATIVE = [
    # questions about X
    "should we never use X?",
    "Should I always run the tests first?",
    "what does 'never use X' mean?",
    "Is it python.exe or pythonw.exe?",
    "Does it always do that?",
    "Why does the build fail?",
    "Can you use pnpm to install it?",
    "Do you know why it never returns?",
    # requests whose wording holds a negation
    "add a flag so it doesn't print colors",
    "make sure the tests don't hit the network",
    "Write a linter rule that says never use eval",
    "Make it so the UI never flickers",
    "I want a script that doesn't need root",
    "If the build fails, don't retry",
    "Add a check that we never write outside the temp dir",
    # praise, thanks, reassurance
    "no problem, that's great",
    "No, that's perfect, thanks!",
    "Great job!",
    "No worries, looks good to me",
    "Never mind, it works now",
    "Don't worry about it",
    "Not bad at all",
    # quoted text
    "> never use npm",
    'The docs say "never use eval".',
    "```\n# never use this in prod\nnever use pythonw.exe\n```",
    "`never use X` is a good rule name",
    "He wrote “stop using npm” in the PR",
    "The README says 'always use pnpm' somewhere, can you find it?",
    # answers and statements that are not corrections
    "No.",
    "No, not yet.",
    "Nope",
    "No tests are failing now",
    "I don't know why it fails",
    "I don't think so",
    "It never returns null",
    "Never used it before, how does it work?",
    "Great. Never seen it this fast!",
    "The server always restarts at midnight",
    # everyday encouragement and chat (from the LoCoMo conversations): not aimed at an agent
    "Don't give up on your dreams. Talk to you later!",
    "Don't quit!",
    "Never give up!",
    "No prob! Always here to help. Can't wait to see the vid!",
    "We don't go often, usually only once or twice a year.",
    "We always look forward to our family camping trip.",
    "Never saw this coming.",
    "Instead of giving up, I turned it into a learning experience.",
    "It's a great story about religion and human control over ecology.",
    "It's been a loooong time coming, and I'm over the moon about it!",
    "It's disheartening not knowing why it didn't work out.",
    "Why do you feel that way?",
    "Nope, but it's my first time going.",
    "Don't let the bumps in the road bring you down.",
    "Don't be afraid to take risks-- I'm 100% behind you!",
    "But don't get discouraged, just keep going.",
    "Don't miss a beat!",
    "You never know what might happen.",
    # ordinary requests
    "Stop the server and restart it",
    "Use pnpm to install the deps.",
    "Run the tests again",
    "Please refactor the parser",
    "Please don't push yet, I'm still reviewing",
    "Don't merge until CI is green",
    "",
    "   ",
    "no, it should be fine",
    "that commit broke the build last week",
    "you ran the tests, now run the linter",
    "perfect, don't change anything else",
    "revert the last commit on the release branch, the tag is wrong",
]


@pytest.mark.parametrize("message,kind,confidence,wrong,right", POSITIVE, ids=[p[0][:40] for p in POSITIVE])
def test_correction_is_detected_and_extracted(message, kind, confidence, wrong, right):
    d = detect(message)
    assert d is not None, message
    assert d.kind == kind
    assert d.confidence == pytest.approx(confidence)
    assert d.what_was_wrong == wrong
    assert d.what_is_right == right


@pytest.mark.parametrize("message", NEGATIVE, ids=[n[:40] or "empty" for n in NEGATIVE])
def test_look_alike_is_left_alone(message):
    """The rules leave it alone and Claude is never told of it. The learned model, trained on
    prompts people really typed where "no, ..." mostly is a correction, may keep one of these for
    review (scripts/train_capture_model.py chooses the threshold on real people held out)."""
    assert detect_by_rules(message) is None
    assert not is_confident(detect(message), message)


def test_corpus_is_large():
    assert len(POSITIVE) + len(NEGATIVE) >= 60


def test_statement_is_one_short_factual_line():
    assert detect("use pnpm, not npm").statement == "use pnpm, not npm"
    assert detect("No, use python.exe not pythonw.exe").statement == "use python.exe, not pythonw.exe"
    assert detect("never use pythonw.exe").statement == "do not use pythonw.exe"
    assert detect("Always run the tests before committing").statement == "run the tests before committing"


def test_same_correction_phrased_differently_has_the_same_key():
    keys = {
        detect(m).key
        for m in (
            "never use pythonw.exe",
            "No! Don't use pythonw.exe again",
            "stop using pythonw.exe",
            "Please never use `pythonw.exe`.",
        )
    }
    assert len(keys) == 1
    assert detect("use pnpm, not npm").key != detect("use npm, not pnpm").key


def test_repetition_phrases_mark_the_correction_repeated():
    assert detect("Like I said, never use npm").repeated
    assert detect("I already told you to use pnpm").repeated
    assert not detect("never use npm").repeated


def test_project_scope_hint():
    d = detect("We don't use npm in this repo")
    assert d.what_was_wrong == "npm" and d.scope_hint == "project"
    assert detect("never use npm").scope_hint is None


def test_correction_after_quoted_example_still_counts():
    d = detect("> use npm install\n\nNo, use pnpm, not npm")
    assert d is not None and (d.what_was_wrong, d.what_is_right) == ("npm", "pnpm")


def test_long_pasted_log_does_not_crash_or_trigger():
    log = "\n".join(f"2024-01-01 12:00:{i:02d} INFO worker {i} started" for i in range(2000))
    assert detect(log) is None


def test_non_string_input():
    assert detect(None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "message,wrong,statement",
    [
        ("never use pythonw.exe, my password is hunter2hunter2", "pythonw.exe", "do not use pythonw.exe"),
        ("never use pythonw.exe; it breaks the console", "pythonw.exe", "do not use pythonw.exe"),
        ("I didn't ask for a README", "a README", "do not add a README unless asked"),
    ],
)
def test_extraction_stops_at_a_new_clause_and_reads_as_a_rule(message, wrong, statement):
    d = detect(message)
    assert d.what_was_wrong == wrong
    assert d.statement == statement
