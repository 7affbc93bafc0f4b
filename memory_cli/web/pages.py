"""The dashboard: server-rendered pages, and the htmx fragments (under ``/ui``) that refresh
and change them. Fragments call the same functions as the JSON API."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from .. import audit, entries, review
from ..capture.queue import label as queue_label
from ..errors import NotFound
from ..rules import api as rules_api
from . import api_admin, api_journal, api_memories, deps

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
# An id placed in a URL path is one segment: ``/``, ``?``, ``#`` and ``..`` cannot steer the
# request elsewhere (Jinja's own ``urlencode`` keeps ``/``).
templates.env.filters["segment"] = lambda value: quote(str(value), safe="")

PAGE_SIZES = (25, 50, 100, 200)
FILTER_KEYS = (
    "q",
    "type",
    "scope",
    "status",
    "source",
    "category",
    "subject",
    "min_confidence",
    "order",
    "desc",
    "limit",
    "offset",
)


# Shipped copies of the front-end libraries (pinned; see docs/web.md for versions and licences).
HTMX = "htmx-2.0.11.min.js"
CHARTJS = "chart-4.6.1.umd.min.js"


def render(request: Request, name: str, **ctx) -> HTMLResponse:
    cfg = request.app.state.config
    ctx.update(
        request=request,
        csrf=request.app.state.csrf,
        htmx=HTMX,
        chartjs=CHARTJS,
        refresh_seconds=cfg.refresh_seconds,
        floor=cfg.injection_floor,
        nav=ctx.get("nav"),
        pending=ctx.get("pending"),
    )
    return templates.TemplateResponse(request, name, ctx)


def _pending(store) -> int:
    return len(review.pending(store))


# ------------------------------------------------------------------------------- overview
@router.get("/", response_class=HTMLResponse)
def overview_page(request: Request, store=Depends(deps.get_store)):
    data = api_admin.overview(store, 30)
    return render(request, "overview.html", nav="overview", data=data, pending=_pending(store))


# ------------------------------------------------------------------------------- memories
class MemoryFilters:
    """The memories table's state, read from the query string or the filter form."""

    def __init__(self, params: dict):
        g = lambda k: (params.get(k) or "").strip() or None  # noqa: E731
        self.q, self.type, self.scope, self.source = g("q"), g("type"), g("scope"), g("source")
        self.category, self.subject = g("category"), g("subject")
        self.status = g("status") or "active"
        self.order = g("order") or "updated"
        self.desc = g("desc")
        mc = g("min_confidence")
        self.min_confidence = mc
        self.limit = _int(g("limit"), 50)
        if self.limit not in PAGE_SIZES:
            self.limit = 50
        self.offset = max(0, _int(g("offset"), 0))

    def query(self, **override) -> str:
        values = {k: getattr(self, k) for k in FILTER_KEYS}
        values.update(override)
        return urlencode({k: v for k, v in values.items() if v not in (None, "")})

    def sort_query(self, column: str) -> str:
        """Clicking a header sorts by it; clicking the sorted header flips the direction."""
        natural_desc = entries.ORDERS[column][1] == "DESC"
        if self.order == column:
            current_desc = natural_desc if self.desc is None else self.desc == "1"
            return self.query(order=column, desc="0" if current_desc else "1", offset=0)
        return self.query(order=column, desc=None, offset=0)

    def arrow(self, column: str) -> str:
        if self.order != column:
            return ""
        natural_desc = entries.ORDERS[column][1] == "DESC"
        current_desc = natural_desc if self.desc is None else self.desc == "1"
        return "▼" if current_desc else "▲"


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _listing(store, f: MemoryFilters) -> dict:
    from ..errors import MemoryCliError

    try:
        mc = float(f.min_confidence) if f.min_confidence else None
        result = api_memories.list_memories(
            store,
            type=f.type,
            scope=f.scope,
            status=f.status,
            source=f.source,
            category=f.category,
            subject=f.subject,
            q=f.q,
            min_confidence=mc,
            limit=f.limit,
            offset=f.offset,
            order=f.order,
            descending=None if f.desc is None else f.desc == "1",
        )
        error = None
    except (MemoryCliError, ValueError) as e:
        result, error = {"items": [], "total": 0}, str(e)
    return dict(result, error=error, f=f)


def _table(request: Request, store, f: MemoryFilters, template: str = "_memories_table.html", **extra):
    ctx = _listing(store, f)
    ctx.update(extra)
    return render(
        request,
        template,
        **ctx,
        types=entries.TYPES,
        statuses=entries.STATUSES + ("all",),
        sources=entries.SOURCES,
        categories=entries.CATEGORIES,
        page_sizes=PAGE_SIZES,
    )


@router.get("/memories", response_class=HTMLResponse)
def memories_page(request: Request, store=Depends(deps.get_store)):
    f = MemoryFilters(dict(request.query_params))
    return _table(request, store, f, "memories.html", nav="memories", pending=_pending(store))


@router.get("/ui/memories/table", response_class=HTMLResponse)
def memories_table(request: Request, store=Depends(deps.get_store)):
    f = MemoryFilters(dict(request.query_params))
    response = _table(request, store, f)
    # The address bar follows the filters, so a reload or a shared link shows the same table.
    query = f.query()
    response.headers["HX-Replace-Url"] = "/memories" + ("?" + query if query else "")
    return response


@router.get("/ui/memories/rows", response_class=HTMLResponse)
def memories_rows(request: Request, store=Depends(deps.get_store)):
    """The 5-second refresh: only the rows and the count, so the page keeps its scroll."""
    return _table(request, store, MemoryFilters(dict(request.query_params)), "_memories_rows.html", oob=True)


async def form_data(request: Request) -> dict:
    """The posted form (``ids`` as a list), read on the event loop so the route can be sync."""
    form = await request.form()
    out = {}
    for k in form:
        values = form.getlist(k)
        out[k] = values if k == "ids" else values[-1]
    return out


@router.post("/ui/memories", response_class=HTMLResponse)
def memories_add(request: Request, form: dict = Depends(form_data), store=Depends(deps.get_store)):
    tags = [t for t in (form.get("tags") or "").split(",") if t.strip()] or None
    body = api_memories.MemoryIn(
        content=form.get("content") or "",
        type=form.get("new_type") or "fact",
        scope=form.get("new_scope") or "global",
        confidence=form.get("new_confidence") or None,
        tags=tags,
        category=form.get("new_category") or None,
        subject=form.get("new_subject") or None,
    )
    entry = api_memories.create_memory(store, body)
    f = MemoryFilters(form)
    return _table(request, store, f, flash=f"added {entry['id'][:8]}", highlight=entry["id"])


@router.post("/ui/memories/bulk", response_class=HTMLResponse)
def memories_bulk(request: Request, form: dict = Depends(form_data), store=Depends(deps.get_store)):
    ids = form.get("ids") or []
    action = form.get("action") or ""
    if action not in entries.BULK_ACTIONS:
        raise deps.FieldError("action", f"unknown bulk action {action!r}")
    if not ids:
        raise deps.FieldError("ids", "select at least one memory")
    n = (
        api_memories.bulk_change(store, action, ids)
        if action != "activate"
        else entries.bulk(store, action, ids, floor=request.app.state.config.injection_floor)
    )
    verb = {"delete": "deleted", "archive": "archived", "activate": "reactivated"}[action]
    return _table(request, store, MemoryFilters(form), flash=f"{verb} {n}")


def _row(request: Request, store, entry_id: str, template: str = "_memory_row.html", **extra):
    entry = entries.get(store, entry_id)
    return render(request, template, m=entry, **extra, types=entries.TYPES, categories=entries.CATEGORIES)


@router.get("/ui/memories/{entry_id}/row", response_class=HTMLResponse)
def memory_row(request: Request, entry_id: str, store=Depends(deps.get_store)):
    return _row(request, store, entry_id)


@router.get("/ui/memories/{entry_id}/edit", response_class=HTMLResponse)
def memory_edit(request: Request, entry_id: str, store=Depends(deps.get_store)):
    return _row(request, store, entry_id, "_memory_edit.html")


@router.post("/ui/memories/{entry_id}", response_class=HTMLResponse)
def memory_save(request: Request, entry_id: str, form: dict = Depends(form_data), store=Depends(deps.get_store)):
    changes = {k: form.get(k) for k in ("content", "type", "scope", "confidence", "category", "subject")}
    changes = {k: v for k, v in changes.items() if v not in (None,)}
    if "tags" in form:
        changes["tags"] = [t.strip() for t in form["tags"].split(",") if t.strip()]
    if changes.get("category") == "":
        changes.pop("category")
    api_memories.update_memory(store, entry_id, changes)
    return _row(request, store, entry_id)


@router.post("/ui/memories/{entry_id}/archive", response_class=HTMLResponse)
def memory_archive(request: Request, entry_id: str, store=Depends(deps.get_store)):
    api_memories.bulk_change(store, "archive", [entry_id])
    return _row(request, store, entry_id)


@router.post("/ui/memories/{entry_id}/activate", response_class=HTMLResponse)
def memory_activate(request: Request, entry_id: str, store=Depends(deps.get_store)):
    entries.reactivate(store, entry_id, floor=request.app.state.config.injection_floor)
    return _row(request, store, entry_id)


@router.post("/ui/memories/{entry_id}/delete", response_class=HTMLResponse)
def memory_delete(request: Request, entry_id: str, store=Depends(deps.get_store)):
    api_memories.delete_memory(store, entry_id)
    return HTMLResponse("")


@router.get("/memories/{entry_id}", response_class=HTMLResponse)
def memory_page(request: Request, entry_id: str, store=Depends(deps.get_store)):
    try:
        detail = api_memories.memory_detail(store, entry_id)
    except NotFound:
        history = api_admin.audit_rows(store, entry=entry_id, limit=200)
        if not history:
            raise
        detail = {"id": entry_id, "deleted": True, "history": history, "rule": None}
    proof = None
    if detail.get("rule"):
        from ..rules import proof as proof_mod

        p = proof_mod.collect(store, [detail["id"]]).get(detail["id"]) or proof_mod.empty()
        proof = {"p": p, "text": proof_mod.line(p)}
    return render(request, "memory.html", nav="memories", m=detail, proof=proof, pending=_pending(store))


# ------------------------------------------------------------------------------- rules
@router.get("/rules", response_class=HTMLResponse)
def rules_page(request: Request, status: str = "active", store=Depends(deps.get_store)):
    status = status if status in ("active", "archived", "all") else "active"
    rules = rules_api.list_rules(store, status=status)
    fired, proofs = _proofs(store)
    return render(
        request,
        "rules.html",
        nav="rules",
        rules=rules,
        fired=fired,
        proofs=proofs,
        status=status,
        pending=_pending(store),
    )


def _proofs(store, rule_ids=None) -> tuple[dict, dict]:
    """When each rule last fired in a hook, and its proof in words (dry runs never count)."""
    from ..rules import proof

    got = proof.collect(store, rule_ids)
    return {i: p["last_fired"] for i, p in got.items() if p["last_fired"]}, {i: proof.line(p) for i, p in got.items()}


def _rule_row(request, store, rule_id, template="_rule_row.html"):
    rule = rules_api.get_rule(store, rule_id)
    fired, proofs = _proofs(store, [rule["id"]])
    return render(request, template, r=rule, fired=fired, proofs=proofs)


@router.get("/ui/rules/{rule_id}/row", response_class=HTMLResponse)
def rule_row(request: Request, rule_id: str, store=Depends(deps.get_store)):
    return _rule_row(request, store, rule_id)


@router.get("/ui/rules/{rule_id}/edit", response_class=HTMLResponse)
def rule_edit(request: Request, rule_id: str, store=Depends(deps.get_store)):
    return _rule_row(request, store, rule_id, "_rule_edit.html")


@router.post("/ui/rules/{rule_id}", response_class=HTMLResponse)
def rule_save(request: Request, rule_id: str, form: dict = Depends(form_data), store=Depends(deps.get_store)):
    from . import api_rules

    changes = {k: form.get(k) for k in ("pattern", "pattern_type", "action", "severity", "alternative")}
    api_rules.edit_rule(store, rule_id, {k: v for k, v in changes.items() if v is not None})
    return _rule_row(request, store, rule_id)


@router.post("/ui/rules/{rule_id}/{verb}", response_class=HTMLResponse)
def rule_verb(request: Request, rule_id: str, verb: str, store=Depends(deps.get_store)):
    if verb == "enable":
        rules_api.set_enabled(store, rule_id, True)
    elif verb == "disable":
        rules_api.set_enabled(store, rule_id, False)
    elif verb == "confirm":
        rules_api.confirm_rule(store, rule_id)
    else:
        raise NotFound(f"no rule action {verb!r}")
    from ..entry_effects import resync_native

    resync_native(store)
    return _rule_row(request, store, rule_id)


# ------------------------------------------------------------------------------- review
@router.get("/review", response_class=HTMLResponse)
def review_page(request: Request, store=Depends(deps.get_store)):
    from ..rules.proof import retire_candidates

    queue = review.queue(store)
    items = review.with_replay(queue.items, store)
    requests = [dict(r, written_by=review.written_by(r["origin"])) for r in review.scope_requests(store)]
    recent = [
        c
        for c in review.corrections_by_status(store, status="all", limit=30)
        if c["status"] in ("approved", "rejected")
    ][:10]
    return render(
        request,
        "review.html",
        nav="review",
        items=items,
        summary=queue.summary,
        item_label=queue_label,
        requests=requests,
        recent=recent,
        idle=retire_candidates(store),
        pending=len(items) + len(requests),
        lessons=_lessons(store),
    )


def _lessons(store) -> list[dict]:
    """Approved lessons with their form and kept / sent-back figures (none on an older store)."""
    from ..checks import verdicts

    try:
        return verdicts.lessons(store)
    except Exception:  # noqa: BLE001 - a store without the lessons table yet
        return []


@router.post("/ui/review/{correction_id}/replay", response_class=HTMLResponse)
def review_replay(request: Request, correction_id: str, form: dict = Depends(form_data), store=Depends(deps.get_store)):
    """The replay of a pattern the person typed for a proposal, before approving it."""
    item = review.show(store, correction_id)
    pattern = (form.get("pattern") or "").strip()
    if not pattern:
        return render(request, "_review_replay.html", replay=None, item=item)
    with deps.field("pattern"):
        replay = review.replay_pattern(item, pattern, form.get("pattern_type") or None)
    return render(request, "_review_replay.html", replay=replay, item=item)


@router.post("/ui/review-scope/{entry_id}/{verb}", response_class=HTMLResponse)
def review_scope_verb(request: Request, entry_id: str, verb: str, store=Depends(deps.get_store)):
    """Let an agent's or a model's memory apply where it asked to, or keep it where it was written."""
    if verb == "approve":
        entry = review.approve_scope(store, entry_id)
    elif verb == "reject":
        entry = review.reject_scope(store, entry_id)
    else:
        raise NotFound(f"no review action {verb!r}")
    return render(request, "_scope_done.html", entry=entry, verb=verb)


@router.post("/ui/review/{correction_id}/{verb}", response_class=HTMLResponse)
def review_verb(
    request: Request,
    correction_id: str,
    verb: str,
    form: dict = Depends(form_data),
    store=Depends(deps.get_store),
):
    if verb == "approve":
        action = form.get("action") or None
        with deps.field("action"):
            review.check_action(action)
        # the pattern field: as proposed, narrowed, edited, or emptied (a reminder, no gate)
        pattern = form.get("pattern")
        current = review.proposed_pattern(store, correction_id)
        no_rule = pattern is not None and not pattern.strip()
        pattern = pattern.strip() if pattern and pattern.strip() != current else None
        with deps.field("form"):
            lesson_form = review.check_form(form.get("form") or None)
        with deps.field("pattern"):
            item = review.approve(
                store, correction_id, action=action, pattern=pattern, no_rule=no_rule, form=lesson_form
            )
    elif verb == "reject":
        item = review.reject(store, correction_id)
    else:
        raise NotFound(f"no review action {verb!r}")
    return render(request, "_review_done.html", item=item, verb=verb)


# ------------------------------------------------------------------------------- audit
@router.get("/audit", response_class=HTMLResponse)
def audit_page(
    request: Request,
    action: str | None = None,
    since: str | None = None,
    entry: str | None = None,
    session: str | None = None,
    limit: int = 100,
    store=Depends(deps.get_store),
):
    from ..errors import MemoryCliError

    limit = min(max(1, limit), 5000)
    error = None
    try:
        rows = api_admin.audit_rows(store, action=action, since=since, entry=entry, session=session, limit=limit)
    except MemoryCliError as e:
        rows, error = [], str(e)
    actions = audit.actions(store)
    return render(
        request,
        "audit.html",
        nav="audit",
        rows=rows,
        error=error,
        actions=actions,
        f={
            "action": action or "",
            "since": since or "",
            "entry": entry or "",
            "session": session or "",
            "limit": limit,
        },
        pending=_pending(store),
    )


# ----------------------------------------------------------------------------- journal
@router.get("/journal", response_class=HTMLResponse)
def journal_page(request: Request, store=Depends(deps.get_store)):
    """Incidents, session reports and metric baselines: what the agent tools read and write."""
    return render(request, "journal.html", nav="journal", pending=_pending(store), **api_journal.journal(store))


@router.get("/favicon.ico")
def favicon():
    return RedirectResponse("/static/favicon.svg")


@router.get("/api/docs", response_class=HTMLResponse)
def api_docs(request: Request):
    """The OpenAPI page, with Swagger UI shipped in the package (no CDN)."""
    return templates.TemplateResponse(request, "api_docs.html", {"csrf": request.app.state.csrf})
