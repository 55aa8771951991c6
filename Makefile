# Two commands do all set-up on a fresh machine (only python3 and make needed):
#   make demo   create .venv, install dprelease, run the demo: raw Adult in, decoded synthetic Adult out
#   make test   create .venv, install dprelease with its test extras, run the tests
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench bench-raw clean

# The stamp depends on pyproject.toml, so set-up re-runs only when the project's
# declared dependencies change; otherwise it is a no-op.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/dprelease demo

test: $(VENV)/.installed
	$(BIN)/python -m pytest

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_small3.py

# Raw Adult -> schema -> synthetic -> decoded: marginals, train-synthetic-test-real, quantiles, time, and the
# smartnoise peers where benchmarks/peers/setup_peers.sh has made their venv (about 45 min with them).
bench-raw: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	nice -n 5 $(BIN)/python benchmarks/bench_raw_adult.py

clean:
	rm -rf $(VENV) dprelease-demo build *.egg-info src/*.egg-info
