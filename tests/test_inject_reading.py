"""What the agent reads: injected text rendered from realistic stores, checked as a reader would.

Marker memories keep what they are about; session start leaves out knowledge unrelated to the
session; the token budget is honoured up to Claude Code's hook output limit and a cut is said;
memories saying the same thing appear once; the example session and the smoke tests of the
specification read as written.
"""

from __future__ import annotations

import re

import pytest

from memory_cli import entries, scope_requests
from memory_cli import settings as settings_mod
from memory_cli.capture import lifecycle
from memory_cli.retrieval import format as fmt
from memory_cli.retrieval import per_prompt, search, session_start


def cfg(**injection):
    s = settings_mod.load()
    s["injection"].update(injection)
    return s


def marker(store, category, subject, observation, confidence, session="s0", scope="global"):
    r = lifecycle.record_marker(store, category, subject, observation, session_id=session, scope=scope)
    if scope == "global":  # written with no project: held back until the person lets it apply everywhere
        scope_requests.approve(store, r["entry_id"])
    return entries.update(store, r["entry_id"], confidence=confidence)


def session_block(store, context, **kw):
    return session_start.inject(store, context, cfg(), record=False, include_instructions=False, **kw)


def test_the_example_session_reads_as_specified(store):
    marker(store, "timing", "jellyfin", "Takes 60s to start after restart", 0.9)
    marker(store, "behavior", "jellyfin", "First restart always fails due to DB lock", 0.8)
    marker(store, "remediation", None, "DNS checks sometimes fail transiently during WireGuard reconnects", 0.6)
    r = session_block(store, {"project": "homelab", "task": "jellyfin is down again; check it and DNS"})
    assert r["text"] == (
        "## Operational Memory (3 memories, ~107 tokens)\n\n"
        "Recorded by memory-cli in earlier sessions; confidence runs from 0 to 1.\n\n"
        "### jellyfin\n"
        "- [timing] Takes 60s to start after restart (confidence: 0.9; by the agent)\n"
        "- [behavior] First restart always fails due to DB lock (confidence: 0.8; by the agent)\n\n"
        "### general\n"
        "- [remediation] DNS checks sometimes fail transiently during WireGuard reconnects"
        " (confidence: 0.6; by the agent)"
    )


def test_a_project_marker_names_its_subject_and_category(store):
    marker(store, "timing", "whisperclick", "takes 60s to start after restart", 0.7, scope="project:whisperclick")
    r = session_block(store, {"project": "whisperclick"})
    assert "- [timing] whisperclick: takes 60s to start after restart (confidence: 0.7; by the agent)" in r["text"]
    assert "### project: whisperclick" in r["text"]
    # beside a prompt too, where there are no headings
    p = per_prompt.for_prompt(
        store, "how long does whisperclick take to start after a restart?", cfg(), project="whisperclick", record=False
    )
    assert "[timing] whisperclick: takes 60s to start after restart" in p["text"]


def test_specification_smoke_tests_read_naturally(store):
    rule = entries.add(store, "Never use pythonw.exe; use python.exe so tracebacks are visible", "rule", confidence=1.0)
    drag = entries.add(
        store,
        "Window drag posts WM_APP_DRAGSTART from the JS mousedown handler",
        "fact",
        scope="project:whisperclick",
        confidence=0.8,
    )
    r = session_block(store, {"project": "WhisperClick V3"})
    assert set(r["ids"]) == {rule["id"], drag["id"]}
    lines = r["text"].splitlines()
    assert "- [fact] Window drag posts WM_APP_DRAGSTART from the JS mousedown handler (confidence: 0.8)" in lines
    assert "- [rule] Never use pythonw.exe; use python.exe so tracebacks are visible (confidence: 1.0)" in lines
    assert lines.index("### project: whisperclick") < lines.index("### general")
    hits = search.query(store, "drag window", scope="project:whisperclick", use_vectors=False)
    assert hits[0]["id"] == drag["id"]


def test_session_start_leaves_out_unrelated_global_knowledge(store):
    rule = entries.add(store, "Never force-push to shared branches", "rule", confidence=0.9)
    pref = entries.add(store, "Prefer small commits with imperative messages", "preference", confidence=0.8)
    pinned = entries.add(store, "Backups run at 02:00; do not restart postgres then", "fact", confidence=0.9)
    entries.update(store, pinned["id"], confidence=0.9)
    store.execute("UPDATE memory_entries SET pinned = 1 WHERE id = ?", (pinned["id"],))
    unrelated = entries.add(store, "The billing service rounds invoices to whole cents", "fact", confidence=0.9)
    related = entries.add(store, "The whisperclick tray icon vanishes after explorer restarts", "fact", confidence=0.6)
    own = entries.add(
        store, "Builds need the Windows SDK 10.0.22621", "fact", scope="project:whisperclick", confidence=0.6
    )
    r = session_block(store, {"project": "whisperclick", "task": "fix the tray icon"})
    got = set(r["ids"])
    assert {rule["id"], pref["id"], pinned["id"], own["id"], related["id"]} <= got
    assert unrelated["id"] not in got and "billing" not in r["text"]
    assert r["below_floor"] == 1


SERVICES = (
    "billing",
    "mailer",
    "search",
    "auth",
    "gateway",
    "reports",
    "exports",
    "thumbnails",
    "payments",
    "webhooks",
    "scheduler",
    "ledger",
)
CHECKS = (
    "run its migrations with --dry-run before applying them",
    "keep its TLS certificates in vault, never on disk",
    "pin its base image by digest in the Dockerfile",
    "log through structlog with request ids attached",
    "expose /healthz returning 200 only once the queue consumer is connected",
)


def _many(store):
    """120 distinct rules, about 30 tokens each: some 4,000 tokens of memory in all."""
    for i, (service, check, where) in enumerate(
        (s, c, w) for s in SERVICES for c in CHECKS for w in ("in staging", "in production")
    ):
        entries.add(
            store, f"The {service} service must {check} {where} (team decision {2020 + i % 5})", "rule", confidence=0.9
        )


def test_budget_is_honoured_up_to_the_hook_output_limit_and_the_cut_is_reported(store, monkeypatch):
    _many(store)
    monkeypatch.setenv("MEMORY_CLI_BUDGET", "1500")
    small = session_start.inject(store, {"project": "x"}, cfg(max_entries=200), record=False)
    assert small["notice"] == "" and small["tokens"] <= 1500
    monkeypatch.setenv("MEMORY_CLI_BUDGET", "2300")  # above the old silent 8,500-character cap
    mid = session_start.inject(store, {"project": "x"}, cfg(max_entries=200), record=False, include_instructions=False)
    assert mid["included"] > small["included"] and mid["notice"] == ""
    assert len(mid["memory_text"]) > 8_500
    monkeypatch.setenv("MEMORY_CLI_BUDGET", "6000")
    big = session_start.inject(store, {"project": "x"}, cfg(max_entries=200), record=False)
    assert len(big["text"]) <= fmt.HARD_CHAR_LIMIT < fmt.CLAUDE_OUTPUT_LIMIT
    assert big["included"] > small["included"]
    assert re.search(
        r"\d+ more memories fit the 6,000-token budget but not Claude Code's 10,000-character "
        r"limit",
        big["notice"],
    )
    assert big["notice"] in big["memory_text"]  # the agent is told too


def test_session_start_hook_tells_the_person_when_the_limit_cut_memories(store, hook, tmp_path):
    import json

    from helpers.hooks import payload

    _many(store)
    store.close()
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"injection": {"max_entries": 200}}))
    r = hook(
        "SessionStart", payload("SessionStart"), env={"MEMORY_CLI_BUDGET": "6000", "MEMORY_CLI_CONFIG": str(config)}
    )
    assert "more memories fit the 6,000-token budget" in (r.json or {}).get("systemMessage", "")
    assert len(r.context) < fmt.CLAUDE_OUTPUT_LIMIT


def test_a_preference_and_the_rule_saying_the_same_are_merged_keeping_the_stronger(store):
    pref = entries.add(store, "Use pnpm instead of npm to install packages", "preference", confidence=0.8)
    rule = entries.add(
        store, "Use pnpm instead of npm to install packages in this repo", "rule", source="promoted", confidence=0.9
    )
    r = session_block(store, {"project": "shop"})
    assert r["ids"] == [rule["id"]]
    assert r["text"].count("pnpm instead of npm") == 1
    assert "also recorded as preference, added by hand" in r["text"]
    assert pref["id"] not in r["ids"]


REPO_RULES = [
    ("Use pnpm, never npm or yarn, to install and run packages in this repo", "rule"),
    ("Never use pythonw.exe; use python.exe so tracebacks are visible", "rule"),
    ("Run the test suite with pytest -q before committing", "rule"),
    ("Do not push to main directly; open a pull request", "rule"),
    ("Docker images are built with buildx for both amd64 and arm64", "fact"),
    ("Use ruff for linting and formatting Python code", "preference"),
    ("Commit messages use the imperative mood", "preference"),
    ("Never commit .env files", "rule"),
    ("The API server listens on port 8080 in development", "fact"),
    ("Use TypeScript strict mode in every package", "rule"),
    ("Prefer composition over inheritance in the service layer", "preference"),
    ("The web package depends on the shared ui package through the workspace", "fact"),
]


@pytest.mark.parametrize("use_vectors", [False, True])
def test_which_package_manager_finds_the_pnpm_rule_first(store, use_vectors, monkeypatch):
    added = [entries.add(store, c, t, confidence=0.9) for c, t in REPO_RULES]
    if use_vectors:
        from memory_cli.embeddings import model as model_mod
        from memory_cli.embeddings import vectors
        from memory_cli.retrieval import hybrid

        try:
            m = model_mod.load_model()
        except Exception as e:  # noqa: BLE001
            pytest.skip(f"model unavailable: {e}")
        vectors.reindex(store, m.embed, model=model_mod.DEFAULT_MODEL)
        # The daemon's answers, computed beforehand: an in-process embedding on a loaded machine
        # can outlast the daemon's request timeout, and this test is about the ranking.
        queries = (
            "which package manager should I use",
            "how do I install dependencies here?",
            "what linter do we use?",
        )
        answers = dict(zip(queries, m.embed(list(queries))))
        monkeypatch.setattr(hybrid, "query_vector", lambda text, timeout_ms, model=None: answers[text])
    for q in ("which package manager should I use", "how do I install dependencies here?"):
        hits = search.query(store, q, use_vectors=use_vectors)
        assert hits[0]["id"] == added[0]["id"], (q, [h["content"] for h in hits[:3]])
    # the linter question finds the linter preference, not the package manager
    assert search.query(store, "what linter do we use?", use_vectors=use_vectors)[0]["id"] == added[5]["id"]
