# Two commands for a newcomer: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PYTEST_WORKERS ?= 2

.PHONY: install run lint test test-integration test-ha bench openapi clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[embedded,test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m service.devserver

# ruff (pyproject's rule set; never `ruff format`), mypy (strict on domain/), and mypy strict on
# service/ and workers/ held to tools/mypy_baseline.txt (counts that only shrink); `make test` runs it first.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python tools/mypy_baseline.py

# The two-servers e2e (about a minute) and every benchmark at its smoke sizes (about two): marker `scale`,
# in test-integration only.
test: lint
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup -m "not scale"

test-integration: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup tests/integration tests/e2e

# A primary lost under load and a switchover on a Patroni cluster, and a point-in-time
# restore (tests/ha; Debian's patroni, etcd-server and postgresql-15, else SKIPPED): about
# three minutes. Prints the failover's JSON line, also kept in build/test-ha.json.
test-ha: $(STAMP)
	$(BIN)/python -m pytest -s -rs -m ha tests/ha

bench: $(STAMP)
	$(BIN)/python -m bench

openapi: $(STAMP)
	$(BIN)/python -m service.http.openapi > openapi.yaml

clean:
	rm -rf $(VENV) .data
