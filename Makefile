# Each target sets itself up: a virtual environment under the repo, the project installed from
# pyproject.toml. Re-running is cheap: pip is only called again when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: site test bench mutate serve clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

site: $(STAMP)
	$(BIN)/brief build

# ruff (rules in pyproject.toml) and the import-linter contracts of the layers, then the suite.
test: $(STAMP)
	$(BIN)/ruff check pipeline tests benchmarks scripts
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 -q --durations=25

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run --out bench-results.json

# Mutation testing of the modules that decide figures and safety ([tool.mutmut] in pyproject.toml);
# writes scripts/mutation-results.md. Tens of minutes: not part of `make test`.
mutate: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,mutate]'
	$(BIN)/python scripts/mutate.py

serve: $(STAMP)
	$(BIN)/brief serve

clean:
	rm -rf public .public-* .cache mutants
