"""The papers' published numbers, as printed, for ``docs/results.md``.

Hines, Kumar & Schürmann 2011 (Front. Comput. Neurosci. 5:49), Tables 1-3: seconds on
Blue Gene/P, "Comp" = computation time of rank 0, "Run" = run time. Jordan et al. 2018
(Front. Neuroinform. 12:2) gives figures, not tables; its findings are quoted in words.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedTable:
    """One published table (or the findings of a figure, when ``rows`` is empty).

    Attributes
    ----------
    source : str
        Paper, table or figure, and what the numbers are.
    columns : tuple of str
        Column headers.
    rows : tuple of tuple
        Rows as printed ("-": no value in the paper).
    findings : str
        The paper's own conclusions from it, quoted or closely paraphrased.
    """

    source: str
    columns: tuple[str, ...] = ()
    rows: tuple[tuple, ...] = ()
    findings: str = ""


_HINES_COLUMNS = (
    "Cores", "Cells", "Conn.",
    "MPI_Allgather Comp", "MPI_Allgather Run", "MPI_ISEND Comp", "MPI_ISEND Run",
    "DCMF_Multicast Comp", "DCMF_Multicast Run", "Record-Replay Comp", "Record-Replay Run",
)  # fmt: skip

PUBLISHED: dict[str, PublishedTable] = {
    "hines2011_table1": PublishedTable(
        source="Hines et al. 2011, Table 1: strong scaling, NEURON on BG/P, 200 ms, seconds",
        columns=_HINES_COLUMNS,
        rows=(
            ("8K", "2M", "1k", 6.76, 7.84, 22.3, 24.9, 7.30, 7.74, 6.30, 6.99),
            ("16K", "2M", "1k", 4.01, 5.44, 11.5, 13.5, 3.67, 4.00, 3.17, 3.62),
            ("32K", "2M", "1k", 3.00, 4.69, 5.90, 7.40, 1.84, 2.07, 1.58, 1.91),
            ("64K", "2M", "1k", 2.98, 5.05, 2.87, 4.20, 0.957, 1.25, 0.808, 1.03),
            ("128K", "2M", "1k", "-", "-", "-", "-", 0.497, 0.64, 0.417, 0.608),
            ("8K", "1/4M", "10k", 5.23, 5.64, 18.5, 21.5, 6.50, 6.90, 5.81, 6.58),
            ("16K", "1/4M", "10k", 3.16, 3.78, 11.1, 14.6, 3.76, 4.18, 3.35, 4.07),
            ("32K", "1/4M", "10k", 2.04, 3.11, 6.37, 9.37, 2.04, 2.39, 1.79, 2.64),
            ("64K", "1/4M", "10k", 1.58, 3.47, 6.19, 6.99, 1.36, 1.42, 0.948, 1.77),
            ("128K", "1/4M", "10k", "-", "-", "-", "-", 0.573, 0.799, 0.494, 1.39),
        ),
        findings=(
            "Allgather used 10 compressed slots; MPI_ISEND and DCMF_Multicast the two-phase, "
            "two-sub-interval variants; Record-Replay one sub-interval. DCMF methods are about "
            "three times faster than MPI_Isend; Allgather stops scaling beyond 32 K cores "
            "(its run time rises again at 64 K) while the multisend methods keep scaling."
        ),
    ),
    "hines2011_table2": PublishedTable(
        source="Hines et al. 2011, Table 2: weak scaling, NEURON on BG/P, 200 ms, seconds",
        columns=_HINES_COLUMNS,
        rows=(
            ("8K", "2M", "1k", 6.76, 7.84, 22.3, 24.9, 7.30, 7.74, 6.30, 6.99),
            ("16K", "4M", "1k", 7.99, 9.95, 22.8, 25.7, 7.42, 7.89, 6.33, 7.27),
            ("32K", "8M", "1k", 10.3, 14.2, 23.2, 26.2, 7.41, 7.95, 6.36, 7.25),
            ("64K", "16M", "1k", 15.1, 23.8, 23.5, 26.5, 7.50, 8.00, 6.44, 7.34),
            ("128K", "32M", "1k", "-", "-", 23.4, 26.7, 7.51, 8.12, 6.41, 7.38),
            ("8K", "1/4M", "10k", 5.23, 5.64, 18.5, 21.5, 6.50, 6.90, 5.81, 6.58),
            ("16K", "1/2M", "10k", 6.14, 6.83, 22.4, 27.1, 7.50, 8.10, 6.72, 7.83),
            ("32K", "1M", "10k", 7.00, 8.29, 25.2, 30.6, 8.06, 8.93, 7.21, 8.35),
            ("64K", "2M", "10k", 8.33, 10.5, 29.8, 32.9, 8.76, 9.21, 7.45, 8.94),
            ("128K", "4M", "10k", 10.7, 14.9, 27.4, 35.4, 8.54, 9.38, 7.52, 9.51),
        ),
        findings=(
            "With 1k connections per cell weak scaling is close to ideal for the multisend "
            "methods; Allgather's run time triples from 8 K to 64 K cores."
        ),
    ),
    "hines2011_table3": PublishedTable(
        source=(
            "Hines et al. 2011, Table 3: 4 M cells, 1k +- 50 inputs, 16 K BG/P cores, 8 burst "
            "groups; Comp / Run in seconds"
        ),
        columns=(
            "Distribution",
            "Method",
            "Random Noburst Comp",
            "Random Noburst Run",
            "Random Burst Comp",
            "Random Burst Run",
            "Adjacent Noburst Comp",
            "Adjacent Noburst Run",
            "Adjacent Burst Comp",
            "Adjacent Burst Run",
        ),
        rows=(
            ("round-robin", "Multisend", 7.05, 9.14, 10.18, 12.74, 7.96, 10.08, 11.61, 14.21),
            ("round-robin", "two-phase", 7.37, 7.84, 10.56, 11.16, 8.27, 8.74, 12.01, 12.62),
            ("round-robin", "replay", 6.41, 7.04, 9.06, 9.72, 7.18, 8.01, 10.32, 11.31),
            ("consecutive", "Multisend", 7.16, 9.61, 11.05, 20.75, 1.95, 3.91, 3.32, 12.11),
            ("consecutive", "two-phase", 7.39, 7.86, 10.61, 11.29, 1.95, 3.90, 3.31, 12.10),
            ("consecutive", "replay", 6.46, 7.55, 8.57, 14.65, 1.93, 3.23, 3.27, 10.98),
            ("random shuffle", "Multisend", 7.08, 9.19, 10.18, 12.75, 7.14, 9.20, 9.74, 13.42),
            ("random shuffle", "two-phase", 7.36, 7.84, 10.55, 11.16, 7.37, 7.83, 10.06, 12.07),
            ("random shuffle", "replay", 6.23, 7.27, 8.98, 9.75, 6.36, 7.26, 8.38, 11.36),
        ),
        findings=(
            "Consecutive distribution with adjacent connectivity is about two times faster "
            "without bursts (a cell's spikes go to five ranks) but the gain disappears with "
            "bursts (run time 11-12 s like the others) because the ranks of the bursting "
            "group get five times the input. Round-robin and random shuffle are insensitive "
            "to connectivity. Hence: distribute cells randomly for load balance."
        ),
    ),
    "hines2011_figure5": PublishedTable(
        source="Hines et al. 2011, Figure 5: Allgather, 2 M cells, 8 K cores, 10 / 20 / 40 slots",
        findings=(
            "Computation time is independent of the slot count and its noise is identical in "
            "the three panels. With 40 slots no overflow Allgatherv is ever needed and the "
            "gap between total and computation time per interval is nearly constant; during "
            "the first 20 ms the MPI_Allgather time doubles as the buffer doubles; smaller "
            "buffers overflow more often. Load balance is excellent with Allgather."
        ),
    ),
    "hines2011_figures6to8": PublishedTable(
        source="Hines et al. 2011, Figures 6-8: DCMF_Multicast variants and Record-Replay",
        findings=(
            "One-phase two-sub-interval multisend has the largest computation imbalance "
            "(spikes generated per interval vary 1-8 on rank 0, sends 919-7799). Two-phase "
            "spreads the sending and equalises load; with one sub-interval it needs two "
            "conservation iterations, with two sub-intervals none, which gives the minimal "
            "run time. Record-Replay removes the send-initiation overhead after the first "
            "40 ms; its one-sub-interval variant needs 0-14 conservation iterations (1k) and "
            "is slightly faster than two-phase two-sub-interval multisend."
        ),
    ),
    "jordan2018_weak_scaling": PublishedTable(
        source="Jordan et al. 2018, Figures 7 and 12: weak scaling on JUQUEEN, 18,000 neurons / process",
        findings=(
            "Build time scales almost perfectly in 4g and 5g (5g 25-30 % faster). Init time "
            "is larger in 5g (presynaptic tables) and grows with the number of processes. Sim "
            "time is about equal in 4g and 5g up to ~2048 processes; beyond, 4g grows linearly "
            "(receive buffers) and 5g is 55 % faster on the full machine. 5g memory per "
            "process is constant above ~2048 processes. 5g-nosort has a larger init and sim "
            "time for few processes (one spike per target) and constant memory. Figure 12: "
            "most sim time is delivering spikes from the receive buffers to targets; "
            "MPI_Alltoall communication is a small part."
        ),
    ),
    "jordan2018_small_scale": PublishedTable(
        source="Jordan et al. 2018, Figure 11: N = 11,255, K = 3,750, laptop, 2 processes x 2 threads",
        findings=(
            "5g build time is 50 % lower than 4g, its init time much longer, build + init "
            "comparable. Sim time is almost identical for 4g and 5g-sort; without the "
            "small-scale optimisation (5g-nosort) sim time increases by about 75 % and the "
            "presynaptic connection infrastructure uses a lot of additional memory."
        ),
    ),
}
