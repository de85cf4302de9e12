# Two entry points for a fresh machine with only Python 3.11: `make demo` and `make test`.
# (`make test` also installs Debian's chromium for the HTML report's browser tests and its
# postgresql for the run-store tests, saying so first; where it cannot, those tests are skipped
# with one line at the end of the run.)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

CHROMIUM ?= /usr/bin/chromium
# pytest-xdist, one worker per core and one more: a fifth of a worker's time is spent waiting
# (on a browser, a PostgreSQL server, a command's pipes), which the extra worker fills. On the
# 2-core box, back to back: 3 workers 4:48 and 4:51, 2 workers 5:13, 4 workers 4:55.
# worksteal splits the tests in runs of whole modules (module fixtures built once per worker)
# and moves work only when a worker runs dry (compare: `make test PYTEST_DIST=loadgroup`).
# tests/conftest.py runs the modules with the longest single tests first, so all end on short ones.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
PYTEST_DIST ?= worksteal
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist $(PYTEST_DIST)

.PHONY: install demo test test-long lint format typecheck bench clean chromium postgres docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# $(call system_package,PRESENT,PACKAGE,SIZE,TESTS,MISSING): Debian's PACKAGE, which TESTS
# need, installed when the shell test PRESENT fails and it is possible (root with apt-get),
# announced first; otherwise MISSING is said once, and pytest skips TESTS with one line.
define system_package
	@if $(1); then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's $(2) ($(3)) for the $(4)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); } \
	    || echo "$(2) could not be installed: the $(4) will be skipped"; \
	else \
	  echo "$(5), and installing it needs apt-get as root: the $(4) will be skipped"; \
	fi
endef

# The HTML report's browser tests drive Debian's Chromium through Playwright (its own browser
# download is not reachable from CI).
chromium:
	$(call system_package,[ -x "$(CHROMIUM)" ],chromium,~480 MB,HTML report's browser tests,no chromium at $(CHROMIUM))

# The run-store tests start Debian's PostgreSQL 15 server binaries themselves (as the postgres
# user, in a temp directory, on a Unix socket).
PG_BIN ?= /usr/lib/postgresql/15/bin
postgres:
	$(call system_package,[ -x "$(PG_BIN)/initdb" ] && [ -x "$(PG_BIN)/pg_ctl" ],postgresql,~60 MB,PostgreSQL run-store tests,no PostgreSQL server binaries in $(PG_BIN))

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

# ruff first (a second); then mypy runs beside pytest, which spreads the tests over every core,
# and its verdict is printed after pytest's. The long trials are `make test-long`.
test: install chromium postgres
	$(BIN)/ruff check src tests bench
	@mypy_log=$$(mktemp); $(BIN)/mypy > "$$mypy_log" 2>&1 & mypy=$$!; \
	  AGENTEVAL_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest $(PYTEST_PARALLEL) --durations=40; \
	  tests=$$?; wait $$mypy; typed=$$?; echo "mypy:"; cat "$$mypy_log"; rm -f "$$mypy_log"; \
	  [ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# The long trials (pytest -m slow): the 20,000-case signal trials, the 1,000-case trials' other
# stop points and the 100,000-case benches' correctness checks. .ci/run runs them after
# `make test`. They hardly wait, so they run one worker per core.
test-long: install chromium postgres
	AGENTEVAL_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -m slow -n auto --dist $(PYTEST_DIST) --durations=40

bench: install
	$(BIN)/python bench/rouge.py
	$(BIN)/python bench/deterministic.py
	$(BIN)/python bench/html_report.py
	$(BIN)/python bench/agent_overhead.py
	$(BIN)/python bench/otel_import.py
	$(BIN)/python bench/run_store.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache output site

# The JSON Schemas, regenerated from the pydantic models (tests/schema checks they are current).
.PHONY: schemas
schemas: install
	for kind in evalset metrics result run prices labels config; do \
	  $(BIN)/agenteval schema $$kind > schemas/$$kind.schema.json; \
	  cp schemas/$$kind.schema.json src/agenteval/data/$$kind.schema.json; \
	done

# The manual (docs/, mkdocs.yml) as a browsable site in site/, built offline; --strict fails
# on a broken link or anchor and on a page left out of the navigation.
docs: install
	$(BIN)/mkdocs build --strict
