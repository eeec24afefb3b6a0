"""Type stub of the C++ extension `spikex._core` (built from cpp/python/module.cpp).

This is the only boundary between the Python package and the C++ core.
Gids are global cell ids (0..N-1, in creation order over all populations).
Steps are integer time-step indices: t = step * dt_ms.
"""
import numpy as np
from numpy.typing import NDArray

class UserError(ValueError):
    """Raised by the core for invalid input (maps to exit status 2)."""

class SimulationError(RuntimeError):
    """Raised when a cell's dynamics diverge during a run (maps to exit status 3)."""

# ---- communication (the process-wide context) --------------------------------
def comm_init() -> None:
    """Initialise communication once per process: MPI when launched by mpiexec
    (detected from the environment), otherwise the serial backend. Idempotent."""
def comm_backend() -> str: ...          # "mpi" or "serial"
def comm_rank() -> int: ...
def comm_size() -> int: ...
def comm_thread_level() -> str:
    """MPI's thread support as provided ("MPI_THREAD_SERIALIZED" or higher; the serial
    backend says "MPI_THREAD_MULTIPLE"). A lower level is refused at comm_init."""
def comm_barrier() -> None: ...
def comm_abort(code: int) -> None:      # MPI_Abort (or os._exit in serial); never returns
    ...
def comm_finalize() -> None: ...         # MPI_Finalize if MPI was initialised; idempotent
def allgather_int64(values: NDArray[np.int64], in_run: bool = False) -> NDArray[np.int64]:
    """Concatenation of every rank's array, rank order (sizes may differ per rank); releases
    the GIL. in_run: counts as running for heartbeat() (a collective between chunks)."""
def allgather_float64(values: NDArray[np.float64], in_run: bool = False) -> NDArray[np.float64]: ...
def peak_rss_mb() -> float: ...          # this process, from getrusage
def heartbeat() -> tuple[int, bool]:
    """(exchanges completed by this process, inside a run); needs neither the GIL nor MPI."""
def spikes_emitted() -> int: ...         # by this process's cells, up to its last exchange
def spikes_emitted_total() -> int:
    """Collective: spikes_emitted() summed over the ranks; releases the GIL."""

# ---- the exchange-method registry (cpp/spikex/exchange/method_registry.hpp) ----
def exchange_registry() -> list[dict]:
    """Every registered method, in registration order: {"name", "description",
    "capabilities": {name: bool}, "options": [option], "variants": [{option: value}],
    "cost_formula", "docs_page", "problems": [what the entry lacks]}; an option is
    {"name", "kind" ("bool" | "int" | "float" | "choice" | "grid"), "default", "doc",
    "minimum", "maximum", "exclusive_minimum", "choices", "variant"}. spikex.methods reads it."""
def common_exchange_options() -> list[dict]: ...  # options every method has (measure_wait)
def model_parameter_names(model: str) -> list[str]: ...  # what the C++ model accepts
def connection_rule_registry() -> list[dict]: ...
def load_model_library(path: str) -> list[str]:
    # loads a model library (a NESTML model built by spikex.nestml) once per file and
    # registers its models in this process; returns their names
    ...

def model_library_abi() -> str:
    # the compiler and type layout a model library must have been built with
    ...

def model_registry() -> list[dict]:
    # every model and device: name, kind ("neuron" | "spike_source" | "input_device"),
    # description, parameters, state_variables, accepts_current, docs_page
    ...
def synapse_registry() -> list[dict]:
    # every synapse type: name, description, defaults {parameter: NEST's default}, plastic,
    # docs_page
    ...
def local_gids(distribution: str, cells: int, seed: int) -> NDArray[np.int64]: ...  # this rank's cells
def counter_names() -> dict[str, object]:
    """The names exchanges report (cpp/spikex/instrument/counter_names.hpp):
    {"counters": [...], "properties": [...], "dry_run": [...], "route_dim_prefix": "route_dim_"}.
    Counters are per rank (summed over ranks); properties describe the set-up."""

# ---- route library and GUPS (cpp/spikex/route, cpp/spikex/gups) --------------
def route_plan(ranks: int, dims: str | list[int], budget: int, lanes: int = 1) -> dict[str, object]:
    """What the route library makes of a grid shape ("auto", "hypercube", "4x2" or
    [4, 2]) on `ranks` ranks with `budget` items per rank and `lanes` send buckets per
    partner ("auto" weighs them; spikes use 1, spikex gups 2): dims, buckets, channels,
    ragged, max_hops, bucket_capacity, and dims_error / budget_error ("" when fine)."""
def gups_run(options: dict[str, object]) -> dict[str, object]:
    """Collective: HPCC MPIRandomAccess on the process context. options: log2_table,
    algorithm ("baseline" | "routed"), dims, budget, verify, corrupt_updates (tests),
    poll_every. Returns the same dict on every rank: seconds, updates, errors, passed,
    messages_sent, updates_sent, local_updates, forwarded, send_tests(_pending),
    rounds, buffered_high_water, ... Bad options -> UserError."""

# ---- the simulation engine ---------------------------------------------------
class Engine:
    def __init__(self, dt_ms: float, seed: int, method: str, distribution: str,
                 exchange_options: dict[str, object]) -> None:
        """exchange_options: e.g. {"allgather_slots": 10, "compress": "auto",
        "source_lookup": "dense", "measure_wait": True, "subintervals": 1, "phases": 1,
        "max_pending_sends": 1024, "rma_slot_spikes": 2}. Unknown keys -> UserError."""
    def add_population(self, model: str, n: int, params: dict[str, object]) -> int:
        # values: float, 1-d float64 array of n, or {"distribution": name, mean/std/low/high/beta/value}
        ...
    def connect_rule(self, rule: str, source_first: int, source_n: int,
                     target_first: int, target_n: int, options: dict[str, object]) -> None:
        # options: indegree, indegree_spread, outdegree, total_number, probability,
        # allow_autapses, allow_multapses, weight, weight_spread, delay_ms (number or
        # distribution dict), synapse, synapse_params, receptor
        ...
    def connect_arrays(self, sources: NDArray[np.int64], targets: NDArray[np.int64],
                       weights: NDArray[np.float64], delays: NDArray[np.float64],
                       synapse: str, synapse_params: dict[str, float], local: bool,
                       receptor: int) -> None: ...
    def set_list_parameter(
        self, first: int, name: str, values: NDArray[np.float64], offsets: NDArray[np.uint64]
    ) -> None: ...
    def record_state(self, variable: str, runs: list[tuple[int, int]], interval_steps: int,
                     start_step: int) -> int: ...
    def set_record_from(self, step: int) -> None: ...   # spikes of earlier steps are not recorded
    def state(self, k: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
        # recording k on this rank: gids, sampled steps, values (steps x gids, row-major)
        ...
    def local_synapse_count(self) -> int: ...          # synapses (without device inputs)
    def record(self, first: int, n: int) -> None: ...
    def build(self) -> None:            # cells + connections on this rank (no communication)
        ...
    def init(self) -> None:             # exchange set-up (collective)
        ...
    def run_until(self, step: int) -> None:   # collective; advances to `step` (exclusive)
        ...
    @property
    def step(self) -> int: ...          # current step
    @property
    def steps_per_interval(self) -> int: ...
    @property
    def cells_total(self) -> int: ...
    @property
    def local_cells(self) -> int: ...
    @property
    def threads(self) -> int: ...
    def local_spikes(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(steps, gids) of the spikes recorded on this rank so far."""
    def take_local_spikes(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(steps, gids) of the spikes recorded on this rank since the last call; the
        engine keeps none of them (streamed outputs)."""
    def connections(self) -> dict[str, NDArray]:
        """Connections whose target is on this rank: source (int64), target (int64),
        weight (float64), delay_ms (float64)."""
    def local_connection_count(self) -> int: ...
    def counters(self) -> dict[str, float]:
        """This rank's additive counters (to be summed over ranks): messages_sent,
        bytes_sent, rounds, overflow_rounds, spikes_sent, spikes_received,
        spikes_matched, spikes_emitted, events_delivered."""
    def properties(self) -> dict[str, float]:
        """Set-up properties, identical on every rank (not summed): steps_per_interval,
        and per method e.g. compressed (0/1), entry_bytes, allgather_slots."""
    def memory_bytes(self) -> dict[str, float]:
        """This rank's bytes per structure (capacity): connections, cells,
        delivery_queue, exchange_buffers, lookup_tables."""
    def timers(self) -> dict[str, float]:
        """This rank's seconds: build, init, compute, wait, exchange, send."""
    def record_timeline(self, on: bool) -> None:
        """Record one row per exchange synchronisation (record.timeline)."""
    def timeline(self) -> dict[str, NDArray]:
        """This rank's rows: step, due, rounds, spikes_generated, spikes_sent,
        spikes_received (int64); compute_s, send_s, wait_s, exchange_s, wall_s (float64)."""
    def target_entries(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Presynaptic target table of this rank's cells (target-addressed methods; empty
        otherwise): (source gid, target rank, location) per entry; the location is the
        target rank's index of it among its locations whose source lives on this rank
        (ascending; connections/sender_numbering.hpp)."""
    def location_sources(self) -> NDArray[np.int64]:
        """Source gid of every location of this rank's connection table: per source run
        (sorted layout) or per connection (creation order)."""
    def set_connection_options(self, sort_by_source: bool, keep_sources: bool) -> None: ...
    def set_threads(self, threads: int) -> None:
        """Threads per rank (before build)."""
    def out_degrees(self) -> NDArray[np.int64]:
        """Per gid (length N), number of connections on this rank from that gid."""

def dryrun_sample(ranks: int, limit: int) -> list[int]:
    """Ranks a dry run counts: all up to `limit`, else `limit` spread evenly (0 and P-1 included)."""

class DryRunPartition:
    """The network of `engine` (its spec; the engine need not be built) partitioned for a
    virtual rank count, without MPI (cpp/spikex/dryrun/). `sampled`: ranks to keep, [] = all."""

    def __init__(self, engine: Engine, ranks: int, sampled: list[int]) -> None: ...
    def count(
        self, method: str, exchange_options: dict, gids: NDArray[np.int64], steps: NDArray[np.int64],
        stops: NDArray[np.int64],
    ) -> dict:
        """Counts of `method` for the spike train (gids, steps) and the run_until calls `stops`:
        per_rank, row_max, row_sum (counter -> array), per_cell (fan-out), memory (structure ->
        bytes per sampled rank), properties, row_step, row_due."""
    def target_pairs(self) -> tuple[int, int, int]:
        """(cell, rank) pairs with exactly one target, with more than one, and all pairs."""
    @property
    def sampled(self) -> list[int]: ...
    @property
    def steps_per_interval(self) -> int: ...
    @property
    def connections(self) -> int: ...
