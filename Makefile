# spikex — the README's two commands: `make demo` and `make test`.
# Both install what is missing (scripts/setup.sh), build, then run.
VENV   ?= .venv
PY     := $(VENV)/bin/python
SPIKEX := $(VENV)/bin/spikex
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

.PHONY: bench-nestml performance-page docs test-docs bench-pynn bench-cond-networks test-cluster all setup setup-nest build demo test test-fast format format-check test-cpp test-sanitize sanitize-build sanitize-run test-python test-pynn bench bench-cpp bench-nest bench-nest-stdp clean results scaling bench-cluster bench-spike-stream bench-checkpoint bench-memory bench-hpcc bench-codec bench-wire bench-delivery-groups setup-neuron bench-neuron bench-build-time setup-brian2 bench-brian2

all: build

setup:
	bash scripts/setup.sh

build: setup
	$(PY) -m pip install -q --no-build-isolation --no-deps .

demo: build
	$(SPIKEX) demo

# The sanitizer build (build/sanitize: the core and the C++ tests again, about 7 minutes of
# both cores) compiles in the background at the lowest priority (SCHED_IDLE) while the Python tests,
# PyNN's scenarios, the cluster tests and the docs run (they leave about 40 % of the two
# cores idle: interpreters starting, mpiexec, files); its tests run at the end. The
# background build is its own process group, ended with the job on any failure.
test: build format-check test-cpp
	@mkdir -p build; setsid chrt --idle 0 nice -n 19 $(MAKE) --no-print-directory sanitize-build > build/sanitize-build.log 2>&1 & \
	  pid=$$!; trap 'kill -- -$$pid 2>/dev/null' EXIT INT TERM; \
	  $(MAKE) --no-print-directory test-python test-pynn test-cluster test-docs || exit 1; \
	  echo "waiting for the sanitizer build (build/sanitize-build.log)"; \
	  wait $$pid || { tail -n 40 build/sanitize-build.log; echo "sanitizer build failed" >&2; exit 1; }; \
	  $(MAKE) --no-print-directory sanitize-run

# The C++ unit and multi-rank tests and the micro-benchmarks (bench/cpp/) in their own
# build, apart from the package (`pip install .` builds only the core library and the
# Python module). The micro-benchmarks are compiled, not run: a change to the core that
# breaks one fails `make test`.
# C++ formatting (.clang-format; clang-format 14, Debian's): `make format` rewrites,
# `make format-check` (part of `make test`) fails on any difference.
CXX_SOURCES = $(shell git ls-files '*.cpp' '*.hpp' 2>/dev/null || find cpp tests bench -name '*.[ch]pp')
format: setup
	clang-format -i $(CXX_SOURCES)
format-check: setup
	@clang-format --dry-run --Werror $(CXX_SOURCES) && echo "clang-format: $(words $(CXX_SOURCES)) files formatted"

# The C++ tests and micro-benchmarks are built in the package's own CMake build
# (build/wheel, which `pip install .` configures without them): switched on here, so the
# core is compiled once for the module and the tests. The next `pip install .` switches
# them off again without recompiling anything.
TEST_BUILD := build/wheel
test-cpp: build
	cmake -S . -B $(TEST_BUILD) -DSPIKEX_BUILD_TESTS=ON -DSPIKEX_BUILD_BENCH=ON >/dev/null
	cmake --build $(TEST_BUILD)
	ctest --test-dir $(TEST_BUILD) --output-on-failure

# The C++ unit tests and the multi-rank tests (the conformance suite: every exchange's
# buffers) again under AddressSanitizer and UBSan, in a separate Debug build. OpenMPI's
# own allocations are not ours to report: leak detection is off for the MPI run.
SANITIZE_ENV = UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-sanitize: sanitize-build
	$(MAKE) --no-print-directory sanitize-run
sanitize-build: setup
	cmake -S . -B build/sanitize -G Ninja -DSPIKEX_BUILD_TESTS=ON -DSPIKEX_BUILD_PYTHON=OFF \
	      -DSPIKEX_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build build/sanitize --target spikex_unit_tests spikex_mpi_tests
sanitize-run:
	$(SANITIZE_ENV) build/sanitize/cpp/spikex_unit_tests --gtest_brief=1
	$(SANITIZE_ENV) ASAN_OPTIONS=detect_leaks=0 mpiexec --oversubscribe -np 3 build/sanitize/cpp/spikex_mpi_tests --gtest_brief=1

# NEST 3.10 in its own venv (bench/nest/.venv) for the exact-match test. Outside CI it
# never fails: without NEST the NEST tests skip and say why. Under CI=true a missing NEST
# fails (here and in the tests).
setup-nest:
	bash scripts/setup_pynn_nest.sh
	bash scripts/setup_bmtk.sh || [ "$$CI" != true ]  # BMTK for the SONATA comparison; needed under CI

test-python: setup-nest
	$(PY) -m pytest -q -m "not cluster" --durations=25 tests/python

# Across hosts that share no memory: four network namespaces on a private bridge
# (scripts/mini_cluster.sh), ranks talking over real TCP. The same spikes for every method
# on 1-4 hosts x 1-2 ranks, gups, and faults (a rank killed, a link down, a failing build).
# Skips, saying why, where namespaces cannot be created (not root).
test-cluster: build
	$(PY) -m pytest -q -m cluster -rs tests/python/cluster

# PyNN's own system scenarios (its sdist, fetched once into build/pynn-sdist/) against
# spikex.pynn, each in a subprocess: writes docs/validation/pynn.md and
# bench/results/pynn_scenarios.json, fails if a scenario of tests/pynn/expected_pass.txt
# does not pass (docs/dev/testing.md). At most 300 s a scenario and 480 s in all.
test-pynn: build
	$(PY) tests/pynn/harness.py --check

# The documentation site (docs/dev/documentation.md): docs/generate.py rewrites the pages
# generated from the registries (models, exchange methods, configuration keys), then
# Sphinx builds build/docs/html with warnings as errors (a broken internal link, a
# docstring autodoc cannot read, a page in no table of contents) and runs the gallery's
# scripts (examples/gallery/). `make test-docs` (part of `make test`, about a minute)
# fails instead of rewriting when a generated page is stale, and adds Sphinx's link check
# (internal links only: external ones need the internet).
DOCS_BUILD := build/docs
SPHINX = $(PY) -m sphinx -W --keep-going -q -d $(DOCS_BUILD)/doctrees
docs: build
	$(PY) docs/generate.py
	$(SPHINX) -b html docs $(DOCS_BUILD)/html
	@echo "docs: $(DOCS_BUILD)/html/index.html"
test-docs: build
	$(PY) docs/generate.py --check
	$(SPHINX) -b html docs $(DOCS_BUILD)/html
	$(SPHINX) -b linkcheck docs $(DOCS_BUILD)/linkcheck

# While developing: the Python tests not marked slow (pyproject.toml, docs/dev/testing.md),
# serial and MPI, in under two minutes on 2 cores; `make test` still runs everything.
test-fast: build
	$(PY) -m pytest -q -m "not slow and not cluster" tests/python

bench: build
	$(PY) bench/hines2011.py

# NEURON 9.0.2 in its own venv (bench/neuron/.venv) and the IntervalFire mechanism for the
# Hines 2011 comparison; a benchmark peer only, not part of `make test`.
setup-neuron:
	bash scripts/setup_neuron.sh

# The Hines 2011 benchmark (8,192 cells x 1,000 inputs, 200 ms) on spikex and NEURON at
# P = 1 and 2, 3 runs each, alternating (bench/results/hines_vs_neuron.json,
# docs/validation/hines_vs_neuron.md; about 10 minutes on 2 cores).
bench-neuron: build setup-neuron
	$(PY) bench/neuron/hines_vs_neuron.py

# PyNN's VA CUBA and Brunel examples, unchanged, on pyNN.nest (NEST 3.10 + PyNN in the
# NEST venv) and spikex.pynn: times, memory, rates and CVs side by side
# (docs/validation/pynn_benchmarks.md, bench/results/pynn_benchmarks.json).
bench-pynn: build
	bash scripts/setup_pynn_nest.sh
	$(PY) bench/pynn/run.py

# Brian2 2.11 in its own venv on Python >= 3.13 (bench/brian2/.venv); a benchmark peer
# only, not part of `make test`.
setup-brian2:
	bash scripts/setup_brian2.sh

# Small and medium networks (issue 60): the Brunel network at 5,000 and 20,000 cells and
# VA CUBA on spikex (Python API, spikex.pynn; 1, 2 and chosen threads) and Brian2's C++
# standalone (no OpenMP, 2 threads), 3 rounds interleaved: bench/results/small_networks.json,
# docs/validation/small_networks.md (about 10 minutes on 2 idle cores).
bench-brian2: build setup-brian2
	$(PY) bench/brian2/small_networks.py
	$(PY) bench/performance_page.py

# VA COBA and an AdEx network (4,000 cells) on spikex's Python API and PyNEST, one
# thread each (docs/validation/cond_networks_vs_nest.md; about 10 minutes).
bench-cond-networks: build setup-nest
	$(PY) bench/nest/cond_networks_vs_nest.py

# Peak RSS of rank 0 writing N = 1e5 ... 1e8 spikes streamed in chunks (SpikeStream)
# against gathered and written at the end (bench/results/spike_stream_memory.json; about
# 20 s on 2 idle cores, up to 4 GB for the gathered 1e8).
bench-spike-stream: build
	$(PY) bench/spike_stream_memory.py

# Checkpoint bytes per neuron and per synapse, write and read seconds per GB, and
# Network.load on P' = 1-4 ranks against a fresh build there (hpc_benchmark static and
# STDP, interval_fire; one resume checked against an uninterrupted run):
# bench/results/checkpoint.json and the table in docs/user/checkpoint.md (about 6 minutes
# on 2 idle cores, up to 3.5 GB in one process).
bench-checkpoint: build
	$(PY) bench/checkpoint.py

# Build time of the hpc_benchmark's connection table at scale 1 (126.6 M synapses), 1 rank,
# threads 1 and 2, 3 runs each, ns per synapse and peak RSS: bench/results/build_time.json
# under the label "after" (about 1 minute, 0.6 GB).
# NESTML 9.0's model library through spikex's NESTML generator, and against NESTML's
# python_standalone target (docs/validation/nestml.md,
# bench/results/nestml_library.json; docs/user/nestml.md): about 10 minutes on 2 cores.
bench-nestml: build
	$(PY) bench/nestml_standalone.py
	$(PY) bench/nestml_step_cost.py --network hpc_benchmark
	$(PY) bench/nestml_step_cost.py --network sparse
	$(PY) bench/nestml_step_cost.py --model aeif_cond_exp --network hpc_benchmark --ms 200
	$(PY) bench/nestml_step_cost.py --model aeif_cond_exp --network sparse --ms 200
	$(PY) bench/nestml_library.py

bench-build-time: build
	$(PY) bench/build_time.py --label after

# Validation against NEST 3.10 and the hpc_benchmark comparison (docs/validation/nest.md,
# bench/results/nest_*.json, bench/results/vs_nest.json). About 10 minutes on 2 idle cores
# (runs are cached in bench/nest/data/; far longer on a loaded machine).
bench-nest: build setup-nest
	$(PY) bench/nest/run_exact.py
	$(PY) bench/nest/compare_statistics.py
	$(PY) bench/vs_nest.py

# STDP hpc_benchmark over several seeds on both simulators (about 40 minutes: NEST's runaway
# blocks are slow); docs/validation/nest.md, section "STDP runaway".
bench-nest-stdp: build setup-nest
	$(PY) bench/nest/stdp_runaway.py --indegree 3750 --seeds 1,2,3,4 --nest-seeds 1,2,3 --tsim 1500

# The papers' experiments (examples/papers/experiments.toml) measured here, written to
# docs/results.md and docs/results/ (tens of minutes; not part of `make test`).
# docs/performance.md from the result files (every benchmark against its peer; no runs).
performance-page: setup
	$(PY) bench/performance_page.py

results: build
	$(PY) -m spikex.results
	$(MAKE) scaling

# Dry runs and the time model checked against runs on 1-16 ranks and the papers' tables
# (docs/scaling.md, docs/scaling/); profiles/local.toml is refitted first.
scaling: build bench-cpp
	$(PY) bench/fit_profile.py --binary build/bench/cpp/bench_model_parameters
	$(PY) -m spikex.scaling

# The time model against runs on an emulated cluster (network namespaces, real TCP, links
# limited to 1 Gbit/s and 100 Mbit/s by tbf; scripts/mini_cluster.sh with its own prefix
# "tm"): fits profiles/netns-*.toml, writes bench/results/cluster_time_model.json and
# section 5 of docs/scaling.md. Needs root; about 15 minutes on 2 idle cores.
bench-cluster: build
	cmake -S . -B build/bench -G Ninja -DSPIKEX_BUILD_PYTHON=OFF -DSPIKEX_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/bench --target bench_model_parameters bench_spike_codec
	$(PY) bench/cluster_time_model.py

clean:
	rm -rf build $(VENV) demo-out spikex-out

# The time model on the microcircuit (many delay groups a spike), measured and predicted on
# 1 and 2 ranks: bench/results/delivery_groups.json and its table in docs/user/model.md
# (about 10 s).
bench-delivery-groups: build
	$(PY) bench/delivery_groups.py

# The memory system's limit for random updates (bench/cpp/memory_limits.cpp) on one core
# and on all cores at once, per table size of bench-hpcc, and spikex gups against it:
# bench/results/memory_limits.json and its table in docs/user/gups.md (about 8 minutes).
bench-memory: build
	cmake -S . -B build/bench -G Ninja -DSPIKEX_BUILD_PYTHON=OFF -DSPIKEX_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/bench --target bench_memory_limits
	$(PY) bench/memory_limits.py

# spikex gups against the HPC Challenge reference codes in the same run (issue 21): hpcc
# 1.5.0's MPIRandomAccess, standard (Debian's hpcc, installed with apt when missing; root)
# and Sandia opt2 (built once in build/hpcc/ from the same sources, fetched from Debian),
# against spikex routed and baseline, P = 1, 2, 4, best of 2 runs each, 2^24 then 2^26
# words: bench/results/gups_hpcc.json and the table in docs/user/gups.md.
# On 2 cores (duration_s in the JSON, 2026-11-28): 2^24 took 3.7 minutes, 2^26 10.8, plus
# the first run's install of hpcc (apt) and build of opt2 (about 15 s).
bench-hpcc: build
	$(PY) bench/gups.py --hpcc --log2-table 24
	$(PY) bench/gups.py --hpcc --log2-table 26

# The spike wire codec's encode and decode ns per spike (bench/cpp/spike_codec.cpp) against
# the time its saved bytes are worth at profiles/bgp.toml's byte cost, then whole runs with
# and without it (bench/codec_whole_runs.py): bench/results/spike_codec.json,
# bench/results/codec_whole_runs.json and two tables of docs/methods/wire_format.md (about
# 11 minutes on the host of 2026-11-27: the codec bench runs 3 times).
bench-codec: build
	cmake -S . -B build/bench -G Ninja -DSPIKEX_BUILD_PYTHON=OFF -DSPIKEX_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/bench --target bench_spike_codec
	$(PY) bench/spike_codec.py
	$(PY) bench/codec_whole_runs.py

# Bytes per spike on the wire of every exchange method (summary.json wire_bytes_per_spike)
# for the demo network, the hpc_benchmark and the microcircuit on 2 and 4 ranks:
# bench/results/wire_bytes.json and a table of docs/methods/wire_format.md (about 9 minutes).
bench-wire: build
	$(PY) bench/wire_bytes.py

bench-cpp: setup
	cmake -S . -B build/bench -G Ninja -DSPIKEX_BUILD_PYTHON=OFF -DSPIKEX_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/bench
	mkdir -p bench/results
	build/bench/cpp/bench_source_lookup > bench/results/source_lookup.json
	build/bench/cpp/bench_input_buffers > bench/results/input_buffers.json
	build/bench/cpp/bench_model_step_cost > bench/results/model_step_cost.json
	SPIKEX_VECTOR_ISA=baseline build/bench/cpp/bench_model_step_cost > bench/results/model_step_cost_baseline.json
	$(PY) bench/ode_cost_table.py
	$(PY) bench/nest/cond_networks_vs_nest.py --report-only
