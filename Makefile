# Two entry points for a fresh machine with only Python 3.11: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

CHROMIUM ?= /usr/bin/chromium

.PHONY: install demo test lint format typecheck bench clean chromium postgres

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The HTML report's browser tests drive Debian's Chromium through Playwright (its own browser
# download is not reachable from CI); installed here when missing so those tests never skip.
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "installing Debian's chromium for the HTML report tests"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

# The run-store tests start Debian's PostgreSQL 15 server binaries themselves (as the postgres
# user, in a temp directory, on a Unix socket); installed here when missing so they never skip.
PG_BIN ?= /usr/lib/postgresql/15/bin
postgres:
	@if [ ! -x "$(PG_BIN)/initdb" ] || [ ! -x "$(PG_BIN)/pg_ctl" ]; then \
	  echo "installing Debian's postgresql for the run-store tests"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; \
	fi

# The shipped example has failing cases on purpose: exit 1 (cases failed) is the expected outcome;
# 2 (bad input) or 3 (incomplete) would be a real problem.
demo: install
	@$(BIN)/agenteval run --evalset evalsets/ --metrics metrics/ --output output/ --app demo-app --html output/report.html; \
	  code=$$?; if [ $$code -gt 1 ]; then exit $$code; fi; \
	  echo "demo finished (exit code $$code: some example cases fail on purpose)"
	@$(BIN)/python examples/agents/demo.py; \
	  code=$$?; if [ $$code -gt 1 ]; then exit $$code; fi; \
	  echo "agent demo finished (exit code $$code: one example case fails on purpose)"

lint: install
	$(BIN)/ruff check src tests bench

format: install
	$(BIN)/ruff format src tests bench

typecheck: install
	$(BIN)/mypy

test: install chromium postgres lint typecheck
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/rouge.py
	$(BIN)/python bench/deterministic.py
	$(BIN)/python bench/html_report.py
	$(BIN)/python bench/agent_overhead.py
	$(BIN)/python bench/otel_import.py
	$(BIN)/python bench/store.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache output

# The JSON Schemas, regenerated from the pydantic models (tests/schema checks they are current).
.PHONY: schemas
schemas: install
	for kind in evalset metrics result run; do \
	  $(BIN)/agenteval schema $$kind > schemas/$$kind.schema.json; \
	  cp schemas/$$kind.schema.json src/agenteval/data/$$kind.schema.json; \
	done
