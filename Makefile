# Each target sets itself up: a virtual environment under the repo with exactly the versions of the
# lock files in requirements/ (compiled from pyproject.toml by `make lock`; pip checks every file's
# hash), pip itself first (requirements/pip.txt), then the project itself, editable. `make site`
# installs what the build needs (requirements/run.txt); `make test` adds the test extras
# (requirements/test.txt, which holds the same pins and more). Re-running is cheap: pip is only called again when a lock file changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
PIP := $(BIN)/python -m pip --quiet

.PHONY: site test screenshots bench mutate serve lock clean

# setuptools comes from the lock (the build backend of pyproject.toml), so the project installs
# without an isolated build environment, which would fetch whatever setuptools is newest that day.
$(RUN_STAMP): requirements/pip.txt requirements/run.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --require-hashes -r requirements/pip.txt
	$(PIP) install --require-hashes -r requirements/run.txt
	$(PIP) install --no-deps --no-build-isolation -e .
	touch $@

$(TEST_STAMP): requirements/test.txt $(RUN_STAMP)
	$(PIP) install --require-hashes -r requirements/test.txt
	touch $@

site: $(RUN_STAMP)
	$(BIN)/brief build

# ruff (rules in pyproject.toml) and the import-linter contracts of the layers, then the suite.
test: $(TEST_STAMP)
	$(BIN)/ruff check pipeline tests benchmarks scripts
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 -q --durations=25

# The browser tests again, each saving what it looked at in test-artifacts/screenshots/ (both
# schemes, both widths), for a reviewer: `make test` takes none.
screenshots: $(TEST_STAMP)
	BRIEF_SCREENSHOTS=1 $(BIN)/python -m pytest -n 2 -q tests/test_browser*.py

bench: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.run --out bench-results.json

# Mutation testing of the modules that decide figures and safety ([tool.mutmut] in pyproject.toml);
# writes scripts/mutation-results.md. Tens of minutes: not part of `make test`. mutmut is not in the
# lock files; the packages the lock pins already satisfy pyproject.toml, so pip leaves them as they are.
mutate: $(TEST_STAMP)
	$(PIP) install -e '.[test,mutate]'
	$(BIN)/python scripts/mutate.py

serve: $(RUN_STAMP)
	$(BIN)/brief serve

# Refresh the lock files: the newest versions pyproject.toml's ranges allow, each with the hashes
# of its files. run.txt is compiled within test.txt, so the two agree on every package they share.
# `make lock LOCK_UPGRADE=` keeps the current pins and only follows a change of pyproject.toml.
# pip-tools runs from a venv of its own: the project's venv holds exactly what the lock says.
LOCK_UPGRADE ?= --upgrade
PIP_TOOLS := pip-tools==7.7.0
LOCK_BIN := $(VENV)-lock/bin
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_BIN)/pip-compile --quiet $(LOCK_UPGRADE) \
	--generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links

lock:
	test -x $(LOCK_BIN)/pip-compile || { $(PYTHON) -m venv $(VENV)-lock && \
	  $(LOCK_BIN)/python -m pip install --quiet $(PIP_TOOLS); }
	$(PIP_COMPILE) --build-deps-for editable --extra test --output-file requirements/test.txt pyproject.toml
	$(PIP_COMPILE) --build-deps-for editable --constraint requirements/test.txt --output-file requirements/run.txt pyproject.toml
	$(PIP_COMPILE) --output-file requirements/pip.txt requirements/pip.in

clean:
	rm -rf public .public-* .cache mutants
