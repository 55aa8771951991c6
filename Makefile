# Two commands do all set-up on a fresh machine (only python3 and make needed):
#   make demo   create .venv, install dprelease, run the demo: raw Adult in, decoded synthetic Adult out
#   make test   create .venv, install dprelease with its test extras, run the tests
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
comma  := ,
# Spark's tests need the spark extra (pyspark: ~490 MB; ~50 s to build on a first install, ~13 s from pip's
# cache) and a Java runtime. Where Java is found the extra is installed and the tests are required
# (DPRELEASE_REQUIRE_SPARK=1: a missing pyspark fails them); elsewhere they are skipped.
JAVA_FOUND := $(shell { test -x "$${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/java" || command -v java; } >/dev/null 2>&1 && echo yes)
TEST_EXTRAS := test$(if $(JAVA_FOUND),$(comma)spark)

.PHONY: demo test bench bench-raw clean

# The stamp depends on pyproject.toml, so set-up re-runs only when the project's
# declared dependencies change; otherwise it is a no-op.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(TEST_EXTRAS)]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/dprelease demo

# The tests run in TEST_WORKERS processes (pytest-xdist; 0: one process, in order).
TEST_WORKERS ?= 2

test: $(VENV)/.installed
	DPRELEASE_REQUIRE_SPARK=$(if $(JAVA_FOUND),1,0) $(BIN)/python -m pytest -n $(TEST_WORKERS)

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_small3.py

# Raw Adult -> schema -> synthetic -> decoded: marginals, train-synthetic-test-real, quantiles, time, and the
# smartnoise peers where benchmarks/peers/setup_peers.sh has made their venv (about 45 min with them).
bench-raw: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	nice -n 5 $(BIN)/python benchmarks/bench_raw_adult.py

clean:
	rm -rf $(VENV) dprelease-demo build *.egg-info src/*.egg-info
