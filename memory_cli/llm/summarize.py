"""Turn the unread part of a session transcript into stored memories (and a session report).

One run: read the transcript from where the last run stopped, ask the provider (or the
extractive reader), validate, drop duplicates, then store the memories (source ``session``,
confidence 0.5), the session report and the new read position in ONE transaction, so that a
crash stores either all of it or none and the next run starts from the same place. Scopes that
end up over ``limits.per_scope`` are compacted afterwards.
"""

from __future__ import annotations

import os

from memory_cli import audit, entries
from memory_cli import scope as scopes
from memory_cli.errors import InvalidInput, NotFound
from memory_cli.llm import config as llm_config
from memory_cli.llm import extractive, prompts, providers, transcript
from memory_cli.llm.validate import Malformed, check_corrections, check_save

SESSION_CONFIDENCE = 0.5
OFFSET_KEY = "llm.offset:"
EXISTING_IN_PROMPT = 40


def offset_key(path: str) -> str:
    return OFFSET_KEY + os.path.realpath(path)


# Folders people start a session in that hold everything, not one project: memories a session
# there writes would reach every later session started there, whatever it is about.
_CATCH_ALL = frozenset({"desktop", "documents", "downloads", "onedrive", "tmp", "temp"})


def catch_all_folder(cwd: str | None) -> bool:
    """True for a session started outside any repository in a home folder, one of its
    Desktop/Documents/Downloads folders, a temporary folder or a drive's root (POSIX and
    Windows paths alike, as transcripts carry either)."""
    if not cwd:
        return False
    if os.path.isabs(cwd) and scopes.find_project_root(cwd, env={}):
        return False  # a repository, wherever it lies (a Windows path is never one here)
    parts = [p for p in cwd.replace("\\", "/").rstrip("/").split("/") if p]
    if parts and parts[0].endswith(":"):
        parts = parts[1:]  # C:
    low = [p.lower() for p in parts]
    if len(low) <= 1:
        return True  # / or C:\ or /tmp
    home_at = 2 if low[0] in ("home", "users") else 1 if low[0] == "root" else None
    if home_at is None:
        return low[-1] in _CATCH_ALL and len(low) <= 2
    return len(low) == home_at or (len(low) == home_at + 1 and low[-1] in _CATCH_ALL)


def _checkout_of(cwd: str | None) -> str | None:
    """Where a session's memories and report are kept: its checkout (``scope.checkout``), so
    another folder of the same name never starts from them."""
    if not cwd:
        return None
    return scopes.checkout(scopes.find_project_root(cwd, env={}) or cwd)


def _project_of(cwd: str | None) -> str | None:
    if not cwd:
        return None
    root = scopes.find_project_root(cwd, env={}) or cwd
    name = scopes.project_name(root)
    return scopes.parse(f"project:{name}") if name else None


def _existing(store, project: str | None) -> list[dict]:
    wanted = [s for s in (project, "global") if s]
    marks = ",".join("?" * len(wanted))
    return store.rows(
        f"SELECT content FROM memory_entries WHERE status = 'active' AND scope IN ({marks}) "
        "ORDER BY confidence DESC, updated_at DESC LIMIT ?",
        (*wanted, EXISTING_IN_PROMPT),
    )


REPORT_MAX_CHARS = 4000


def _save_report(store, report: str, *, scope: str, session_id: str | None, details: str) -> dict | None:
    """Store the session report where agent tools keep reports (source ``session``), when this
    install has that store. A report the store refuses is audited and skipped; the memories
    beside it are kept."""
    if not report:
        return None
    try:
        from memory_cli.reports.api import save_report
    except ImportError:
        return None
    from memory_cli.errors import InvalidInput as Refused

    summary = report if len(report) <= REPORT_MAX_CHARS else report[: REPORT_MAX_CHARS - 1] + "…"
    try:
        return save_report(store, summary, details=details, scope=scope, session_id=session_id, source="session")
    except Refused as err:
        audit.record(store, "summarize", context="report", result=f"report not stored: {err}", session_id=session_id)
        return None


def summarize_transcript(
    store,
    settings,
    path,
    *,
    session_id: str | None = None,
    project: str | None = None,
    dry_run: bool = False,
    from_start: bool = False,
    checkout: str | None = None,
) -> dict:
    """Summarise what is new in ``path``; returns what was found and what was stored.
    ``checkout`` (``repo:<root>``) is where the session ran, when known: its memories and
    report are kept there (derived from the transcript when no ``project`` is given)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise NotFound(f"no transcript at {path}")
    if os.path.isdir(path):
        raise InvalidInput(f"{path} is a directory, not a transcript (.jsonl)")
    from memory_cli.store import kvstate

    key = offset_key(path)
    start = 0 if from_start else int(kvstate.get(store, key, 0) or 0)
    try:
        ex = transcript.read(path, start)
    except OSError as err:
        raise InvalidInput(f"cannot read {path}: {err.strerror or err}") from None
    if start == 0 and ex.end > 0 and not ex.turns and ex.bad_lines and not ex.session_id:
        raise InvalidInput(f"{path} is not a Claude Code transcript (no JSON lines of a conversation)")
    redacted = transcript.redact_all(ex)  # before anything is shown, stored or sent
    session_id = session_id or ex.session_id
    here = scopes.parse(checkout) if checkout and checkout.startswith("repo:") else None
    if project:
        project = scopes.parse(project if ":" in project else f"project:{project}")
        if not project.startswith("project:"):
            raise InvalidInput(f"--project must name a project, got {project!r}")
    else:
        project = _project_of(ex.cwd)
        here = here or (_checkout_of(ex.cwd) if project else None)
    section = llm_config.llm_section(settings)
    provider = providers.provider_for(settings)
    result = {
        "memories": [],
        "report": "",
        "provider": "none",
        "stored": 0,
        "fallback": None,
        "refused": [],
        "session_id": session_id,
        "project": project,
        "dry_run": dry_run,
        "transcript": {"path": path, "from": ex.start, "to": ex.end, "skipped_bytes": ex.skipped_bytes},
        "redacted": redacted,
    }
    if ex.empty:
        result["report"] = ""
        result["nothing_new"] = True
        if not dry_run and ex.end != start:
            with store.transaction():
                kvstate.put(store, key, ex.end)
        return result

    memories, report, missed = None, "", []
    if provider is not None and llm_config.excluded(settings, project, ex.cwd):
        result["fallback"] = "project excluded by llm.exclude_projects: nothing sent"
        provider = None
    if provider is not None:
        existing = _existing(store, project)
        prompt, shown = budgeted_prompt(
            ex, project=project, existing=existing, max_tokens=int(section["max_input_tokens"])
        )
        result["request"] = shown
        try:
            answer = providers.ask(
                store,
                settings,
                provider,
                purpose="summarize",
                system=prompts.SAVE_SYSTEM,
                prompt=prompt,
                tool=prompts.SAVE_TOOL,
                session_id=session_id,
                scope=project,
            )
            memories, refused, report = check_save(answer.input, project=project)
            missed, refused_corrections = check_corrections(
                answer.input, typed=[t.text for t in ex.turns if t.role == "person"]
            )
            refused = refused + refused_corrections
            result["provider"] = provider.name
            result["refused"] = refused
            if refused:
                with store.transaction():
                    for r in refused:
                        audit.record(
                            store,
                            "llm_refused",
                            context="summarize",
                            result=r["reason"],
                            details={"item": r["item"], "provider": provider.name},
                            session_id=session_id,
                        )
        except (providers.LLMError, Malformed) as err:
            kind = getattr(err, "kind", "malformed")
            result["fallback"] = f"{provider.name} failed ({kind}: {err}); used the extractive reader"
            with store.transaction():
                audit.record(
                    store,
                    "llm_fallback",
                    context="summarize",
                    result=kind,
                    details={"provider": provider.name, "error": str(err)},
                    session_id=session_id,
                )
            memories = None
    if memories is None:
        memories, report = extractive.extract(ex, project=project)
        result["provider"] = "extractive"
        if result["fallback"] and "daily token cap" in result["fallback"]:
            # The person sees this at the next session start, with the report.
            report = (
                "Note: the model was not asked for this session's memories (daily token cap, "
                "llm.daily_token_cap); the local reader wrote this report.\n" + report
            )
    if memories and catch_all_folder(ex.cwd):
        # The report stays (it describes this session); memories would follow every session
        # started in this folder.
        result["skipped_memories"] = f"{len(memories)} not stored: {ex.cwd} is not a project folder"
        memories = []

    from memory_cli.llm.merge import new_memories

    shaped = [
        {
            "content": m["content"],
            "type": m["type"],
            "scope": m["scope"],
            "category": m.get("category"),
            "subject": m.get("subject"),
        }
        for m in memories
    ]
    kept, repeats = new_memories(store, shaped, scopes=[s for s in (here, project) if s], session_id=session_id)
    for r in repeats:
        r["memory"]["duplicate_of"] = r["duplicate_of"]
    result["memories"] = shaped
    result["report"] = report

    if dry_run:
        return result
    touched = set()
    with store.transaction():
        now_at = int(kvstate.get(store, key, 0) or 0)
        if not from_start and now_at != start:
            # Another run (the session-end job, or a second `summarize`) stored this part meanwhile.
            result["memories"] = []
            result["raced"] = f"another run summarised this transcript meanwhile (now at byte {now_at})"
            return result
        for out in kept:
            if here and out["scope"] == project:
                out["scope"] = here
            entry = entries.add(
                store,
                out["content"],
                out["type"],
                scope=out["scope"],
                source="session",
                confidence=SESSION_CONFIDENCE,
                category=out["category"],
                subject=out["subject"],
                session_id=session_id,
                tags=["session"],
                audit_context=f"session memory ({result['provider']})",
                home_scope=here or project,
            )
            out["id"] = entry["id"]
            touched.add(out["scope"])
        saved = _save_report(
            store,
            report,
            scope=here or project or "global",
            session_id=session_id,
            details=f"Written by {result['provider']} at session end; {len(kept)} memories stored.",
        )
        if saved is not None:
            result["report_id"] = saved.get("id")
        kvstate.put(store, key, ex.end)
        audit.record(
            store,
            "summarize",
            context=path,
            result=f"{len(kept)} stored",
            details={
                "provider": result["provider"],
                "fallback": result["fallback"],
                "from": ex.start,
                "to": ex.end,
                "found": len(memories),
                "refused": len(result["refused"]),
                "report": report if saved is None else None,
            },
            session_id=session_id,
        )
    result["stored"] = len(kept)
    if missed:
        from memory_cli.llm.merge import model_corrections

        name = project.split(":", 1)[1] if project else None
        result["corrections"] = len(model_corrections(store, missed, session_id=session_id, project=name))
    if touched:
        from memory_cli.llm.compact import compact_scope

        result["compacted"] = [
            c for c in (compact_scope(store, settings, sc) for sc in sorted(touched)) if c["method"] != "none"
        ]
    return result


def budgeted_prompt(ex, *, project: str | None, existing: list[dict], max_tokens: int) -> tuple[str, dict]:
    """The summary request's prompt for ``ex``, with the transcript condensed so that the whole
    request (system prompt, this prompt, the answer's schema) stays within ``max_tokens``
    (estimated); returns the prompt and what it holds (tokens, turns kept and left out)."""
    from memory_cli.llm.condense import condense, estimate_tokens, last_prompt

    fixed = (
        estimate_tokens(prompts.SAVE_SYSTEM)
        + estimate_tokens(prompts.save_prompt("", project=project, existing=existing))
        + estimate_tokens(prompts.json_only_instruction(prompts.SAVE_TOOL))
    )
    text, kept = condense(ex, max(500, max_tokens - fixed - 120))
    prompt = prompts.save_prompt(text, project=project, existing=existing)
    shown = dict(kept)
    shown["estimated_tokens"] = (
        fixed - estimate_tokens(prompts.save_prompt("", project=project, existing=existing)) + estimate_tokens(prompt)
    )
    shown["last_prompt_sent"] = bool(last_prompt(ex)) and (last_prompt(ex) or "")[:200] in prompt
    return prompt, shown


# ----------------------------------------------------------------------- queued session ends
from memory_cli.llm.queue import PENDING_KEY  # noqa: E402


def summarize_pending(store, settings) -> list[dict]:
    """Summarise every transcript queued by SessionEnd; each one leaves the queue once handled.

    A transcript that cannot be read any more (deleted) leaves the queue with an audit row; one
    that fails for another reason stays queued for the next run.
    """
    from memory_cli.store import kvstate

    done, seen = [], set()
    for _ in range(3):  # sessions that end while this runs are picked up too
        queued = [(p, i) for p, i in sorted(kvstate.with_prefix(store, PENDING_KEY).items()) if p not in seen]
        if not queued:
            break
        seen.update(p for p, _i in queued)
        done += _summarize_queued(store, settings, queued)
    return done


def _summarize_queued(store, settings, queued) -> list[dict]:
    from memory_cli.store import kvstate

    done = []
    for path, info in queued:
        info = info if isinstance(info, dict) else {}
        try:
            # Queued before checkouts were recorded: the session's folder says which.
            checkout = info.get("checkout") or (_checkout_of(info.get("cwd")) if info.get("project") else None)
            r = summarize_transcript(
                store,
                settings,
                path,
                session_id=info.get("session_id"),
                project=info.get("project"),
                checkout=checkout,
            )
            done.append(
                {"transcript": path, "stored": r["stored"], "provider": r["provider"], "fallback": r["fallback"]}
            )
        except NotFound:
            with store.transaction():
                audit.record(
                    store, "summarize", context=path, result="transcript gone", session_id=info.get("session_id")
                )
            done.append({"transcript": path, "stored": 0, "error": "transcript gone"})
        except InvalidInput as err:
            with store.transaction():
                audit.record(
                    store, "summarize", context=path, result=f"skipped: {err}", session_id=info.get("session_id")
                )
            done.append({"transcript": path, "stored": 0, "error": str(err)})
        except Exception as err:  # stays queued: the next run tries again
            audit.record_safely(
                store,
                "summarize",
                context=path,
                result=f"failed: {type(err).__name__}: {err}",
                session_id=info.get("session_id"),
            )
            done.append({"transcript": path, "stored": 0, "error": f"{type(err).__name__}: {err}"})
            continue
        with store.transaction():
            kvstate.delete(store, PENDING_KEY + path)
    return done
