# Two entry points for a fresh machine (see README): `make demo` and `make test`.
.PHONY: setup demo test bench

setup:
	bash scripts/setup.sh

demo: setup
	.venv/bin/memory-cli demo

test: setup
	bash scripts/setup_browser.sh
	bash scripts/setup_claude_code.sh
	bash scripts/setup_postgres.sh
	.venv/bin/ruff check memory_cli tests scripts
	.venv/bin/ruff format --check memory_cli tests scripts
	.venv/bin/python -m pytest -q -p no:cacheprovider

bench: setup
	.venv/bin/python scripts/bench_hooks.py
