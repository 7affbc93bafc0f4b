"""The dashboard in a real headless Chromium (Debian's chromium driven by Playwright for
Python) against a real ``memory-cli serve`` process: every page loads without a console or
CSP error, filters, inline edit, bulk delete, approving a proposal, and the 5-second refresh
picking up a memory added through the CLI while keeping the person's selection and scroll.

Screenshots of each page go to tests/artifacts/web/ (git-ignored)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from helpers.cli import _cmd, run_cli

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts" / "web"
TOKEN = "browser-test-token-0123456789"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright for Python is not installed ([test] extra)")
if not os.path.exists(CHROMIUM):
    pytest.skip(
        "Debian's chromium is not installed (scripts/setup_browser.sh installs it as root)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def chromium():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


def seed(db):
    """Through the library (fast); what the test then does goes through the browser and CLI."""
    from memory_cli import entries
    from memory_cli.capture.corrections import capture
    from memory_cli.rules import api as rules_api
    from memory_cli.store.db import Store

    with Store.open(db) as store:
        for i in range(30):
            entries.add(store, f"filler memory number {i:02d} about logging", "fact")
        entries.add(store, "the deploy script lives in ops/deploy.sh", "fact", scope="project:web")
        entries.add(store, "prefer ruff over flake8", "preference", tags=["lint"])
        rules_api.create_rule(
            store,
            "never force-push to main",
            pattern="git push --force",
            pattern_type="command",
            action="block",
        )
        for i in range(3):
            capture(store, "no, don't use pip install, use uv add instead", session_id=f"sess-{i}")


@pytest.fixture
def server(tmp_path, db_path):
    seed(db_path)
    env = dict(os.environ, PYTHONUNBUFFERED="1", MEMORY_CLI_TOKEN=TOKEN)
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"(http://\S+)/\?code=(\S+)", line)
        assert m, f"serve printed {line!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
        assert TOKEN not in line
        yield {"base": m.group(1), "db": db_path, "url": m.group(0)}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def page(chromium, server):
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    problems = []
    pg.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: problems.append(str(e)))
    pg.goto(server["url"])  # the printed one-time URL: code -> session cookie -> clean address
    assert "code=" not in pg.url
    pg.problems = problems
    pg.base = server["base"]
    yield pg
    context.close()


def shoot(pg, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def cli_json(db, *args):
    r = run_cli("--json", *args, db=db)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_every_page_loads_with_no_errors(page, server):
    page.wait_for_selector("body[data-charts=ready]")
    assert page.locator("#count-total").inner_text() == "34"
    shoot(page, "overview")
    page.goto(page.base + "/memories")
    page.wait_for_selector("#rows tr[data-id]")
    assert page.locator("#total").inner_text().startswith("34 memories")
    shoot(page, "memories")
    page.goto(page.base + "/rules")
    assert page.locator("table.rules").get_by_text("git push --force").count() == 1
    shoot(page, "rules")
    page.goto(page.base + "/review")
    assert page.locator("article.item").count() == 1
    shoot(page, "review")
    page.goto(page.base + "/audit")
    assert page.locator("table.audit tbody tr").count() > 30
    shoot(page, "audit")
    entry = cli_json(server["db"], "list", "--type", "preference")[0]
    page.goto(page.base + f"/memories/{entry['id']}")
    assert page.locator("h1").inner_text() == "prefer ruff over flake8"
    shoot(page, "memory")
    page.goto(page.base + "/api/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=15000)
    shoot(page, "api-docs")
    assert page.problems == []


def test_without_the_token_the_browser_gets_nothing(chromium, server):
    context = chromium.new_context()
    pg = context.new_page()
    r = pg.goto(server["base"] + "/memories")
    assert r.status == 401 and "token is required" in pg.content()
    r = pg.goto(server["base"] + "/memories?token=wrong")
    assert r.status == 401
    context.close()


def test_the_login_page_is_a_styled_form_with_its_field_focused(chromium, server):
    """The page a browser without a session gets says what to do and looks like the dashboard's:
    a heading, the reason, a labelled token field ready to type into, a coloured button."""
    context = chromium.new_context()
    pg = context.new_page()
    assert pg.goto(server["base"] + "/").status == 401
    assert pg.inner_text("h1") == "Log in to memory-cli"
    assert pg.evaluate("document.activeElement.name") == "token"
    assert pg.inner_text("label[for=token]") == "Token"
    button = pg.evaluate("getComputedStyle(document.querySelector('button')).backgroundColor")
    assert button == "rgb(31, 111, 235)", button
    font = pg.evaluate("getComputedStyle(document.body).fontFamily")
    assert "system-ui" in font, font
    shoot(pg, "login")
    context.close()


def test_the_token_never_reaches_the_browsers_urls_or_cookies(chromium, server):
    """History keeps every URL a tab visited, cookies go to every port of 127.0.0.1: neither
    may hold the token. The printed link works once; after that the login form lets one in."""
    context = chromium.new_context()
    pg = context.new_page()
    urls = []
    pg.on("request", lambda req: urls.append(req.url))
    pg.goto(server["url"])
    pg.wait_for_selector("body[data-charts=ready]")
    cookies = context.cookies()
    assert cookies and all(TOKEN not in c["value"] for c in cookies)
    assert all(c["httpOnly"] and c["sameSite"] == "Strict" for c in cookies)
    # the printed link is spent: a second browser cannot use it
    other = chromium.new_context()
    again = other.new_page()
    assert again.goto(server["url"]).status == 401
    # it logs in with the token in the form instead
    again.fill("input[name=token]", TOKEN)
    again.click("button")
    again.wait_for_selector("body[data-charts=ready]")
    assert again.url == server["base"] + "/"
    urls += [again.url]
    assert all(TOKEN not in u for u in urls)
    assert all(TOKEN not in c["value"] for c in other.cookies())
    other.close()
    context.close()


def test_filter_and_sort(page):
    page.goto(page.base + "/memories")
    expect = sync_api.expect
    page.select_option("select[name=type]", "preference")
    expect(page.locator("#total")).to_have_text(re.compile(r"^1 memory"))
    assert page.locator("#rows tr[data-id]").count() == 1
    assert "type=preference" in page.url  # a reload keeps the filter
    page.reload()
    expect(page.locator("#total")).to_have_text(re.compile(r"^1 memory"))
    page.select_option("select[name=type]", "")
    page.fill("input[name=q]", "deploy script")
    expect(page.locator("#rows tr[data-id] td.content").first).to_contain_text("deploy script")
    page.fill("input[name=q]", "")
    page.fill("input[name=scope]", "project:web")
    expect(page.locator("#total")).to_have_text(re.compile(r"^1 memory"))
    page.fill("input[name=scope]", "")
    expect(page.locator("#total")).to_have_text(re.compile(r"^34 memories"))
    page.click("th.col-content a")
    expect(page.locator("th.col-content .arrow")).to_have_text("▲")
    first = page.locator("#rows tr[data-id] td.content").first.inner_text()
    assert "filler memory number 00" in first
    assert page.problems == []


def test_inline_edit(page, server):
    page.goto(page.base + "/memories?type=preference")
    row = page.locator("#rows tr[data-id]").first
    eid = row.get_attribute("data-id")
    row.get_by_role("button", name="edit").click()
    page.fill(f"#m-{eid} textarea[name=content]", "prefer ruff for linting and formatting")
    page.fill(f"#m-{eid} input[name=confidence]", "0.95")
    page.click(f"#m-{eid} button:has-text('Save')")
    page.wait_for_selector(f"#m-{eid}:not(.editing)")
    assert "prefer ruff for linting and formatting" in page.locator(f"#m-{eid}").inner_text()
    stored = cli_json(server["db"], "show", eid)
    assert stored["content"] == "prefer ruff for linting and formatting" and stored["confidence"] == 0.95
    # bad input: a one-line message, nothing changed
    page.locator(f"#m-{eid}").get_by_role("button", name="edit").click()
    page.fill(f"#m-{eid} input[name=scope]", "nowhere")
    page.click(f"#m-{eid} button:has-text('Save')")
    page.wait_for_selector("#toast.show.bad")
    assert "scope" in page.locator("#toast").inner_text()
    assert cli_json(server["db"], "show", eid)["scope"] == "global"


def test_bulk_delete_with_confirmation(page, server):
    page.goto(page.base + "/memories?q=filler+logging&limit=50")
    page.wait_for_selector("#rows tr[data-id]")
    boxes = page.locator("#rows input[name=ids]")
    ids = [boxes.nth(i).get_attribute("value") for i in range(3)]
    for i in range(3):
        boxes.nth(i).check()
    assert page.locator("#selected-count").inner_text() == "3 selected"
    page.once("dialog", lambda d: d.dismiss())  # first: change of mind
    page.click("#bulk-delete")
    time.sleep(0.5)
    assert len(cli_json(server["db"], "list", "--limit", "100")) == 34
    page.once("dialog", lambda d: d.accept())
    page.click("#bulk-delete")
    page.wait_for_selector(".flash:has-text('deleted 3')")
    remaining = {m["id"] for m in cli_json(server["db"], "list", "--limit", "100")}
    assert len(remaining) == 31 and not remaining & set(ids)
    sync_api.expect(page.locator("#selected-count")).to_have_text("0 selected")


def test_approve_a_proposal(page, server):
    page.goto(page.base + "/review")
    card = page.locator("article.item").first
    card.locator("select[name=action]").select_option("block")
    card.get_by_role("button", name="Approve").click()
    page.wait_for_selector("article.item.done")
    assert "approved" in page.locator("article.item.done").inner_text()
    rules = cli_json(server["db"], "rules", "list")
    promoted = [r for r in rules if r["provenance"] == "promoted"]
    assert promoted and promoted[0]["confirmed"] and promoted[0]["action"] == "block"


def test_refresh_picks_up_a_cli_add_and_keeps_selection_and_scroll(page, server):
    page.set_viewport_size({"width": 1400, "height": 600})
    page.goto(page.base + "/memories?limit=100")
    page.wait_for_selector("#rows tr[data-id]")
    keep = page.locator("#rows input[name=ids]").nth(5)
    keep_id = keep.get_attribute("value")
    keep.check()
    page.evaluate("document.querySelector('.tablewrap').scrollTop = 300")
    r = run_cli("add", "added from the terminal while the dashboard is open", db=server["db"])
    assert r.returncode == 0
    # the table refreshes every 5 s: a bounded wait of three periods
    sync_api.expect(page.locator("#rows")).to_contain_text("added from the terminal", timeout=15000)
    assert page.locator("#total").inner_text().startswith("35 memories")
    assert page.locator(f"#rows input[value='{keep_id}']").is_checked()
    assert page.evaluate("document.querySelector('.tablewrap').scrollTop") == 300
    assert page.problems == []
