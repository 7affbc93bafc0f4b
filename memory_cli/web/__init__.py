"""``memory-cli serve``: a web dashboard and a REST API over the same store as the CLI.

A thin shell: every route calls the domain functions the CLI calls (entries, rules.api,
review, stats, audit). Nothing here is imported by hooks or by other commands;
FastAPI, uvicorn and Jinja2 load only when ``serve`` runs.
"""
