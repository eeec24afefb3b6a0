# spikex — the README's two commands: `make demo` and `make test`.
# Both install what is missing (scripts/setup.sh), build, then run.
VENV   ?= .venv
PY     := $(VENV)/bin/python
SPIKEX := $(VENV)/bin/spikex
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

.PHONY: all setup build demo test test-cpp test-sanitize test-python bench bench-cpp clean results

all: build

setup:
	bash scripts/setup.sh

build: setup
	$(PY) -m pip install -q --no-build-isolation --no-deps .

demo: build
	$(SPIKEX) demo

test: build test-cpp test-sanitize test-python

test-cpp:
	ctest --test-dir build/wheel --output-on-failure

# The C++ unit tests again under AddressSanitizer and UBSan (a separate build).
test-sanitize: setup
	cmake -S . -B build/sanitize -G Ninja -DSPIKEX_BUILD_TESTS=ON -DSPIKEX_BUILD_PYTHON=OFF \
	      -DSPIKEX_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build/sanitize --target spikex_unit_tests
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 build/sanitize/cpp/spikex_unit_tests --gtest_brief=1

test-python:
	$(PY) -m pytest -q tests/python

bench: build
	$(PY) bench/hines2011.py

# The papers' experiments (examples/papers/experiments.toml) measured here, written to
# docs/results.md and docs/results/ (tens of minutes; not part of `make test`).
results: build
	$(PY) -m spikex.results

clean:
	rm -rf build $(VENV) demo-out spikex-out

bench-cpp: setup
	cmake -S . -B build/bench -G Ninja -DSPIKEX_BUILD_PYTHON=OFF -DSPIKEX_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/bench
	mkdir -p bench/results
	build/bench/cpp/bench_source_lookup > bench/results/source_lookup.json
