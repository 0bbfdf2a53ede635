PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
VENV_OK := $(VENV)/.created
STAMP := $(VENV)/.installed-dev
LOCAL_STAMP := $(VENV)/.installed-local
PYTEST_ARGS ?=

export PRAISONLIKE_ALLOW_MODEL_REQUESTS ?= 0

.PHONY: test demo bench bench-venv bench-tools soak lint install local browser clean

# Python 3.10+ with venv/ensurepip (Debian: python3.X-venv); says the fix when missing.
$(VENV_OK):
	@scripts/make_venv.sh "$(PYTHON)" "$(VENV)"
	@touch $(VENV_OK)

$(STAMP): pyproject.toml | $(VENV_OK)
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# dev+local includes dev: `make demo` then `make test` installs once.
$(LOCAL_STAMP): pyproject.toml | $(VENV_OK)
	$(PY) -m pip install --quiet -e ".[dev,local]"
	touch $(STAMP) $(LOCAL_STAMP)

install: $(STAMP)

local: $(LOCAL_STAMP)

# PostgreSQL tests included where the machine allows (see scripts/run_tests.sh);
# `make test PYTEST_ARGS=tests/memory` runs a selection.
test: $(STAMP)
	@scripts/run_tests.sh $(PY) $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check praisonlike tests examples benchmarks scripts
	$(PY) -m mypy

demo: $(LOCAL_STAMP)
	PRAISONLIKE_ALLOW_MODEL_REQUESTS=1 $(PY) examples/quickstart.py

# PraisonAI side by side: its own venv (never the project's), git-ignored. When it
# cannot be installed, `make bench` says so and runs without it.
PRAISONAI_VERSION := 1.7.17
PRAISONAI_VENV := benchmarks/.venv-praisonai
PRAISONAI_STAMP := $(PRAISONAI_VENV)/.installed-$(PRAISONAI_VERSION)

bench-venv:
	@test -f $(PRAISONAI_STAMP) || { rm -rf $(PRAISONAI_VENV) \
		&& $(PYTHON) -m venv $(PRAISONAI_VENV) \
		&& $(PRAISONAI_VENV)/bin/python -m pip install --quiet "praisonaiagents==$(PRAISONAI_VERSION)" \
		&& touch $(PRAISONAI_STAMP); } \
		|| { echo "bench-venv: PraisonAI $(PRAISONAI_VERSION) could not be installed in $(PRAISONAI_VENV)"; exit 1; }

bench: $(STAMP)
	@$(MAKE) --no-print-directory bench-venv || echo "bench: going on WITHOUT PraisonAI (see above)"
	$(PY) benchmarks/run_all.py

# Tool-call accuracy of the local model, praisonlike vs the bare server (minutes on a CPU).
bench-tools: $(LOCAL_STAMP)
	PRAISONLIKE_ALLOW_MODEL_REQUESTS=1 $(PY) benchmarks/tool_calls.py $(BENCH_ARGS)

soak: $(STAMP)
	$(PY) scripts/soak.py --turns 10000

# Debian's chromium for the chat-page test (Playwright drives it; no browser download).
browser:
	@test -x /usr/bin/chromium || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && $$SUDO apt-get install -y chromium; }

clean:
	rm -rf $(VENV) build *.egg-info
