# Two entry points for a fresh machine (see README): `make demo` and `make test`.
.PHONY: setup setup-user demo test bench

# Most tests wait on processes, sockets and the model rather than the CPU: three workers on two
# cores finish sooner. The tests marked `exclusive` (a machine loaded on purpose) run alone after,
# even when the parallel part failed; scripts/run_tests.sh reports both parts.
TEST_WORKERS ?= 3

setup:
	bash scripts/setup.sh

# What a user installs (no PyTorch): the demo runs on exactly that.
setup-user:
	bash scripts/setup.sh user

demo: setup-user
	.venv/bin/memory-cli demo

test: setup
	bash scripts/setup_browser.sh
	bash scripts/setup_sandbox.sh
	bash scripts/setup_claude_code.sh
	bash scripts/setup_agents.sh
	bash scripts/setup_postgres.sh
	.venv/bin/ruff check memory_cli tests scripts
	.venv/bin/ruff format --check memory_cli tests scripts
	.venv/bin/lint-imports
	.venv/bin/mypy
	TEST_WORKERS=$(TEST_WORKERS) bash scripts/run_tests.sh

bench: setup
	.venv/bin/python scripts/bench_hooks.py
