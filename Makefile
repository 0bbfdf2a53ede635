PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev
LOCAL_STAMP := $(VENV)/.installed-local

export PRAISONLIKE_ALLOW_MODEL_REQUESTS ?= 0

.PHONY: test demo bench soak lint install local browser clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(LOCAL_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,local]"
	touch $(LOCAL_STAMP)

install: $(STAMP)

local: $(LOCAL_STAMP)

test: $(STAMP)
	PRAISONLIKE_ALLOW_MODEL_REQUESTS=0 $(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check praisonlike tests examples benchmarks scripts
	$(PY) -m mypy

demo: $(LOCAL_STAMP)
	PRAISONLIKE_ALLOW_MODEL_REQUESTS=1 $(PY) examples/quickstart.py

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

soak: $(STAMP)
	$(PY) scripts/soak.py --turns 10000

# Debian's chromium for the chat-page test (Playwright drives it; no browser download).
browser:
	@test -x /usr/bin/chromium || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && $$SUDO apt-get install -y chromium; }

clean:
	rm -rf $(VENV) build *.egg-info
