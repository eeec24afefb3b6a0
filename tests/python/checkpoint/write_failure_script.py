"""A checkpoint write that fails on rank 1 while rank 0 is still writing (SPMD, 2 ranks).

    python write_failure_script.py DIRECTORY

Rank 1's file write fails at once with "No space left on device"; rank 0's starts a
second later. Every rank prints ``ERROR <rank> <message>`` for the CheckpointWriteError
it gets (or ``WROTE <rank>`` when none), so the test can check that the error names the
cause and not a side effect of the clean-up.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from pathlib import Path

import numpy as np
import spikex  # noqa: F401  (initialises MPI)
from spikex import _core
from spikex.io import checkpoint

real_write = checkpoint._write_rank_file


def full_on_rank_1(path, columns, rank, ranks):
    if rank == 1:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    time.sleep(1.0)
    real_write(path, columns, rank, ranks)


checkpoint._write_rank_file = full_on_rank_1
rank = _core.comm_rank()
try:
    checkpoint.write_checkpoint(Path(sys.argv[1]), {"step": np.array([100], dtype=np.int64)}, {})
    print(f"WROTE {rank}", flush=True)
except checkpoint.CheckpointWriteError as error:
    print(f"ERROR {rank} {error.strerror}", flush=True)
