"""Scale beyond this machine (issue 8): dry-run partitioning for a virtual rank count,
the analytic time model, the papers' analytic figures, and their validation.

* ``dryrun``      exact per-rank counts of every exchange method for P ranks (C++ core,
                  ``cpp/spikex/dryrun/``), without simulating on P ranks;
* ``statistics``  max / mean / distribution over ranks of those counts;
* ``time_model``  machine profiles (``profiles/*.toml``) and predicted time per interval;
* ``analytic``    NEST Figure 1, Garg & Sabharwal Tables 2 and 3;
* ``validation``  predictions against measured runs and the papers' tables, and
                  ``docs/scaling.md``.
"""
